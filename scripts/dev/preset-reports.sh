#!/usr/bin/env bash
# Writes the report of every preset (or of the presets listed in a file) with a given tunelab binary, for a
# before / after comparison of a refactoring (scripts/dev/compare-reports.py compares two such folders).
#
#   scripts/dev/preset-reports.sh BIN OUTDIR [LIST] [SECONDS]
#
# BIN: a tunelab binary; OUTDIR: where <kind>--<preset>.json go. LIST: a file of "kind preset" lines to run
# (default: every preset `BIN presets` prints). SECONDS (default 20): a preset still running after that is
# stopped and left out; the presets that finished are written to OUTDIR/presets.txt (use it as the LIST of the
# second run), the ones left out (too long, or failed: e.g. MNIST not downloaded) to OUTDIR/skipped.txt.
# Every run uses one thread and its preset's own seed (reports do not depend on the thread count).
set -u
bin=$1; out=$2; list=${3:-}; limit=${4:-20}
mkdir -p "$out"
if [ -z "$list" ]; then
  list=$(mktemp)
  "$bin" presets | while read -r kind rest; do
    for p in $(echo "$rest" | tr ',' ' '); do echo "$kind $p"; done
  done > "$list"
fi
: > "$out/presets.txt"; : > "$out/skipped.txt"
while read -r kind preset; do
  [ -z "$kind" ] && continue
  f="$out/$kind--$preset.json"
  start=$(date +%s.%N)
  if timeout --signal=KILL "$limit" "$bin" run --kind "$kind" --preset "$preset" --threads 1 --out "$f" >/dev/null 2>"$out/$kind--$preset.err"; then
    echo "$kind $preset" >> "$out/presets.txt"
    rm -f "$out/$kind--$preset.err"
    printf '%-12s %-28s %6.1f s\n' "$kind" "$preset" "$(echo "$(date +%s.%N) - $start" | bc)"
  else
    rc=$?
    rm -f "$f"
    reason=$([ $rc -eq 137 ] && echo "over ${limit} s" || echo "exit $rc: $(tail -1 "$out/$kind--$preset.err")")
    echo "$kind $preset ($reason)" >> "$out/skipped.txt"
    printf '%-12s %-28s skipped (%s)\n' "$kind" "$preset" "$reason"
  fi
done < "$list"
