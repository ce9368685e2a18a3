"""The candidate protocol in a folder whose path is not UTF-8 (a Latin-1 name): attnverify
cannot write such a path as a JSON string, so cases.json names the case folders relative to
its own folder and case.json its out_dir relative to the case's; the helper resolves both."""
import json
import os
import subprocess
import sys

from conftest import ROOT, SHAPES, TOLERANCES, attnverify_bin

NUMPY_CANDIDATE = os.path.join(ROOT, "examples", "candidates", "numpy_candidate.py")


def run_av(*args):  # the output names the folder, which is not UTF-8
    return subprocess.run([attnverify_bin()] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, errors="replace")


def test_numpy_candidate_runs_cases_exported_into_a_latin1_folder(tmp_path):
    # b"dir_\xe9" as Python spells a non-UTF-8 file name (surrogateescape).
    work = os.path.join(str(tmp_path), os.fsdecode(b"dir_\xe9"))
    r = run_av("cases", "--shapes", SHAPES, "--tolerances", TOLERANCES,
               "--filter", "^attn\\.causal=true\\.s_k=20", "--export", work)
    assert r.returncode == 0, r.stderr
    index = json.load(open(os.path.join(work, "cases.json")))
    assert index["cases"], index
    first = index["cases"][0]
    assert first["dir"] == "cases/" + first["id"]  # relative: the path is not UTF-8
    assert json.load(open(os.path.join(work, first["dir"], "case.json")))["out_dir"] == "out"
    c = subprocess.run([sys.executable, NUMPY_CANDIDATE, os.path.join(work, "cases.json")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors="replace", env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert c.returncode == 0, c.stdout
    for entry in index["cases"]:
        assert os.path.isfile(os.path.join(work, entry["out_dir"], "outputs.safetensors")), entry
    ev = os.path.join(str(tmp_path), "numerics.json")
    j = run_av("judge", "--shapes", SHAPES, "--tolerances", TOLERANCES, "--outputs", work,
               "--filter", "^attn\\.causal=true\\.s_k=20", "--work", os.path.join(str(tmp_path), "judge"),
               "--evidence", ev)
    assert j.returncode == 0, j.stdout + j.stderr
    doc = json.load(open(ev))
    assert doc["verdict"] == "pass" and doc["summary"]["failed"] == 0
