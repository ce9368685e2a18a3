"""The torch_sdpa adapter on the PyTorch installed here, when there is one (Debian's
python3-torch), in a subprocess that does not see the stand-ins: with
scaled_dot_product_attention (2.0 and later) attnverify judge passes its outputs;
without it (1.x) the test is skipped with the reason (that message is tested on the
stand-in)."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, judge

SCRIPT = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
from attnverify_candidate import Case
from attnverify_candidate.adapters import torch_sdpa, _common
cases = [Case(os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])), e["dir"]))
         for e in json.load(open(sys.argv[2]))["cases"] if e["id"].startswith("attn.")]
try:
    for case in cases:
        outs, meta = torch_sdpa.run_case(case, "cpu")
        case.save(outs, metadata=meta)
except _common.AdapterError as e:
    print("ADAPTER_ERROR", e)
    sys.exit(0)
print("IDS", json.dumps([c.id for c in cases]))
"""


def installed_torch_version():
    try:
        from importlib import metadata
        return metadata.version("torch")
    except Exception:  # noqa: BLE001 -- not installed (or no metadata)
        return None


def test_torch_sdpa_on_the_installed_torch(exported, tmp_path):
    # Importing PyTorch takes seconds: 1.x (Debian's python3-torch 1.13) has no SDPA, and
    # the adapter's message for that is tested on the stand-in (test_adapters.py).
    version = installed_torch_version()
    if version is None:
        pytest.skip("PyTorch is not installed for %s" % sys.executable)
    if version.split(".")[0] in ("0", "1"):
        pytest.skip("PyTorch %s has no scaled_dot_product_attention (2.0 and later)" % version)
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert probe.returncode == 0, probe.stderr
    r = subprocess.run([sys.executable, "-c", SCRIPT, os.path.join(ROOT, "python"),
                        os.path.join(exported, "cases.json")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 0, r.stderr
    assert "ADAPTER_ERROR" not in r.stdout, r.stdout
    ids = __import__("json").loads(r.stdout.split("IDS ", 1)[1])
    code, doc, out = judge(exported, ids, tmp_path)
    assert code == 0, out
