#!/usr/bin/env bash
# The CPU each browser test file uses (docs/testing.md, "The test command"): runs every tests/e2e/*.test.mjs alone,
# one after another, each in a cgroup of its own (cgroup v1 cpuacct, as on this project's machine; needs root), so
# that its Chromium, Firefox or WebKit processes count too, and prints "WALL wall CPU cpu FILE" per file, then the
# totals. Build the page first (scripts/dev/build-wasm.sh). Measure on an idle machine: a timing, not a test.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=/sys/fs/cgroup/cpuacct
[ -w "$ROOT" ] || { echo "browser-cpu: needs a writable cgroup v1 cpuacct hierarchy at $ROOT" >&2; exit 1; }
LOGS=$(mktemp -d)
total_wall=0; total_cpu=0
for f in tests/e2e/*.test.mjs; do
  n=$(basename "$f" .test.mjs); cg="$ROOT/tunelab-bcpu-$n"
  mkdir -p "$cg"
  t0=$(date +%s.%N)
  sh -c "echo \$\$ > $cg/cgroup.procs; exec node --test --test-concurrency=1 $f" >"$LOGS/$n.log" 2>&1 || echo "browser-cpu: $f failed (log: $LOGS/$n.log)" >&2
  t1=$(date +%s.%N)
  sleep 1 # processes the test left behind end
  line=$(awk -v a="$t0" -v b="$t1" -v u="$(cat "$cg/cpuacct.usage")" -v n="$n" 'BEGIN { printf "%7.1f wall %7.1f cpu %s", b - a, u / 1e9, n }')
  echo "$line"
  total_wall=$(awk -v t="$total_wall" -v l="$line" 'BEGIN { split(l, x, " "); print t + x[1] }')
  total_cpu=$(awk -v t="$total_cpu" -v l="$line" 'BEGIN { split(l, x, " "); print t + x[3] }')
  rmdir "$cg" 2>/dev/null || true
done
echo "total: $total_wall s wall, $total_cpu CPU-seconds"
