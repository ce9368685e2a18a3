#!/usr/bin/env bash
# Regenerates testdata/ptxas_log/*.log from the kernels in testdata/ptxas/kernels with the
# nvcc on PATH (the committed logs come from nvcc 13.0, V13.0.88). Object files go to a
# temporary folder. interleaved.log, truncated.log and mixed_build.log are assembled from
# the real logs by the last lines of this script (see testdata/ptxas_log/README.md).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../ptxas_log"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here/kernels"
run() {  # run NAME nvcc-args...: stderr (and stdout) of one nvcc call into NAME.log
  local name=$1; shift
  nvcc -c -o "$tmp/$name.o" "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $?"
}
run multi_two_archs -Xptxas -v -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a multi.cu
run threads_four_archs --threads 2 -Xptxas -v -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100a,code=sm_100a -gencode arch=compute_120,code=sm_120 multi.cu
run spill_sm80 -Xptxas -v -arch=sm_80 -maxrregcount=32 spill.cu
run spill_warnings_sm90a -Xptxas -v,-warn-spills,-warn-lmem-usage -arch=sm_90a -maxrregcount=24 spill.cu
run smem_over_sm80 -Xptxas -v -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a smem_over_sm80.cu
run smem_over_sm90a -Xptxas -v -arch=sm_90a smem_over_sm90.cu
run dyn_smem_attr_sm90a -Xptxas -v -arch=sm_90a dyn_smem_attr.cu
run device_call -Xptxas -v -gencode arch=compute_80,code=sm_80 '-gencode=arch=compute_90a,code=[sm_90a,compute_90a]' device_call.cu
run compile_error -Xptxas -v -arch=sm_90a compile_error.cu
# Two real logs interleaved line by line, as two parallel compiles writing to one terminal.
paste -d '\n' "$out/spill_sm80.log" "$out/multi_two_archs.log" | sed '/^$/d' > "$out/interleaved.log"
# A log cut off in the middle of a block (a build killed, a CI log limit).
head -c 700 "$out/multi_two_archs.log" > "$out/truncated.log"
