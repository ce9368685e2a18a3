#!/usr/bin/env bash
# scripts/gpu-check where there is no GPU to check: it says so and exits 77, whether
# nvidia-smi is missing, fails (a machine without the driver loaded), or finds a GPU on a
# host without nvcc; a wrong call is a usage error (2). These run on any host: the GPU
# path itself needs a real GPU (doc/install.md, "The GPU check").
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d /tmp/attnverify-gpu-check-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
failed=0
expect() {  # expect NAME CODE PATTERN -- command...
  local name="$1" code="$2" pattern="$3"
  shift 4
  local out rc
  out="$("$@" 2>&1)"
  rc=$?
  if [ "$rc" != "$code" ] || ! grep -qE "$pattern" <<<"$out"; then
    echo "gpu_check_test: FAIL $name: exit $rc (want $code), output: $out" >&2
    failed=1
  else
    echo "gpu_check_test: ok   $name: exit $rc: $(head -1 <<<"$out")"
  fi
}

expect "no nvidia-smi" 77 "no NVIDIA GPU here: .* is not on PATH" -- \
  env ATTNVERIFY_NVIDIA_SMI="$tmp/absent/nvidia-smi" "$root/scripts/gpu-check"

printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' > "$tmp/smi-no-driver"
chmod +x "$tmp/smi-no-driver"
expect "driver not loaded" 77 "no NVIDIA GPU here: .*--query-gpu failed: NVIDIA-SMI has failed" -- \
  env ATTNVERIFY_NVIDIA_SMI="$tmp/smi-no-driver" "$root/scripts/gpu-check"

printf '#!/bin/sh\nexit 0\n' > "$tmp/smi-empty"
chmod +x "$tmp/smi-empty"
expect "no GPU listed" 77 "no NVIDIA GPU here: .* lists none" -- \
  env ATTNVERIFY_NVIDIA_SMI="$tmp/smi-empty" "$root/scripts/gpu-check"

# A GPU but no CUDA toolkit.
printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 9.0"\n' > "$tmp/smi-h100"
chmod +x "$tmp/smi-h100"
expect "no nvcc" 77 "found NVIDIA H100 80GB HBM3 \(sm_90a\) but no nvcc" -- \
  env ATTNVERIFY_NVCC="$tmp/absent/nvcc" ATTNVERIFY_NVIDIA_SMI="$tmp/smi-h100" "$root/scripts/gpu-check"
# A GPU and nvcc but neither a wheel nor ATTNVERIFY_BIN: a usage error naming both.
printf '#!/bin/sh\nexit 0\n' > "$tmp/nvcc" && chmod +x "$tmp/nvcc"
expect "no attnverify given" 2 "give the wheel .* or ATTNVERIFY_BIN" -- \
  env -u ATTNVERIFY_BIN -u ATTNVERIFY_WHEEL ATTNVERIFY_NVCC="$tmp/nvcc" \
  ATTNVERIFY_NVIDIA_SMI="$tmp/smi-h100" ATTNVERIFY_GPU_CHECK_DIR="$tmp/work" "$root/scripts/gpu-check"
expect "two arguments" 2 "usage: scripts/gpu-check" -- "$root/scripts/gpu-check" a b
[ $failed = 0 ] && echo "gpu_check_test: passed"
exit $failed
