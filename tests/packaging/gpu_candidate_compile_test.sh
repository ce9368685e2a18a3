#!/usr/bin/env bash
# examples/splitk_decode's GPU candidate (src/flash_mla/gpu_candidate.cu) compiles with
# nvcc for sm_90a with the kernel as committed (BEFORE) and with the refactor and its fix
# applied (what scripts/gpu-check builds), while the refactor alone is refused by ptxas
# for its shared memory, which shows the kernel source is compiled in. Without a GPU the
# program's usage and error paths still run. Skipped (77) where nvcc is missing.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
nvcc="$(command -v nvcc || true)"
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "gpu_candidate_compile_test: skipped: no nvcc (the CUDA toolkit)"
  exit 77
fi
tmp="$(mktemp -d /tmp/attnverify-gpu-candidate.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "gpu_candidate_compile_test: FAIL: $*" >&2; exit 1; }
ex="$root/examples/splitk_decode"
build() {  # build TREE OUT
  (cd "$1" && "$nvcc" -std=c++17 -O3 -arch=sm_90a -Isrc -o "$2" src/flash_mla/gpu_candidate.cu) > "$2.log" 2>&1
}
git_() { git -c user.name=t -c user.email=t@example.invalid -c core.hooksPath=/dev/null "$@"; }

cp -r "$ex/repo" "$tmp/before"
build "$tmp/before" "$tmp/before.bin" || { cat "$tmp/before.bin.log" >&2; fail "BEFORE does not compile"; }

cp -r "$ex/repo" "$tmp/refactor"
(cd "$tmp/refactor" && git_ init -q && git_ apply "$ex/refactor.patch") || fail "refactor.patch does not apply"
if build "$tmp/refactor" "$tmp/refactor.bin"; then
  fail "the refactor compiled: the candidate does not build the kernel source"
fi
grep -q "uses too much shared data" "$tmp/refactor.bin.log" || { cat "$tmp/refactor.bin.log" >&2; fail "no ptxas shared-memory error"; }
(cd "$tmp/refactor" && git_ apply "$ex/fix.patch") || fail "fix.patch does not apply"
build "$tmp/refactor" "$tmp/fixed.bin" || { cat "$tmp/fixed.bin.log" >&2; fail "refactor + fix does not compile"; }

out="$("$tmp/before.bin" 2>&1)"; rc=$?
[ $rc = 2 ] && grep -q "usage: .*CASES_JSON" <<<"$out" || fail "no arguments: exit $rc, $out"
out="$("$tmp/before.bin" --bench 0 2>&1)"; rc=$?
[ $rc = 2 ] && grep -q "all positive" <<<"$out" || fail "--bench 0: exit $rc, $out"
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo '{"cases": []}' > "$tmp/cases.json"
  out="$("$tmp/before.bin" "$tmp/cases.json" 2>&1)"; rc=$?
  [ $rc = 1 ] && grep -q "gpu_candidate: no CUDA device" <<<"$out" || fail "no GPU: exit $rc, $out"
  out="$("$tmp/before.bin" "$tmp/absent.json" 2>&1)"; rc=$?
  [ $rc = 1 ] && grep -q "absent.json: cannot open" <<<"$out" || fail "missing cases.json: exit $rc, $out"
fi
echo "gpu_candidate_compile_test: passed (BEFORE and refactor+fix compile for sm_90a; the refactor alone is refused by ptxas)"
