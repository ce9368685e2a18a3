#!/usr/bin/env bash
# The full grids (config/shapes.full.json) on this machine: the sweep's own time (input
# generation, reference, compare, file I/O: everything but the candidate) and peak RSS.
# It runs shard 0 of K: the shards are planned by estimated reference cost
# (doc/sharding.md), so one shard is a representative 1/K of the grid's work, and the
# whole grid's own time is extrapolated by the shard's share of the estimated work (about
# 1/K; more when one large group fills the shard). With `all` it runs every shard in
# turn, deleting each one's case folders before the next (the whole grid's case files
# would take about 80 GB at once), merges the shards' evidence with `attnverify merge`,
# and reports the whole grid as measured. K=1 runs the whole grid in one go.
# Builds nothing: run scripts/build first. Figures go in notes and docs, never into tests.
#
#   bench/full_grid.sh [K] [fast|oracle] [JOBS] [0|all]      default: 64 fast 2 0
#
# The candidate is build/fast_candidate (bench/fast_candidate.cc: attnverify's own fast
# reference in float32; cpu_candidate's scalar loops would take hours), or
# $ATTNVERIFY_CANDIDATE; its time is reported apart and not counted in the sweep's own.
# $SHAPES replaces config/shapes.full.json (a smaller grid to try the script on).
# FAST_TILES=0 writes `fast_tiles = false` (the fast reference off the AMX tile kernels:
# the before of a before / after on an AMX machine).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
k="${1:-64}"
reference="${2:-fast}"
jobs="${3:-2}"
bin="$(realpath "${ATTNVERIFY_BIN:-$root/build/attnverify}")"
work="$(mktemp -d /tmp/attnverify-fullgrid.XXXXXX)"
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$work"' EXIT; else echo "work folder kept: $work"; fi

"$bin" init "$work" >/dev/null
pkg="$work/attention-verify"
cp "${SHAPES:-$root/config/shapes.full.json}" "$pkg/config/shapes.json"
sed -i "s/^reference = \"[a-z]*\"/reference = \"$reference\"/" "$pkg/attnverify.toml"
grep -q "^reference = \"$reference\"" "$pkg/attnverify.toml" ||
  sed -i "s/^\[numerics\]/[numerics]\nreference = \"$reference\"/" "$pkg/attnverify.toml"
if [ "${FAST_TILES:-1}" = 0 ]; then
  sed -i "s/^\[numerics\]/[numerics]\nfast_tiles = false/" "$pkg/attnverify.toml"
fi
# The candidate runs under /usr/bin/time too, so its peak RSS is reported apart from
# attnverify's (time -f %M of the sweep is the largest of the process and its children).
printf '\n[candidate]\ncommand = ["/usr/bin/time", "-a", "-f", "%%M", "-o", "%s", "%s", "{cases}"]\ntimeout_s = 36000\n' \
  "$work/candidate-rss" "$(realpath "${ATTNVERIFY_CANDIDATE:-$root/build/fast_candidate}")" >>"$pkg/attnverify.toml"

"$bin" cases --config "$pkg/attnverify.toml" --shard-plan "$k" >"$work/plan"
sed -n '1,2p;$p' "$work/plan"
# Shard 0's share of the estimated work (a shard holding one large group can be more than 1/K).
share="$(awk 'NR == 2 {s = $4} $1 == "total" {t = $4} END {print (t > 0 ? s / t : 1)}' "$work/plan")"
shards=(0)
if [ "${4:-0}" = all ]; then shards=($(seq 0 $((k - 1)))); share=1; fi
: >"$work/walls"
for i in "${shards[@]}"; do
  shard=()
  if [ "$k" != 1 ]; then shard=(--shard "$i/$k"); fi
  set +e
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" numerics --config "$pkg/attnverify.toml" \
    "${shard[@]}" --jobs "$jobs" >"$work/out" 2>"$work/err" &
  timer=$!
  # The sweep's own peak (VmHWM of the attnverify process, not its candidate's), polled.
  own=0
  while kill -0 "$timer" 2>/dev/null; do
    pid="$(pgrep -P "$timer" -x attnverify | head -1)"
    v="$( [ -n "$pid" ] && awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)"
    if [ -n "$v" ] && [ "$v" -gt "$own" ]; then own="$v"; fi
    sleep 0.2
  done
  wait "$timer"
  status=$?
  echo "$own" >>"$work/own-rss"
  set -e
  if [ "$status" -gt 1 ]; then tail -20 "$work/err" >&2; exit "$status"; fi
  tail -1 "$work/time" >>"$work/walls"
  if [ "${#shards[@]}" -gt 1 ]; then
    echo "shard $i/$k: $(grep '^time:' "$work/out" || true) wall $(tail -1 "$work/time" | cut -d' ' -f1) s, the sweep's own peak $((own / 1024)) MiB"
    rm -rf "$pkg/work/cases"
  fi
done
if [ "${#shards[@]}" -gt 1 ]; then
  # Exit 1 is a merged verdict of fail (a case failed): the figures still stand.
  set +e
  "$bin" merge "$pkg"/evidence/numerics.json.shard*of"$k" --out "$pkg/evidence/numerics.json" >/dev/null
  status=$?
  set -e
  if [ "$status" -gt 1 ]; then exit "$status"; fi
  evidence="$pkg/evidence/numerics.json"
else
  grep "^time:" "$work/out" || true
  evidence="$(ls "$pkg"/evidence/numerics.json* | head -1)"
fi
wall="$(awk '{w += $1} END {print w}' "$work/walls")"
rss_kb="$(awk '$2 > m {m = $2} END {print m}' "$work/walls")"
cand_rss_kb="$(sort -n "$work/candidate-rss" 2>/dev/null | tail -1)"
own_rss_kb="$(sort -n "$work/own-rss" | tail -1)"
python3 - "$evidence" "$k" "$wall" "$rss_kb" "$reference" "$jobs" "$share" "${cand_rss_kb:-0}" "${#shards[@]}" "$own_rss_kb" <<'PY'
import collections, json, sys
ev, k, wall, rss_kb, reference, jobs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
cand_rss_kb, ran, own_rss_kb = int(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10])
share = float(sys.argv[7]) if k > 1 else 1.0
d = json.load(open(ev))
t = d["summary"]["time_ms"]
own = (t["total"] - t["candidate"]) / 1000.0  # summed over cases (jobs run at once)
cases = d["summary"]["cases_run"]
what = f"shard 0/{k}" if ran == 1 and k > 1 else f"the whole grid ({ran} shard(s) of {k}, one after another)"
print(f"{what}: {cases} cases, {d['summary']['failed']} failed, wall {wall:.1f} s, "
      f"peak RSS {rss_kb/1024:.0f} MiB (the sweep or its candidate; the sweep alone {own_rss_kb/1024:.0f} MiB, "
      f"polled every 0.2 s; the candidate alone {cand_rss_kb/1024:.0f} MiB)")
refereed = collections.Counter(c.get("referee_reason", "") for c in d["cases"] if c.get("refereed_by"))
ref_ms = sum(c["durations_ms"]["reference"] for c in d["cases"] if c.get("refereed_by"))
print(f"  refereed by the oracle: {sum(refereed.values())} cases {dict(refereed)}, "
      f"their reference time (fast + oracle) {ref_ms/1000:.1f} s")
by_op = collections.defaultdict(lambda: [0, 0.0, 0.0])
for c in d["cases"]:
    row = by_op[c["op"]]
    row[0] += 1
    row[1] += c["durations_ms"]["reference"] / 1000
    row[2] += c["durations_ms"]["generate"] / 1000
for op, (n, r, g) in sorted(by_op.items()):
    print(f"  {op}: {n} cases, reference {r:.1f} s, generate {g:.1f} s")
print(f"  case time summed: total {t['total']/1000:.1f} s, candidate {t['candidate']/1000:.1f} s, "
      f"reference {t['reference']/1000:.1f} s, generate {t['generate']/1000:.1f} s, compare {t['compare']/1000:.1f} s")
print(f"  attnverify's own case time {own:.1f} s (reference {reference}, --jobs {jobs})")
for c in [c for c in d["cases"] if c["verdict"] != "pass"][:3]:
    print(f"  FAIL {c['id']}: {c.get('reason', '')[:300]}")
if share < 1:
    x = 1.0 / share
    print(f"whole grid, extrapolated by the shard's share of the estimated work ({share:.4f}, x{x:.1f}): "
          f"own case time {own*x:.0f} s, wall {wall*x:.0f} s ({wall*x/60:.1f} min) with --jobs {jobs}")
PY
