#!/usr/bin/env bash
# Shows that a new experiment kind is its folder plus two registry lines (docs/layout.md, "Adding an experiment
# kind"): copies the workspace's Rust sources (Cargo.toml, Cargo.lock, src/, benches/, data/, the CLI, wasm and Python
# binding crates) into a temporary directory, adds the toy kind of scripts/dev/toy-kind/ there as
# src/experiments/toy/ and its two lines in the `registry!` call of src/experiments/mod.rs, checks that nothing else
# changed, and builds the copy's core, CLI and Python binding (`cargo build --workspace --exclude tunelab-wasm --lib
# --bins`; the tests are left out: tests/common/small_configs.rs wants a small config of every kind). Prints
# "toy-kind: 1 passed, 0 failed" (or 0/1).
# The build shares this workspace's build directory (CARGO_TARGET_DIR, default target/) and its profile, so after
# `cargo test` and the wheel (scripts/dev/test.sh) every dependency is up to date and only the copy's three crates
# compile (at opt-level 0: the check is that they compile, not how fast they run). The Python crate is built in the
# wheel's environment (scripts/dev/pyo3-env.sh, PYO3_CONFIG_FILE when maturin wrote one), where PyO3 is up to date.
# The wasm binding is not built here: natively it would compile wasm-bindgen and its macros for this check alone;
# it reads the kinds through the same registry (`Kind::parse`, `Kind::ALL`).
# The copy's CLI binary replaces target/debug/tunelab when cargo links it; the script puts the workspace's back.
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
. scripts/dev/pyo3-env.sh
use_wheel_pyo3_config
CLI="$CARGO_TARGET_DIR/debug/tunelab"
if [ -f "$CLI" ]; then cp -p "$CLI" "$TMP/tunelab.workspace"; fi
opt0=()
for p in tunelab tunelab-cli tunelab-python; do opt0+=(--config "profile.dev.package.$p.opt-level=0"); done
ok=0
(cd "$TMP" && cargo build --offline --workspace --exclude tunelab-wasm --lib --bins \
  --features tunelab-python/extension-module "${opt0[@]}") >"$TMP/build.log" 2>&1 || ok=$?
grep -Ev '^\s*(Compiling|Finished)' "$TMP/build.log" || true
# What the build compiled: only the copy's own crates when the dependencies are up to date.
echo "toy-kind: compiled $(grep -Eo '^\s*Compiling [^ ]+' "$TMP/build.log" | awk '{print $2}' | sort | tr '\n' ' ')"
if [ -f "$TMP/tunelab.workspace" ]; then mv -f "$TMP/tunelab.workspace" "$CLI"; fi
if [ "$ok" = 0 ]; then
  echo "toy-kind: 1 passed, 0 failed"
else
  echo "toy-kind: 0 passed, 1 failed (a new kind needs more than its folder and two registry lines)"; exit 1
fi
