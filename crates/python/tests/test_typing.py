"""The wheel's type stubs (tunelab/__init__.pyi, _core.pyi, py.typed): ``mypy --strict`` accepts a user's
script and refuses a wrong one."""

import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    # One cache for the module's mypy runs, made fresh for it: the second run reads the installed package's and
    # numpy's / pandas' analysis from the first (about 15 s of CPU each time otherwise).
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(tmp_path, cache, source):
    pytest.importorskip("mypy")
    f = tmp_path / "user.py"
    shutil.copy(source, f) if isinstance(source, pathlib.Path) else f.write_text(source)
    # run from tmp_path: the installed package (site-packages) is checked, not a source tree
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), str(f)], cwd=tmp_path,
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def test_the_package_ships_its_stubs():
    import tunelab

    pkg = pathlib.Path(tunelab.__file__).parent
    assert (pkg / "py.typed").exists() and (pkg / "__init__.pyi").exists() and (pkg / "_core.pyi").exists()


def test_mypy_strict_accepts_a_typed_user_script(tmp_path, mypy_cache):
    code, out = mypy(tmp_path, mypy_cache, HERE / "examples" / "typed_user.py")
    assert code == 0, out


def test_mypy_strict_refuses_wrong_calls(tmp_path, mypy_cache):
    code, out = mypy(tmp_path, mypy_cache, (
        "import numpy as np\n"
        "import tunelab\n"
        "x = np.ones((3, 2))\n"
        "v: float = tunelab.ksd(x, x, scale='wide')\n"
        "s: str = tunelab.Mamba(3, 1.0).report()['best']\n"
        "n: int = tunelab.run('tune/gaussian')\n"
        "f: int = tunelab.plot.scores({}, tuner='MAMBA-KSD')\n"
        "t = tunelab.to_frame({}, 'arm')\n"
        "u = tunelab.run('tune/gaussian').frame('round')\n"
    ))
    assert code == 1
    assert "user.py:4: error" in out and "user.py:6: error" in out
    assert "user.py:7: error" in out and '"Figure"' in out
    # table names are Literals: a misspelt one is a type error
    assert "user.py:8: error" in out and "user.py:9: error" in out and "'arms'" in out
