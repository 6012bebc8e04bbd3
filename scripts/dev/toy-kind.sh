#!/usr/bin/env bash
# Shows that a new experiment kind is its folder plus two registry lines (docs/layout.md, "Adding an experiment
# kind"): copies the workspace's Rust sources (Cargo.toml, Cargo.lock, src/, benches/, data/, the CLI, wasm and Python
# binding crates) into a temporary directory, adds the toy kind of scripts/dev/toy-kind/ there as
# src/experiments/toy/ and its two lines in the `registry!` call of src/experiments/mod.rs, checks that nothing else
# changed, and runs `cargo check --workspace --lib --bins` on the copy (the core and every binding; the tests are
# left out: tests/common/small_configs.rs wants a small config of every kind). Prints "toy-kind: 1 passed, 0 failed" (or 0/1).
# CARGO_TARGET_DIR (default: this workspace's target/) is shared, so only the workspace's own crates are checked
# again when the dependencies were checked before (clippy in scripts/dev/test.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
git ls-files -co --exclude-standard -- Cargo.toml Cargo.lock rustfmt.toml src benches data crates/cli crates/wasm \
  crates/python/Cargo.toml crates/python/src | tar -c -T - | tar -x -C "$TMP"
mkdir "$TMP/src/experiments/toy"
cp scripts/dev/toy-kind/mod.rs scripts/dev/toy-kind/experiment.rs "$TMP/src/experiments/toy/"
# The two registry lines: the module, and the kind in the registry! call.
MOD="$TMP/src/experiments/mod.rs"
sed -i 's/^pub mod tvo;$/pub mod toy;\npub mod tvo;/' "$MOD"
sed -i 's/^    Tvo => tvo::TvoExperiment,$/    Tvo => tvo::TvoExperiment,\n    Toy => toy::ToyExperiment,/' "$MOD"
changed=$(diff -r -q src "$TMP/src" | sort || true)
want="Files src/experiments/mod.rs and $TMP/src/experiments/mod.rs differ
Only in $TMP/src/experiments: toy"
if [ "$changed" != "$want" ] || [ "$(diff src/experiments/mod.rs "$MOD" | grep -c '^>')" != 2 ]; then
  echo "toy-kind: the copy differs from the workspace in more than the toy folder and two registry lines:"
  echo "$changed"; diff src/experiments/mod.rs "$MOD" || true
  echo "toy-kind: 0 passed, 1 failed"; exit 1
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
if (cd "$TMP" && cargo check --offline -q --workspace --lib --bins); then
  echo "toy-kind: 1 passed, 0 failed"
else
  echo "toy-kind: 0 passed, 1 failed (a new kind needs more than its folder and two registry lines)"; exit 1
fi
