#!/usr/bin/env bash
# The wheel (scripts/wheel), built and installed as a user would (doc/install.md):
#   - one file, tagged manylinux_2_28_x86_64, and `auditwheel show` agrees;
#   - its binary needs only glibc's libraries, no symbol newer than GLIBC_2.28;
#   - `pip install` into a fresh virtual environment with no system site-packages puts
#     `attnverify` on that environment's PATH (it runs: --version, init) and registers the
#     pytest plugin (entry point pytest11 = pytest_attnverify);
#   - in an environment that also sees Debian's numpy and pytest, not activated, pytest
#     loads the plugin by its entry point and collects the cases through the wheel's binary
#     (found beside the interpreter).
# ATTNVERIFY_WHEEL=FILE tests that wheel instead of building one.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d /tmp/attnverify-wheel-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "wheel_test: FAIL: $*" >&2; exit 1; }

if [ -n "${ATTNVERIFY_WHEEL:-}" ]; then
  whl="$ATTNVERIFY_WHEEL"
  show="$("$root/build-wheel/tools/bin/auditwheel" show "$whl")"
else
  start=$(date +%s)
  "$root/scripts/wheel" "$tmp/dist" > "$tmp/wheel.log" 2>&1 || { cat "$tmp/wheel.log" >&2; fail "scripts/wheel failed"; }
  echo "wheel_test: scripts/wheel took $(( $(date +%s) - start )) s"
  n="$(ls "$tmp"/dist/*.whl | wc -l)"
  [ "$n" = 1 ] || fail "scripts/wheel wrote $n wheels"
  whl="$(ls "$tmp"/dist/*.whl)"
  show="$(cat "$tmp/wheel.log")"
fi
name="$(basename "$whl")"
[[ "$name" =~ ^attnverify-[0-9.]+-py3-none-manylinux_2_28_x86_64\.whl$ ]] || fail "unexpected wheel name $name"
# auditwheel wraps its sentence: compare it with the line breaks made spaces.
tr '\n' ' ' <<<"$show" | tr -s ' ' | grep -q 'consistent with the following platform tag: "manylinux_2_28_x86_64"' ||
  fail "auditwheel show does not give manylinux_2_28_x86_64: $show"
echo "wheel_test: $name, $(du -k "$whl" | cut -f1) KiB"

# What is inside, read with Python's zipfile (no unzip needed).
/usr/bin/python3 - "$whl" <<'PY' || fail "the wheel's contents"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["pytest_attnverify/__init__.py", "attnverify_candidate/__init__.py",
        "attnverify_candidate/adapters/torch_sdpa.py"]
missing = [n for n in need if n not in names]
scripts = [n for n in names if n.endswith(".data/scripts/attnverify")]
libs = [n for n in names if ".libs/" in n]
if missing or len(scripts) != 1 or libs:
    sys.exit("missing %s, scripts %s, vendored libraries %s" % (missing, scripts, libs))
PY

# A fresh environment without the system's site-packages.
/usr/bin/python3 -m venv --without-pip "$tmp/venv" 2>/dev/null || /usr/bin/python3 -m venv "$tmp/venv"
if [ ! -x "$tmp/venv/bin/pip" ]; then
  rm -rf "$tmp/venv" && /usr/bin/python3 -m venv "$tmp/venv"
fi
grep -q 'include-system-site-packages = false' "$tmp/venv/pyvenv.cfg" || fail "the venv sees the system's packages"
# --no-deps: numpy comes from PyPI for a user; the test stays offline.
"$tmp/venv/bin/pip" install -q --disable-pip-version-check --no-index --no-deps "$whl" || fail "pip install"
found="$(env -i PATH="$tmp/venv/bin:/usr/bin:/bin" HOME="$tmp" bash -c 'command -v attnverify')"
[ "$found" = "$tmp/venv/bin/attnverify" ] || fail "attnverify on the venv's PATH is '$found'"
version="$(env -i PATH="$tmp/venv/bin:/usr/bin:/bin" HOME="$tmp" attnverify --version)"
[[ "$version" =~ ^attnverify\ [0-9]+\.[0-9]+\.[0-9]+ ]] || fail "attnverify --version printed '$version'"
mkdir -p "$tmp/proj"
env -i PATH="$tmp/venv/bin:/usr/bin:/bin" HOME="$tmp" attnverify init "$tmp/proj" > "$tmp/init.log" 2>&1 ||
  { cat "$tmp/init.log" >&2; fail "attnverify init"; }
[ -f "$tmp/proj/attention-verify/attnverify.toml" ] || fail "init wrote no attnverify.toml"
echo "wheel_test: $found: $version; init works"

# The binary: glibc's libraries only, nothing newer than GLIBC_2.28 (auditwheel's check,
# made again by hand).
bin="$tmp/venv/bin/attnverify"
needed="$(objdump -p "$bin" | awk '/NEEDED/ {print $2}' | sort | tr '\n' ' ')"
for lib in $needed; do
  case "$lib" in libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|librt.so.1|ld-linux-x86-64.so.2) ;;
    *) fail "the binary needs $lib (needs: $needed)" ;;
  esac
done
newest="$(objdump -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1)"
[ "$(printf '%s\n' "$newest" GLIBC_2.28 | sort -V | tail -1)" = GLIBC_2.28 ] || fail "the binary needs $newest"
echo "wheel_test: the binary needs $needed(newest symbol $newest)"

# The plugin's registration, read from the installed metadata (no numpy or pytest there).
"$tmp/venv/bin/python" - <<'PY' || fail "the pytest11 entry point"
import importlib.metadata as m, importlib.util, sys
eps = [e for e in m.distribution("attnverify").entry_points if e.group == "pytest11"]
if [(e.name, e.value) for e in eps] != [("attnverify", "pytest_attnverify")]:
    sys.exit("entry points %r" % eps)
for mod in ("pytest_attnverify", "attnverify_candidate"):  # found, not imported
    if importlib.util.find_spec(mod) is None:
        sys.exit(mod + " is not installed")
files = {str(f) for f in m.distribution("attnverify").files}
for f in ("attnverify_candidate/adapters/torch_sdpa.py", "pytest_attnverify/__init__.py"):
    if f not in files:
        sys.exit(f + " is not in the installed files")
PY

# With Debian's numpy and pytest visible: pytest loads the plugin by its entry point and
# collects the cases, which runs `attnverify cases --export` through the venv's binary.
if /usr/bin/python3 -c "import numpy, pytest" 2>/dev/null; then
  /usr/bin/python3 -m venv --system-site-packages "$tmp/venv2"
  "$tmp/venv2/bin/pip" install -q --disable-pip-version-check --no-index --no-deps "$whl" || fail "pip install (venv2)"
  mkdir -p "$tmp/p2/tests"
  cat > "$tmp/p2/tests/test_cases.py" <<'PY'
def test_case(av_case):
    assert av_case.op
PY
  # The venv is not activated (its bin/ is not on PATH): the plugin finds the binary beside
  # the interpreter.
  (cd "$tmp/p2" && env -u ATTNVERIFY_BIN PATH="/usr/bin:/bin" HOME="$tmp" \
     "$tmp/venv2/bin/python" -m pytest -q -p no:cacheprovider --rootdir=. --collect-only tests/test_cases.py \
     --shapes "$root/testdata/python/shapes.json" --tolerances "$root/testdata/python/tolerances.json") \
     > "$tmp/collect.log" 2>&1 || { cat "$tmp/collect.log" >&2; fail "pytest with the plugin from the wheel"; }
  collected="$(grep -c 'test_cases.py::test_case\[' "$tmp/collect.log" || true)"
  [ "$collected" -gt 0 ] || { cat "$tmp/collect.log" >&2; fail "the plugin collected no case"; }
  echo "wheel_test: pytest loaded the plugin from the wheel and collected $collected cases"
else
  echo "wheel_test: /usr/bin/python3 lacks numpy or pytest: the plugin's pytest run is not checked"
fi
echo "wheel_test: passed"
