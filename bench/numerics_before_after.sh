#!/bin/bash
# The default sweep timed with two attnverify binaries (OLD, NEW), alternating, N rounds
# after a warm-up of each: `attnverify init` package, [candidate] = the C++ cpu_candidate
# (CAND) over {cases}, [numerics] as init writes it (reference fast, jobs 1, bwrap).
# Prints wall and CPU (user+sys of the process tree) medians and minima per binary.
#   OLD=/tmp/before/attnverify NEW=build/attnverify CAND=build/cpu_candidate N=21 bash bench/numerics_before_after.sh
set -u
: "${OLD:?set OLD to the attnverify binary to compare with (a build of the base revision)}"
NEW=${NEW:-build/attnverify} CAND=${CAND:-build/cpu_candidate} N=${N:-5}
NEW=$(realpath "$NEW") CAND=$(realpath "$CAND") OLD=$(realpath "$OLD")
T=$(mktemp -d)
for b in old new; do
  bin=$OLD; [ $b = new ] && bin=$NEW
  $bin init $T/$b >/dev/null
  printf '[candidate]\ncommand = ["%s", "{cases}"]\n' "$CAND" >> $T/$b/attention-verify/attnverify.toml
  $bin numerics --config $T/$b/attention-verify/attnverify.toml >/dev/null 2>&1  # warm-up
done
for r in $(seq $N); do
  for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    /usr/bin/time -f "$b %e %U %S %x" $bin numerics --config $T/$b/attention-verify/attnverify.toml 2>&1 >/dev/null | tail -1
  done
done > $T/times
python3 - $T/times <<'PY'
import sys, statistics as st
rows=[l.split() for l in open(sys.argv[1]) if l.strip()]
for b in ("old","new"):
    r=[x for x in rows if x[0]==b]
    w=sorted(float(x[1]) for x in r); c=sorted(float(x[2])+float(x[3]) for x in r)
    print("%s: %d runs (exit %s), wall median %.2f s (min %.2f), cpu median %.2f s (min %.2f)" % (b, len(r), ",".join(sorted(set(x[4] for x in r))), st.median(w), w[0], st.median(c), c[0]))
PY
rm -rf $T
