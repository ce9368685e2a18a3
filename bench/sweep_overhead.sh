#!/usr/bin/env bash
# The sweep's own share of the case time (numerics.json summary.time_ms.overhead_fraction:
# input generation, file I/O, checks and compare over the whole, the candidate's and the
# reference's time included) on the default MLA decode sweep. Builds nothing: run
# scripts/build first. Figures go in the issue notes, never into tests.
#
#   bench/sweep_overhead.sh [cpu|numpy] [oracle|fast] [RUNS] [SHAPES_JSON]
#
# cpu = build/cpu_candidate, numpy = examples/candidates/numpy_candidate.py, each over
# work/cases.json in one run. SHAPES_JSON replaces config/shapes.json (e.g. one large case);
# the filter stays mla_decode. Prints one `time:` line per run and the peak RSS (VmHWM,
# polled) of the last run's attnverify process alone, its candidate not counted.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
candidate="${1:-cpu}"
reference="${2:-oracle}"
runs="${3:-3}"
shapes="${4:-}"
bin="$root/build/attnverify"
work="$(mktemp -d /tmp/attnverify-overhead.XXXXXX)"
trap 'rm -rf "$work"' EXIT

"$bin" init "$work" >/dev/null
pkg="$work/attention-verify"
case "$candidate" in
  cpu) command="[\"$root/build/cpu_candidate\", \"{cases}\"]" ;;
  numpy) command="[\"python3\", \"$root/examples/candidates/numpy_candidate.py\", \"{cases}\"]" ;;
  *) echo "candidate must be cpu or numpy" >&2; exit 2 ;;
esac
if [ -n "$shapes" ]; then cp "$shapes" "$pkg/config/shapes.json"; fi
sed -i "s/^reference = \"oracle\"/reference = \"$reference\"/" "$pkg/attnverify.toml"
printf '\n[candidate]\ncommand = %s\ntimeout_s = 1200\n' "$command" >>"$pkg/attnverify.toml"

for _ in $(seq "$runs"); do
  "$bin" numerics --config "$pkg/attnverify.toml" --filter mla_decode >"$work/out" &
  pid=$!
  hwm=0
  while kill -0 "$pid" 2>/dev/null; do
    now=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    if [ -n "$now" ]; then hwm=$now; fi
    sleep 0.01
  done
  wait "$pid" || true
  grep '^time:' "$work/out"
done
echo "peak RSS of attnverify (last run): $hwm KiB"
