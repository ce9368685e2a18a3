"""Shared by the Python tests: the package from this checkout, the stand-ins (torch only
when the real one cannot be imported), the attnverify binary, and the test sweep
(testdata/python/shapes.json) exported once per session."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
# In this process `torch` is always the stand-in (the library stand-ins compute on it);
# the real PyTorch, when installed, is tested in a subprocess (test_real_torch.py).
sys.path.insert(0, os.path.join(HERE, "standins"))
REAL_TORCH = False

SHAPES = os.path.join(ROOT, "testdata", "python", "shapes.json")
TOLERANCES = os.path.join(ROOT, "testdata", "python", "tolerances.json")


def attnverify_bin():
    path = os.environ.get("ATTNVERIFY_BIN") or os.path.join(ROOT, "build", "attnverify")
    if not os.path.exists(path):
        pytest.skip("no attnverify binary (build it, or set ATTNVERIFY_BIN)")
    path = os.path.abspath(path)
    os.environ["ATTNVERIFY_BIN"] = path
    return path


def run_av(*args):
    return subprocess.run([attnverify_bin()] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("cases"))
    r = run_av("cases", "--shapes", SHAPES, "--tolerances", TOLERANCES, "--export", d)
    assert r.returncode == 0, r.stderr
    return d


def judge(exported, ids, tmp):
    """attnverify judge over `ids`; returns (exit code, numerics.json as a dict, output)."""
    import json
    ev = os.path.join(str(tmp), "numerics.json")
    args = ["judge", "--shapes", SHAPES, "--tolerances", TOLERANCES, "--outputs", exported,
            "--work", os.path.join(str(tmp), "work"), "--evidence", ev]
    for i in ids:
        args += ["--case", i]
    r = run_av(*args)
    doc = json.load(open(ev)) if os.path.exists(ev) else {}
    return r.returncode, doc, r.stdout + r.stderr
