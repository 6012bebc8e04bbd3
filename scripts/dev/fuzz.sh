#!/usr/bin/env bash
# Builds the cargo-fuzz targets of fuzz/ (csv, config, ksd, ratings, mnist, svmlight, lesson, report; their bodies
# are fuzz/src/lib.rs, which `npm test` replays without libFuzzer) and runs each for SECONDS (default 30) with
# libFuzzer, starting from the seed corpora written by tests/core/robustness/fuzz_seeds.rs. Prints one line per target,
#   fuzz target <name>: passed (<runs> runs in <s> s)   or   fuzz target <name>: failed (<reason>)
# and exits non-zero when a target failed. A crash leaves its input in fuzz/artifacts/<target>/; reproduce
# it with `cargo +nightly-2026-05-20 fuzz run <target> fuzz/artifacts/<target>/crash-...`.
# Long runs: `bash scripts/dev/fuzz.sh 3600` (one hour per target; the corpus in fuzz/corpus/ is kept).
#
# Environment: FUZZ_TARGETS="csv ksd" runs a subset; FUZZ_TARGET_DIR is the cargo target directory of the
# fuzz build (default: fuzz/target; the seed test uses CARGO_TARGET_DIR as usual).
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET=${1:-30}
NIGHTLY=nightly-2026-05-20
TARGETS=${FUZZ_TARGETS:-csv config ksd ratings mnist svmlight lesson report}
export RUSTUP_AUTO_INSTALL=0

fail_all() { for t in $TARGETS; do echo "fuzz target $t: failed ($1)"; done; exit 1; }

# cargo-fuzz is installed here, not by scripts/dev/setup.sh: the test command replays the targets' bodies on stable
# Rust (tests/core/robustness/fuzz_replay.rs) and needs neither it nor the instrumented build.
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "[fuzz] cargo install cargo-fuzz (about 2 min)" >&2
  cargo install -q --locked cargo-fuzz || cargo install -q cargo-fuzz || fail_all "could not install cargo-fuzz"
fi

# Seed corpora (presets of every kind, CSV files, KSD reference inputs), written by a native test.
# FUZZ_SEEDS_WRITTEN=1: they are there already (scripts/dev/test.sh writes them right after the native tests).
SEEDS=fuzz/seeds
if [ "${FUZZ_SEEDS_WRITTEN:-}" != 1 ]; then
  rm -rf "$SEEDS"
  TUNELAB_FUZZ_SEEDS="$PWD/$SEEDS" cargo test -q --test core robustness::fuzz_seeds >/dev/null 2>&1 \
    || fail_all "could not write the seed corpora (cargo test --test core robustness::fuzz_seeds)"
fi
[ -d "$SEEDS" ] || fail_all "no seed corpora in $SEEDS"

fuzz_cargo() { CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/fuzz/target}" cargo +"$NIGHTLY" fuzz "$@"; }

echo "[fuzz] building the targets with $NIGHTLY (cargo fuzz build)" >&2
if ! fuzz_cargo build -O --debug-assertions >&2; then
  fail_all "build failed"
fi

status=0
for t in $TARGETS; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="fuzz/artifacts/$t/last-run.log"
  # -rss_limit_mb: the limits of src/limits.rs keep every accepted input far below it; -timeout: one input
  # taking longer than 20 s is a hang.
  fuzz_cargo run -O --debug-assertions "$t" "fuzz/corpus/$t" "$SEEDS/$t" -- \
    -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  if [ $rc -eq 0 ]; then
    echo "fuzz target $t: passed (${runs:-?} runs in ${SECONDS_PER_TARGET} s)"
  else
    status=1
    reason=$(grep -Eo 'ERROR: libFuzzer: [a-z-]+|panicked at [^ ]+' "$log" | head -1)
    art=$(grep -Eo 'fuzz/artifacts/[^ ]+' "$log" | head -1)
    echo "fuzz target $t: failed (${reason:-exit $rc}; input ${art:-?}; log $log)"
    tail -n 30 "$log" >&2
  fi
done
exit $status
