# Sourced by scripts/dev/test-python.sh (before `maturin build`) and by scripts/dev/test.sh (its `cargo test --doc`
# after the wheel, which compiles the Python crate's library too): the environment maturin gives cargo when it
# builds the wheel (PYO3_PYTHON, PYO3_ENVIRONMENT_SIGNATURE, PYTHON_SYS_EXECUTABLE, PYO3_BUILD_EXTENSION_MODULE),
# with the test venv first on PATH. PyO3's build scripts rerun when any of these (PATH and VIRTUAL_ENV included, and
# PYO3_CONFIG_FILE, which maturin points at a file it writes and test.sh sets after it) changes; with the same
# values both builds share one compile of pyo3, pyo3-ffi and numpy in target/debug.
VENV="${TUNELAB_VENV:-$HOME/.cache/tunelab/venv}"
case ":$PATH:" in *":$VENV/bin:"*) ;; *) PATH="$VENV/bin:$PATH" ;; esac
export VIRTUAL_ENV="$VENV" PATH
unset CONDA_PREFIX
if [ -x "$VENV/bin/python" ]; then
  # maturin's signature: "{implementation}-{major}.{minor}-{pointer width}bit"
  PYO3_ENVIRONMENT_SIGNATURE=$("$VENV/bin/python" -c 'import sys, struct; print(f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}-{struct.calcsize(chr(80)) * 8}bit")')
  export PYO3_PYTHON="$VENV/bin/python" PYTHON_SYS_EXECUTABLE="$VENV/bin/python" PYO3_ENVIRONMENT_SIGNATURE PYO3_BUILD_EXTENSION_MODULE=1
fi
# After the wheel's build: point PyO3 at the configuration file maturin wrote, so that a later cargo command on the
# same target directory (the doc tests, the examples, the toy kind) finds the PyO3 crates up to date.
use_wheel_pyo3_config() {
  local cfg; cfg=$(ls "${CARGO_TARGET_DIR:-$PWD/target}"/maturin/pyo3-config-*.txt 2>/dev/null | head -1 || true)
  if [ -n "$cfg" ]; then export PYO3_CONFIG_FILE="$cfg"; fi
}
