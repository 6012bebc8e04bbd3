"""tunelab.ksd / tunelab.fssd: the same bits as the CLI on the same CSV, errors with the core's message, the
GIL released while computing, no copy of C-contiguous float64 input."""

import json
import subprocess
import threading
import time

import numpy as np
import pytest

import tunelab


def write_csv(path, a):
    # 17 significant digits: the CSV parses back to the same doubles.
    with open(path, "w") as f:
        f.write(",".join(f"x{k}" for k in range(a.shape[1])) + "\n")
        for row in a:
            f.write(",".join(format(v, ".17g") for v in row) + "\n")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(42)
    x = rng.normal(size=(400, 3)) * np.array([0.05, 1.0, 3.0]) + 0.2
    g = -(x - 0.1) / np.array([0.05, 1.0, 3.0]) ** 2 + 0.3 * rng.normal(size=x.shape)
    v = rng.normal(size=(4, 3))
    d = tmp_path_factory.mktemp("stein")
    for name, a in (("x", x), ("g", g), ("v", v)):
        write_csv(d / f"{name}.csv", a)
    return x, g, v, d


def run_cli(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("scale", ["fixed", "median", "median-precond"])
@pytest.mark.parametrize("estimator", ["v", "u", "linear"])
def test_ksd_equals_cli_bits(cli, data, scale, estimator):
    x, g, _, d = data
    code, out, err = run_cli(cli, "ksd", "--samples", str(d / "x.csv"), "--scores", str(d / "g.csv"),
                             "--c", "0.7", "--beta", "-0.3", "--scale", scale, "--estimator", estimator, "--json")
    assert code == 0, err
    want = json.loads(out)
    got = tunelab.ksd(x, g, c=0.7, beta=-0.3, scale=scale, estimator=estimator, full=True)
    assert got["ksd"] == want["ksd"] and got["ksd_sq"] == want["ksd_sq"]
    assert (got["n"], got["d"]) == (400, 3)
    if scale != "fixed":
        assert got["c"] == want["c"]


def test_ksd_defaults_are_the_cli_defaults(cli, data):
    x, g, _, d = data
    code, out, _ = run_cli(cli, "ksd", "--samples", str(d / "x.csv"), "--scores", str(d / "g.csv"))
    assert code == 0 and tunelab.ksd(x, g) == float(out)


@pytest.mark.parametrize("kernel", [("--gauss-sigma2", "0.8"), ("--imq-c", "1.3", "--imq-beta", "-0.4")])
def test_fssd_equals_cli_bits(cli, data, kernel):
    x, g, v, d = data
    code, out, err = run_cli(cli, "fssd", "--samples", str(d / "x.csv"), "--scores", str(d / "g.csv"),
                             "--locations", str(d / "v.csv"), *kernel, "--json")
    assert code == 0, err
    want = json.loads(out)
    kw = {"gauss_sigma2": 0.8} if kernel[0] == "--gauss-sigma2" else {"imq_c": 1.3, "imq_beta": -0.4}
    got = tunelab.fssd(x, g, v, full=True, **kw)
    assert (got["fssd_sq"], got["fssd_sq_u"], got["j"]) == (want["fssd_sq"], want["fssd_sq_u"], 4)


def test_config_errors_carry_the_cli_message(cli, data):
    x, g, _, d = data
    code, _, err = run_cli(cli, "ksd", "--samples", str(d / "x.csv"), "--scores", str(d / "g.csv"), "--beta", "0.5")
    assert code == 1
    with pytest.raises(tunelab.ConfigError) as e:
        tunelab.ksd(x, g, beta=0.5)
    assert err.strip() == f"error: {e.value}"
    assert isinstance(e.value, tunelab.TunelabError)
    with pytest.raises(tunelab.ConfigError, match="unknown scale 'wide'"):
        tunelab.ksd(x, g, scale="wide")
    with pytest.raises(tunelab.ConfigError, match="give either gauss_sigma2 or both imq_c and imq_beta"):
        tunelab.fssd(x, g, x[:2])


def test_data_errors(data):
    x, g, v, _ = data
    with pytest.raises(tunelab.DataError, match="samples have 400 rows x 3 columns but scores have 10 rows"):
        tunelab.ksd(x, g[:10])
    with pytest.raises(tunelab.DataError, match="locations have 2 columns but the samples have 3"):
        tunelab.fssd(x, g, v[:, :2], gauss_sigma2=1.0)
    with pytest.raises(tunelab.NumericalError):
        # every sample equal: the median heuristic has no length
        tunelab.ksd(np.ones((10, 2)), np.ones((10, 2)), scale="median")


def test_input_is_not_copied_and_any_layout_works(data):
    x, g, _, _ = data
    assert np.shares_memory(tunelab._matrix(x, "x"), x)
    xf, gf = np.asfortranarray(x), np.asfortranarray(g)
    assert not np.shares_memory(tunelab._matrix(xf, "x"), xf)
    assert tunelab.ksd(xf, gf) == tunelab.ksd(x, g)
    assert tunelab.ksd(x.astype(np.float32), g.astype(np.float32)) == tunelab.ksd(
        x.astype(np.float32).astype(np.float64), g.astype(np.float32).astype(np.float64))
    assert tunelab.ksd(x[:, 0], g[:, 0]) == tunelab.ksd(x[:, :1], g[:, :1])


def test_gil_is_released_while_ksd_runs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 10))
    g = -x
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.perf_counter())

    t = threading.Thread(target=count)
    t.start()
    try:
        time.sleep(0.01)
        t0 = time.perf_counter()
        tunelab.ksd(x, g)
        t1 = time.perf_counter()
    finally:
        stop.set()
        t.join()
    # The other thread ran Python code during the middle half of the call: impossible if the GIL were held.
    lo, hi = t0 + 0.25 * (t1 - t0), t0 + 0.75 * (t1 - t0)
    assert any(lo <= s <= hi for s in ticks), f"no tick in the middle of a {t1 - t0:.3f} s call"
