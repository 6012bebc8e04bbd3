"""Shared fixtures of the tunelab Python tests: the CLI binary (to compare bits), the repository root."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _cli() -> str:
    env = os.environ.get("TUNELAB_CLI")
    if env:
        return env
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("release", "debug"):
        p = target / profile / "tunelab"
        if p.exists():
            return str(p)
    # Build it (the same core the wheel was built from; results do not depend on the profile).
    subprocess.run(["cargo", "build", "-q", "-p", "tunelab-cli"], cwd=ROOT, check=True)
    return str(target / "debug" / "tunelab")


@pytest.fixture(scope="session")
def cli() -> str:
    return _cli()


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT
