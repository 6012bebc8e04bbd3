#!/usr/bin/env bash
# Installs everything tunelab needs on a fresh Debian machine (idempotent).
# Used by `npm start`, `npm test` (via scripts/dev/test.sh) and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/../.."

NIGHTLY=nightly-2026-05-20
WASM_BINDGEN_VERSION=0.2.130
export RUSTUP_AUTO_INSTALL=0

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*" >&2; }

# --- Rust toolchains ---------------------------------------------------------
if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  log "adding wasm32-unknown-unknown to the stable toolchain"
  rustup target add wasm32-unknown-unknown
fi
# clippy and rustfmt: scripts/dev/test.sh lints through clippy-driver and checks the formatting.
for c in clippy rustfmt; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
    log "adding $c to the stable toolchain"; rustup component add "$c"
  fi
done
if ! rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1 \
   || ! rustup component list --toolchain "$NIGHTLY" --installed 2>/dev/null | grep -q '^rust-src'; then
  log "installing $NIGHTLY (rust-src, wasm32) for the threaded build"
  rustup toolchain install "$NIGHTLY" --profile minimal -c rust-src -t wasm32-unknown-unknown
fi

# --- Debian packages: Chromium + ChromeDriver for the browser tests ----------------
need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
# Debian's Firefox ESR: the page's tests in a second engine (puppeteer-core over WebDriver BiDi, no driver binary).
command -v firefox-esr >/dev/null 2>&1 || need_apt+=(firefox-esr)
# WebKit (Safari's engine): WebKitGTK's MiniBrowser and WebKitWebDriver, under a virtual display (no headless mode).
command -v WebKitWebDriver >/dev/null 2>&1 || need_apt+=(webkit2gtk-driver)
command -v Xvfb >/dev/null 2>&1 || need_apt+=(xvfb)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# --- wasm-bindgen-cli (exact version of Cargo.lock) and wasm-pack ---------------
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 3 min)"
  cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi
if ! command -v wasm-pack >/dev/null 2>&1; then
  log "cargo install wasm-pack (about 4 min)"
  cargo install -q --locked wasm-pack
fi

# --- mdBook (the docs book of docs/, built by scripts/dev/docs.sh) ------------------------
# Measured 2026-11-26: 11 min wall (4.5 min CPU) with CARGO_BUILD_JOBS=1 on a shared 2-core machine; --locked resolves.
MDBOOK_VERSION=0.5.4
if ! mdbook --version 2>/dev/null | grep -q "v$MDBOOK_VERSION\$"; then
  log "cargo install mdbook $MDBOOK_VERSION (11 min with one build job on a shared 2-core machine)"
  cargo install -q mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --features search --force
fi

# --- npm packages -----------------------------------------------------------------
if [ -f package.json ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm ci"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
  fi
fi
# --- Python: a venv with maturin, pytest, numpy and Ray for the Python package's tests -------------
# (scripts/dev/test-python.sh; TUNELAB_VENV overrides the place). Installed from the Python registry when missing.
VENV="${TUNELAB_VENV:-$HOME/.cache/tunelab/venv}"
if [ ! -x "$VENV/bin/python" ]; then
  log "python3 -m venv $VENV"
  python3 -m venv "$VENV"
fi
# pandas (to_frame), tqdm (progress=True), mypy (the stubs, checked with --strict) and matplotlib (the
# notebook example of docs/python.md) for the package's tests; jsonschema (the presets against the generated
# schemas); anywidget, jupyterlab, ipykernel and nbclient (the notebook widget and the executed-notebook tests).
if ! "$VENV/bin/python" -c 'import pytest, numpy, ray, ray.tune, pandas, tqdm, mypy, matplotlib, jsonschema, anywidget, jupyterlab, ipykernel, nbclient' >/dev/null 2>&1 || [ ! -x "$VENV/bin/maturin" ]; then
  log "pip install maturin pytest numpy ray[tune] pandas tqdm mypy matplotlib jsonschema anywidget jupyterlab ipykernel nbclient (about 2-3 min)"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.16,<2" pytest numpy "ray[tune]>=2.60,<3" \
    pandas tqdm mypy matplotlib "jsonschema>=4" "anywidget>=0.11,<0.12" "jupyterlab>=4.6,<5" ipykernel "nbclient>=0.11"
fi
log "setup done"
