#!/usr/bin/env bash
# What two threads could gain on this machine at best, beside what they gain:
# ROUNDS interleaved rounds of `analyze FILE --threads 1` alone (A), two such
# processes at once (B: until both end) and `analyze FILE --threads 2` (C),
# reports to /dev/null. Two copies of the whole job share the cores, caches
# and memory as two halves of it would, so 2A/B is the speed-up a perfect
# split into two threads would get here (the machine's ceiling, 2.0 on an
# idle machine with nothing shared) and A/C the one `--threads 2` gets.
#
#   scripts/perf/parallel-ceiling.sh BIN ROUNDS FILE [ANALYZE ARGS...]
set -u
[ $# -ge 3 ] || { echo "usage: $0 BIN ROUNDS FILE [ANALYZE ARGS...]" >&2; exit 2; }
BIN=$1; R=$2; F=$3; shift 3
now() { date +%s.%N; }
rows=()
for r in $(seq 1 "$R"); do
  t0=$(now); "$BIN" analyze "$F" "$@" --threads 1 -o /dev/null -q || exit 1; t1=$(now)
  "$BIN" analyze "$F" "$@" --threads 1 -o /dev/null -q & p1=$!
  "$BIN" analyze "$F" "$@" --threads 1 -o /dev/null -q & p2=$!
  wait "$p1" "$p2"; t2=$(now)
  "$BIN" analyze "$F" "$@" --threads 2 -o /dev/null -q || exit 1; t3=$(now)
  rows+=("$t0 $t1 $t2 $t3")
done
printf '%s\n' "${rows[@]}" | python3 -c '
import sys, statistics as st
stamps = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
rows = [(t[1] - t[0], t[2] - t[1], t[3] - t[2]) for t in stamps]
a, b, c = ([r[i] for r in rows] for i in range(3))
for name, v in (("one thread alone (A)", a), ("two one-thread copies at once (B)", b), ("--threads 2 (C)", c)):
    print(f"{name:36s} min {min(v):6.3f} s  median {st.median(v):6.3f} s")
# Two copies cannot do more than twice the work of one: above 2.0 the lone run was slowed (noise).
ceil = [min(2.0, 2 * x / y) for x, y in zip(a, b)]
got = [x / z for x, z in zip(a, c)]
print(f"ceiling 2A/B (per round): min {min(ceil):.2f}x median {st.median(ceil):.2f}x max {max(ceil):.2f}x")
print(f"--threads 2, A/C (per round): min {min(got):.2f}x median {st.median(got):.2f}x max {max(got):.2f}x")
print(f"share of the ceiling reached (medians): {st.median(got) / st.median(ceil):.0%}")
'
