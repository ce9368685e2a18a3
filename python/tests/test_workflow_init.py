"""The workflow's pytest command as written, on a package made by `attnverify init` (its
default shapes.json: every op), with a project test that handles one op (gemm) and skips
the others. A skipped case is skipped in pytest and in the evidence (numerics.json
"skipped", with its reason), never judged as "no output" and never a pass; the report
reads the evidence as narrower than its sweep."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import HERE, ROOT, attnverify_bin

TEST_FILE = os.path.join(ROOT, "testdata", "python", "workflow", "test_gemm_only.py")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    proj = tmp_path_factory.mktemp("proj")
    r = subprocess.run([attnverify_bin(), "init", str(proj)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0, r.stdout
    (proj / "tests").mkdir()
    shutil.copy(TEST_FILE, str(proj / "tests" / "test_main_attention.py"))
    return proj


def workflow_command(proj, mode):
    """`python -m pytest -q tests/test_main_attention.py --shapes ... --tolerances ...`, run
    in the project (the plugin from this checkout: -p, as an installed package loads it)."""
    env = dict(os.environ, ATTNVERIFY_BIN=attnverify_bin(), ATTNVERIFY_TEST_MODE=mode,
               PYTHONPATH=os.path.join(ROOT, "python"))
    ev = proj / "attention-verify" / "evidence" / "numerics.json"
    if ev.exists():
        ev.unlink()
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                        "pytest_attnverify", "tests/test_main_attention.py",
                        "--shapes", "attention-verify/config/shapes.json",
                        "--tolerances", "attention-verify/config/tolerances.json"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env, cwd=str(proj))
    doc = json.load(open(str(ev))) if ev.exists() else None
    return r.returncode, r.stdout, doc


def sweep_ops(doc):
    return {c["op"] for c in doc["cases"]} | {k["op"] for k in doc.get("skipped", [])}


def test_a_test_that_skips_other_ops_leaves_them_skipped_in_the_evidence(project):
    code, out, doc = workflow_command(project, "skip")
    assert code == 0, out
    assert doc is not None, out
    # Every case is a gemm case that ran or a case of another op that was skipped (the
    # sweep's drawn cases vary with each export's salt, so the counts come from the file).
    run, skipped, total = (doc["summary"]["cases_run"], len(doc["skipped"]),
                           doc["summary"]["cases_total"])
    assert run >= 8 and skipped >= 255 and run + skipped == total, doc["summary"]
    assert "%d passed, %d skipped" % (run, skipped) in out, out
    assert "no output" not in out, out
    assert doc["verdict"] == "pass" and doc["summary"]["failed"] == 0
    assert {c["op"] for c in doc["cases"]} == {"gemm"}
    assert "gemm" not in {k["op"] for k in doc["skipped"]}
    first = doc["skipped"][0]
    assert first["reason"] == "test_gemm skipped it: %s is not this project's kernel" % first["op"]
    assert "skipped %d (by the tests, not judged" % skipped in out, out
    # The report: the sweep is narrowed by the skips, so 1.sweep_complete is MISSING and
    # no verdict is ACCEPTED on 8 of 263 cases.
    rep = subprocess.run([attnverify_bin(), "report", "--config",
                          str(project / "attention-verify" / "attnverify.toml")],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    data = json.load(open(str(project / "attention-verify" / "reports" / "acceptance.json")))
    assert data["verdict"] != "accepted", rep.stdout
    checks = {c["id"]: c for i in data["items"] for c in i["checks"]}
    assert checks["1.sweep_complete"]["status"] == "MISSING"
    assert "the tests skipped %d cases" % skipped in checks["1.sweep_complete"]["summary"], \
        checks["1.sweep_complete"]
    assert checks["1.base_cases"]["status"] != "PASS", checks["1.base_cases"]


def test_the_marker_selects_cases_by_op_and_records_the_rest_as_skipped(project):
    code, out, doc = workflow_command(project, "marker")
    assert code == 0, out
    run, skipped = doc["summary"]["cases_run"], len(doc["skipped"])
    assert "%d passed in" % run in out and "skipped" not in out.split("attnverify judge")[0], out
    assert skipped >= 255 and run + skipped == doc["summary"]["cases_total"]
    assert all(k["reason"].endswith("test_gemm selects op gemm") for k in doc["skipped"])
    assert sweep_ops(doc) >= {"attention", "mla_decode", "fp8_gemm", "gemm"}


def test_a_failure_shows_attnverifys_reason_not_the_plugins_source(project):
    code, out, doc = workflow_command(project, "wrong")
    assert code == 1, out
    assert "attnverify: gemm_bf16." in out and "worst d at" in out, out
    # __tracebackhide__: the plugin's own frames (check(), judge_one()) are not printed.
    assert "def check(" not in out and "judge_one" not in out and "_message(" not in out, out
    assert doc["verdict"] == "fail" and len(doc["skipped"]) >= 255
