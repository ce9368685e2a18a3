"""pytest plugin: the workflow's

    python -m pytest -q tests/test_main_attention.py \\
        --shapes attention-verify/config/shapes.json \\
        --tolerances attention-verify/config/tolerances.json

A test that takes the `av_case` fixture runs once per case of the sweep (ids are
attnverify's case ids). The cases come from `attnverify cases --export` (the bytes
`attnverify numerics` writes), and `av_case.check(outputs)` judges with `attnverify judge`:
attnverify's rules and tolerances, never a Python copy, failing the test with attnverify's
reason, hints and worst elements. At the end of the session the checked outputs are
judged together (invariance checks included) into PACKAGE/evidence/numerics.json, which
`attnverify report` reads like a numerics run. doc/python.md.
"""
import json
import os
import re
import shutil
import tempfile

import pytest

from attnverify_candidate import Case, binary


def pytest_addoption(parser):
    g = parser.getgroup("attnverify", "attnverify sweep cases (av_case fixture)")
    g.addoption("--shapes", default=None, help="attnverify shapes.json: the cases of av_case")
    g.addoption("--tolerances", default=None, help="attnverify tolerances.json: how check() judges")
    g.addoption("--attnverify-config", default=None,
                help="attnverify.toml ([numerics] shapes, tolerances, evidence)")
    g.addoption("--attnverify-filter", default=None,
                help="only cases whose id matches this regular expression (attnverify's --filter)")
    g.addoption("--attnverify-evidence", default=None,
                help="numerics.json to write at the end (default PACKAGE/evidence/numerics.json)")
    g.addoption("--attnverify-reference", default=None, choices=["oracle", "fast"],
                help="the reference implementation (default: the toml's, else oracle)")


class AttnverifyFailure(AssertionError):
    pass


def _source_args(config):
    args = []
    for flag, opt in (("--config", "attnverify_config"), ("--shapes", "shapes"),
                      ("--tolerances", "tolerances")):
        value = config.getoption(opt)
        if value:
            args += [flag, os.path.abspath(value)]
    return args


class Session:
    """The session's export folder, the judged cases and the evidence path."""

    def __init__(self, config):
        self.config = config
        self.source = _source_args(config)
        self.filter = config.getoption("attnverify_filter")
        self.reference = config.getoption("attnverify_reference")
        self.dir = None
        self.cases = None
        self.ops = {}
        self.checked = []
        # case id -> why no test checked it: a pytest skip (its reason), a marker's op
        # selection, a deselection. Handed to attnverify judge as skipped, never judged.
        self.skipped = {}

    def export(self):
        if self.cases is not None:
            return self.cases
        self.dir = tempfile.mkdtemp(prefix="attnverify-pytest-")
        args = ["cases"] + self.source + ["--export", self.dir]
        if self.filter:
            args += ["--filter", self.filter]
        try:
            r = binary.run(args)
        except binary.BinaryNotFound as e:
            raise pytest.UsageError(str(e)) from e
        if r.returncode != 0:
            raise pytest.UsageError("attnverify %s failed (exit %d):\n%s" % (
                " ".join(args), r.returncode, (r.stderr or r.stdout).strip()))
        with open(os.path.join(self.dir, "cases.json")) as f:
            entries = json.load(f)["cases"]
        self.cases = [e["id"] for e in entries]
        for e in entries:
            self.ops[e["id"]] = e.get("op") or _case_op(self.dir, e["id"])
        return self.cases

    def skip(self, case_id, reason):
        self.skipped.setdefault(case_id, reason)

    def judge_args(self):
        args = ["judge"] + self.source + ["--outputs", self.dir]
        if self.reference:
            args += ["--reference", self.reference]
        return args

    def judge_one(self, case_id):
        __tracebackhide__ = True
        n = len(self.checked)
        out = os.path.join(self.dir, "judged", str(n))
        args = self.judge_args() + ["--case", case_id, "--work", os.path.join(out, "work"),
                                    "--evidence", os.path.join(out, "numerics.json")]
        r = binary.run(args)
        path = os.path.join(out, "numerics.json")
        if r.returncode not in (0, 1) or not os.path.exists(path):
            raise AttnverifyFailure("attnverify %s failed (exit %d):\n%s" % (
                " ".join(args), r.returncode, (r.stderr + r.stdout).strip()))
        with open(path) as f:
            doc = json.load(f)
        shutil.rmtree(os.path.join(out, "work"), ignore_errors=True)
        return doc, r

    def finish(self):
        """Every checked output judged together into the package's numerics.json."""
        if not self.checked:
            return None
        args = self.judge_args()
        if self.filter:
            args += ["--filter", self.filter]
        checked = set(self.checked)
        skipped = [{"id": i, "reason": r} for i, r in self.skipped.items() if i not in checked]
        if skipped:
            path = os.path.join(self.dir, "skipped.json")
            with open(path, "w") as f:
                json.dump({"skipped": skipped}, f, indent=1)
            args += ["--skipped", path]
        evidence = self.config.getoption("attnverify_evidence")
        if evidence:
            args += ["--evidence", os.path.abspath(evidence)]
        r = binary.run(args)
        shutil.rmtree(self.dir, ignore_errors=True)
        return r


def _case_op(folder, case_id):
    try:
        with open(os.path.join(folder, "cases", case_id, "case.json")) as f:
            return json.load(f).get("op", "")
    except (OSError, ValueError):
        return ""


def _marker_ops(node):
    """The ops `@pytest.mark.attnverify(op="attention")` (or ops=[...]) selects; None: all."""
    ops = None
    for m in node.iter_markers("attnverify"):
        for key in ("op", "ops"):
            value = m.kwargs.get(key)
            if value is None:
                continue
            value = [value] if isinstance(value, str) else list(value)
            ops = set(value) if ops is None else ops & set(value)
        for value in m.args:
            value = [value] if isinstance(value, str) else list(value)
            ops = set(value) if ops is None else ops & set(value)
    return ops


def _message(case, invariance):
    lines = ["attnverify: %s: %s" % (case["id"], case.get("reason") or case.get("verdict"))]
    loc = case.get("localisation") or {}
    for h in loc.get("hints", [])[:4]:
        lines.append("  hint: " + h)
    for w in loc.get("worst", [])[:3]:
        lines.append("  worst %s at %s: candidate %s, reference %s (error %.3g x tolerance)" % (
            w.get("output"), w.get("coords"), w.get("candidate"), w.get("reference"),
            float(w.get("error_over_tolerance", 0) or 0)))
    for out in case.get("outputs", []):
        if not out.get("passed", True):
            cmp = out.get("compare", {})
            lines.append("  %s: %s (%s)" % (out.get("name"), "; ".join(cmp.get("failures", [])[:2]),
                                            out.get("tolerance")))
    for inv in invariance:
        if inv.get("verdict") == "fail" and case["id"] in inv.get("cases", []):
            lines.append("  invariance %s: %s" % (inv.get("check"), inv.get("detail")))
    return "\n".join(lines)


class AvCase(Case):
    """One attnverify case: Case's inputs(), knob(), op_param(), plus torch() and check()."""

    def __init__(self, session, case_id, node=None):
        super().__init__(os.path.join(session.dir, "cases", case_id))
        self._session = session
        self._node = node

    def _record(self, key, value):
        # Shows in pytest's --junitxml as <property name="attnverify_..." value="..."/>.
        if self._node is not None:
            self._node.user_properties.append((key, value))

    def torch(self, device="cuda"):
        """The inputs as torch tensors on `device`, in case.json's dtypes (strided where padded)."""
        from attnverify_candidate.adapters._common import CaseTensors
        x = CaseTensors(self, device)
        return {name: x.get(name) for name in self.spec["inputs"]}

    def check(self, outputs, metadata=None):
        """Judges `outputs` ({name: array or tensor}) with attnverify judge; fails the test
        with attnverify's reason unless the case passes."""
        __tracebackhide__ = True  # a failure shows the test's line and attnverify's reason
        arrays = {}
        for name, value in outputs.items():
            if hasattr(value, "detach"):
                from attnverify_candidate.adapters._common import to_numpy
                value = to_numpy(value)
            arrays[name] = value
        self.save(arrays, metadata=metadata)
        doc, _ = self._session.judge_one(self.id)
        self._session.checked.append(self.id)
        mine = [c for c in doc.get("cases", []) if c.get("id") == self.id]
        if not mine:
            raise AttnverifyFailure("attnverify judge did not judge %s" % self.id)
        judged = mine[0]
        self._record("attnverify_case", self.id)
        self._record("attnverify_verdict", judged.get("verdict", ""))
        if judged.get("reason"):
            self._record("attnverify_reason", judged["reason"])
        if judged.get("sha256", {}).get("inputs") != self.spec.get("inputs_sha256"):
            raise AttnverifyFailure("%s: the judged inputs (sha256 %s) are not the exported ones (%s)"
                                    % (self.id, judged.get("sha256", {}).get("inputs"),
                                       self.spec.get("inputs_sha256")))
        if judged.get("verdict") != "pass":
            raise AttnverifyFailure(_message(judged, doc.get("invariance", [])))
        return judged


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "attnverify(op=None, ops=None): av_case runs only the cases of these ops; the "
        "others are recorded as skipped in the evidence")
    if config.getoption("shapes") or config.getoption("attnverify_config"):
        config._attnverify = Session(config)


def _session(config):
    s = getattr(config, "_attnverify", None)
    if s is None:
        raise pytest.UsageError("av_case needs --shapes and --tolerances (or --attnverify-config)")
    return s


def pytest_generate_tests(metafunc):
    if "av_case" not in metafunc.fixturenames:
        return
    s = _session(metafunc.config)
    ids = s.export()
    ops = _marker_ops(metafunc.definition)
    if ops is not None:
        unknown = ops - set(s.ops.values())
        if unknown:
            raise pytest.UsageError("%s: attnverify marker names op %s, which no case of the sweep "
                                    "has (ops: %s)" % (metafunc.definition.nodeid,
                                                       ", ".join(sorted(unknown)),
                                                       ", ".join(sorted(set(s.ops.values())))))
        mine = [i for i in ids if s.ops.get(i) in ops]
        for i in ids:
            if s.ops.get(i) not in ops:
                s.skip(i, "op %s: %s selects op %s" % (s.ops.get(i), metafunc.definition.name,
                                                       ", ".join(sorted(ops))))
        ids = mine
    metafunc.parametrize("av_case", ids, ids=ids, indirect=True)


def _case_id(item):
    callspec = getattr(item, "callspec", None)
    if callspec is None or "av_case" not in callspec.params:
        return None
    return callspec.params["av_case"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    s = getattr(item.config, "_attnverify", None)
    case_id = _case_id(item)
    if s is None or case_id is None or not report.skipped:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if reason.startswith("Skipped: "):
        reason = reason[len("Skipped: "):]
    s.skip(case_id, "%s skipped it: %s" % (item.name.split("[")[0], reason))


def pytest_deselected(items):
    for item in items:
        s = getattr(item.config, "_attnverify", None)
        case_id = _case_id(item)
        if s is not None and case_id is not None:
            s.skip(case_id, "deselected (-k, -m or --deselect)")


@pytest.fixture
def av_case(request):
    return AvCase(_session(request.config), request.param, request.node)


def pytest_sessionfinish(session, exitstatus):
    s = getattr(session.config, "_attnverify", None)
    if s is None:
        return
    r = s.finish()
    if r is None:
        return
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    text = (r.stdout + r.stderr).strip()
    if tr is not None:
        tr.write_line("")
        tr.write_line("attnverify judge (exit %d):" % r.returncode)
        lines = text.splitlines()
        if len(lines) > 24:  # the sweep table and the skipped line first, then the tail
            head = [l for l in lines[:-12] if l.startswith(("sweep ", "total ", "skipped "))]
            lines = head + ["..."] + lines[-12:]
        for line in lines:
            tr.write_line("  " + line)
    if r.returncode not in (0, 1) and session.exitstatus == 0:
        session.exitstatus = 3
