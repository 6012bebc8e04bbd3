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
    # cargo brings the debug CLI up to date with the sources (a no-op when it is): an existing binary, release or
    # debug, may be older than the core the wheel was built from, and the tests compare bits with it.
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "-q", "-p", "tunelab-cli"], cwd=ROOT, check=True)
    return str(target / "debug" / "tunelab")


@pytest.fixture(scope="session")
def cli() -> str:
    return _cli()


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT
