"""The torch_sdpa adapter on the PyTorch installed here, when there is one (Debian's
python3-torch), in a subprocess that does not see the stand-ins: with
scaled_dot_product_attention (2.0 and later) attnverify judge passes its outputs;
without it (1.x) the adapter says which version it found."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, judge

SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from attnverify_candidate import Case
from attnverify_candidate.adapters import torch_sdpa, _common
cases = [Case(e["dir"]) for e in json.load(open(sys.argv[2]))["cases"] if e["id"].startswith("attn.")]
try:
    for case in cases:
        outs, meta = torch_sdpa.run_case(case, "cpu")
        case.save(outs, metadata=meta)
except _common.AdapterError as e:
    print("ADAPTER_ERROR", e)
    sys.exit(0)
print("IDS", json.dumps([c.id for c in cases]))
"""


def test_torch_sdpa_on_the_installed_torch(exported, tmp_path):
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if probe.returncode != 0:
        pytest.skip("PyTorch is not installed for %s" % sys.executable)
    r = subprocess.run([sys.executable, "-c", SCRIPT, os.path.join(ROOT, "python"),
                        os.path.join(exported, "cases.json")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 0, r.stderr
    version = probe.stdout.strip()
    if version.split(".")[0] in ("0", "1"):
        assert "ADAPTER_ERROR torch %s has no scaled_dot_product_attention" % version in r.stdout
        return
    ids = __import__("json").loads(r.stdout.split("IDS ", 1)[1])
    code, doc, out = judge(exported, ids, tmp_path)
    assert code == 0, out
