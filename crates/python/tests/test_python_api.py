"""The Python package's own interface: exceptions that are ValueError / RuntimeError / OSError,
sample matrices as (n, d) arrays, NaN arms in Mamba.tell, progress=True, data= forms, to_frame, Ctrl-C
raising with the partial report, Mamba checkpoints (state / pickle)."""

import _thread
import json
import math
import pickle
import signal
import sys
import threading

import numpy as np
import pytest

import tunelab
from test_run import long_config, strip_times


# --- 1. exceptions ---------------------------------------------------------------------------------------

def test_errors_subclass_the_builtin_exceptions():
    assert issubclass(tunelab.ConfigError, ValueError) and issubclass(tunelab.DataError, ValueError)
    assert issubclass(tunelab.NumericalError, RuntimeError) and issubclass(tunelab.IoError, OSError)
    for cls in (tunelab.ConfigError, tunelab.DataError, tunelab.NumericalError, tunelab.IoError):
        assert issubclass(cls, tunelab.TunelabError)
    # raised by the core, caught as the built-in class, still with the core's message
    cfg = tunelab.preset("tune", "gaussian")
    cfg["tuner"]["etta"] = 5
    with pytest.raises(ValueError, match=r"tuner\.etta.*did you mean .eta."):
        tunelab.run(cfg)
    with pytest.raises(ValueError, match="samples have 4 rows x 2 columns but scores have 3 rows") as e:
        tunelab.ksd(np.ones((4, 2)), np.ones((3, 2)))
    assert type(e.value) is tunelab.DataError
    with pytest.raises(RuntimeError) as e:
        tunelab.ksd(np.ones((10, 2)), np.ones((10, 2)), scale="median")
    assert type(e.value) is tunelab.NumericalError
    with pytest.raises(OSError) as e:
        tunelab.run("tune/demo", data="/no/such/file.csv")
    assert type(e.value) is tunelab.IoError and "/no/such/file.csv" in str(e.value)


# --- 2. sample matrices ----------------------------------------------------------------------------------

def test_best_samples_are_an_n_by_d_array_and_to_json_is_the_cli_document(cli, tmp_path):
    report = tunelab.run("tune/gaussian")
    best = report["result"]["best"]
    x = best["samples"]
    assert isinstance(x, np.ndarray) and x.dtype == np.float64 and x.ndim == 2
    assert x.shape[1] == best["dim"] == 2 and x.shape[0] > 100
    out = tmp_path / "r.json"
    p = __import__("subprocess").run([cli, "run", "--kind", "tune", "--preset", "gaussian", "--out", str(out)],
                                     capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = json.loads(out.read_text())
    # the old flat row-major list is x.ravel().tolist(); to_json writes the CLI's document
    assert x.ravel().tolist() == want["result"]["best"]["samples"]
    assert strip_times(json.loads(tunelab.to_json(report))) == strip_times(want)


# --- 3. non-finite rows in Mamba.tell ----------------------------------------------------------------------

def gaussian(n, d, spread, seed):
    x = spread * np.random.default_rng(seed).normal(size=(n, d))
    return x, -x


def test_a_nan_row_makes_that_arm_diverged_and_pruned():
    m = tunelab.Mamba(3, budget=3.0, eta=3)
    ask = m.ask()
    data = {a: gaussian(60, 2, 1.0, a) for a in ask.arms}
    x1 = data[1][0].copy()
    x1[51, 0] = np.nan
    g2 = data[2][1].copy()
    g2[7, 1] = -np.inf
    assert m.score(x1, data[1][1]) == (math.inf, 60)
    pruned = m.tell({0: data[0], 1: (x1, data[1][1]), 2: (data[2][0], g2)})
    assert pruned == [1, 2]
    r = m.report()
    assert r["best"]["arm"] == 0 and r["best"]["score"] == r["arms"][0]["scores"][-1] and r["finished"]
    assert r["arms"][1]["scores"] == [None] and r["arms"][1]["pruned_round"] == 0
    assert r["arms"][0]["scores"][0] is not None and math.isfinite(r["arms"][0]["scores"][0])
    assert "NaN or an infinity" in tunelab.Mamba.tell.__doc__


# --- 4. progress=True ------------------------------------------------------------------------------------

def test_progress_true_shows_a_tqdm_bar(capsys):
    pytest.importorskip("tqdm")
    report = tunelab.run("tune/gaussian", progress=True)
    err = capsys.readouterr().err
    assert report["status"] == "complete"
    assert tunelab.check("tune/gaussian")["unit"] in err and "100%" in err


def test_progress_true_without_tqdm_prints_plain_lines(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    tunelab.run("tune/gaussian", progress=True)
    lines = capsys.readouterr().err.strip().splitlines()
    assert all(line.startswith("tunelab: ") for line in lines)
    total = tunelab.run("tune/gaussian")["compute"]["total"]
    unit = tunelab.check("tune/gaussian")["unit"]
    assert f"{total:g}/{total:g} {unit} (100%)" in lines[-2]
    assert lines[-1].startswith("tunelab: complete after")
    # a callable still works, anything else is refused
    events = []
    tunelab.run("tune/gaussian", progress=events.append)
    assert events[-1]["type"] == "finished"
    with pytest.raises(tunelab.ConfigError, match="progress must be"):
        tunelab.run("tune/gaussian", progress="yes")


# the small comparison of tests/common/small_configs.rs, with an exact reference of 2,000 draws
SMALL_COMPARE = {"kind": "compare", "data": {"source": "simulate", "n": 300, "d": 2, "seed": 1, "test_fraction": 0.2},
                 "model": {"kind": "logistic"}, "sampler": {"kind": "sgld"},
                 "arms": {"log10_step": {"from": -4, "to": -2, "by": 1}, "batch": [0.1]},
                 "budget": {"grad_evals": 20000}, "metric": {"kind": "ksd", "max_samples": 100}, "thin": 2, "seed": 9,
                 "reference_samples": 2000}


def test_a_comparison_reports_its_reference_phase(capsys, monkeypatch):
    # the events: the reference's own progress (MALA iterations, 0 to its total) before the first tuner's
    events = []
    tunelab.run(SMALL_COMPARE, progress=events.append, threads=1)
    details = [e["detail"] for e in events if e["type"] == "progress"]
    ref = [d for d in details if d["type"] == "reference"]
    total = 1000 + 2000 * 5  # warm-up n/2, then n draws kept every 5th
    assert ref[0] == {"type": "reference", "done": 0, "total": total, "unit": "MALA iterations"}
    assert ref[-1]["done"] == total and details.index(ref[-1]) == len(ref) - 1
    # each tuner's fresh evaluation chain: its own progress, from 0 to the plan's total, named
    ev = [d for d in details if d["type"] == "evaluation"]
    assert sorted({d["index"] for d in ev}) == [0, 1, 2, 3, 4]
    for i in range(5):
        mine = [d for d in ev if d["index"] == i]
        assert mine[0]["done"] == 0 and mine[-1]["done"] == mine[-1]["total"] > 0, mine
        assert mine[0]["unit"] == "gradient evaluations" and len({d["tuner"] for d in mine}) == 1
    # progress=True without tqdm: the reference phase's lines in its unit, then the tuners'
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    tunelab.run(SMALL_COMPARE, progress=True, threads=1)
    lines = capsys.readouterr().err.strip().splitlines()
    phase = [ln for ln in lines if ln.startswith("tunelab: reference sampler ")]
    assert phase[0].startswith(f"tunelab: reference sampler 0/{total} MALA iterations (0%)")
    assert phase[-1].startswith(f"tunelab: reference sampler {total}/{total} MALA iterations (100%)")
    assert lines.index(phase[-1]) == len(phase) - 1
    assert any(ln.startswith("tunelab: 5/5 tuners (100%)") for ln in lines[len(phase):]), lines


# --- 5. data= --------------------------------------------------------------------------------------------

def upload_config():
    """A small logistic-regression tune whose data source is an upload (as on the page)."""
    cfg = tunelab.preset("tune", "demo")
    cfg["data"] = {"source": "upload", "label": "y", "test_fraction": 0.2}
    cfg["arms"]["log10_step"] = {"from": -4.0, "to": -3.0, "by": 0.5}
    cfg["arms"]["batch"] = [0.1]
    cfg["budget"] = {"grad_evals": 2e4}
    return cfg


def table(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    y = (x @ np.array([1.0, -0.5, 0.25]) + 0.3 * rng.normal(size=n) > 0).astype(float)
    return x, y


def test_data_as_a_frame_an_array_text_or_a_path_give_the_same_run(tmp_path):
    pd = pytest.importorskip("pandas")
    x, y = table()
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "y": y})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    cfg = upload_config()
    results = [strip_times(tunelab.run(cfg, data=d, threads=1)["result"]["arms"])
               for d in (frame, (x, y), np.column_stack([x, y]), path.read_text(), str(path), path)]
    assert all(r == results[0] for r in results[1:])
    assert tunelab.run(cfg, data=frame)["status"] == "complete"


def test_data_the_config_does_not_use_is_an_error_naming_it(tmp_path):
    x, y = table()
    with pytest.raises(tunelab.ConfigError, match=r"data= is not used: this tune config reads no data set"):
        tunelab.run("tune/gaussian", data=(x, y))
    path = tmp_path / "d.csv"
    path.write_text("x0,y\n1,0\n2,1\n")
    with pytest.raises(tunelab.ConfigError, match=r"data=.*d\.csv.* is not used: the step-size experiment runs on simulated data only"):
        tunelab.run("step-size/sgld-step", data=path)
    with pytest.raises(tunelab.ConfigError, match="asks for an uploaded data set: pass data="):
        tunelab.run(upload_config())
    with pytest.raises(tunelab.DataError, match="label column last"):
        tunelab.run(upload_config(), data=np.ones(5))


# --- 6. to_frame -----------------------------------------------------------------------------------------

def test_to_frame_tables_of_a_tune_report():
    pytest.importorskip("pandas")
    report = tunelab.run("tune/gaussian")
    r = report["result"]
    arms = tunelab.to_frame(report)
    assert len(arms) == len(r["arms"]) and {"step", "status", "pruned_round", "score"} <= set(arms.columns)
    assert list(arms["id"]) == [a["id"] for a in r["arms"]]
    rounds = tunelab.to_frame(report, "rounds")
    assert len(rounds) == sum(len(x["arms"]) for x in r["rounds"])
    last = rounds[rounds["round"] == rounds["round"].max()]
    assert set(last["arm"]) == set(r["rounds"][-1]["arms"])
    traces = tunelab.to_frame(r, "traces")
    assert traces[["x0", "x1"]].to_numpy().tolist() == r["best"]["samples"].tolist()
    with pytest.raises(tunelab.ConfigError, match="has the tables arms, rounds, traces; not 'regrets'"):
        tunelab.to_frame(report, "regrets")


def test_to_frame_regrets_of_a_bandit_report_and_mamba_rounds():
    pytest.importorskip("pandas")
    cfg = tunelab.preset("bandit", "beta-reservoir")
    cfg.update(rounds=200, repeats=3, checkpoints=10)
    report = tunelab.run(cfg)
    regrets = tunelab.to_frame(report)
    algs = report["result"]["algorithms"]
    assert len(regrets) == len(algs) * len(report["result"]["rounds"])
    first = regrets[regrets["algorithm"] == algs[0]["name"]]
    assert list(first["simple_regret"]) == algs[0]["simple_regret"]["mean"]
    assert (first["simple_regret_lo"] <= first["simple_regret_hi"]).all()
    m = tunelab.Mamba(4, budget=8.0, eta=2)
    while (ask := m.ask()) is not None:
        m.tell({a: gaussian(30, 2, 1.0 + 0.2 * a, a) for a in ask.arms})
    rounds = tunelab.to_frame(m.report(), "rounds")
    assert list(rounds["round"]) == [0, 0, 0, 0, 1, 1] and rounds["pruned"].sum() == 3


def test_to_frame_without_pandas_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        tunelab.to_frame({"kind": "tune", "result": {}})


# --- 8. Ctrl-C -------------------------------------------------------------------------------------------

@pytest.fixture
def ctrl_c():
    """Python's own Ctrl-C handler (Ray, for one, may have replaced it in this process)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_at_third_progress(seen):
    def progress(event):
        seen.append(event)
        if event["type"] == "progress" and sum(e["type"] == "progress" for e in seen) == 3:
            threading.Timer(0.05, _thread.interrupt_main).start()
    return progress


def test_ctrl_c_stops_run_seeds_at_the_current_run(ctrl_c):
    seen = []
    with pytest.raises(tunelab.Interrupted) as e:
        tunelab.run_seeds(long_config(), [1, 2, 3], progress=interrupt_at_third_progress(seen), threads=1)
    assert [r["status"] for r in e.value.reports] == ["stopped"]
    assert e.value.report is e.value.reports[-1]
    # the later seeds never started
    assert sum(ev["type"] == "started" for ev in seen) == 1


# --- 9. Mamba checkpoints --------------------------------------------------------------------------------

def drive(m, stop_after=None):
    """Runs the ask/tell loop (the chains depend only on arm and round); stops after `stop_after` rounds."""
    told = 0
    while (ask := m.ask()) is not None:
        if stop_after is not None and told == stop_after:
            return m
        m.tell({a: gaussian(int(ask.budget * 10), 3, m.arms[a]["spread"], 10 * a + ask.round) for a in ask.arms})
        told += 1
    return m


ARMS = [{"spread": s} for s in (1.6, 1.3, 1.0, 0.8, 0.5, 0.7, 0.6, 2.0, 1.4)]


def test_a_resumed_mamba_ends_with_the_report_of_an_uninterrupted_one():
    whole = drive(tunelab.Mamba(ARMS, budget=120.0, eta=3)).report()
    assert whole["finished"] and len(whole["rounds"]) == 2
    half = drive(tunelab.Mamba(ARMS, budget=120.0, eta=3), stop_after=1)
    # pickle
    resumed = drive(pickle.loads(pickle.dumps(half))).report()
    assert resumed == whole
    # state() through JSON, with the second round already asked
    half.ask()
    again = tunelab.Mamba.from_state(json.loads(json.dumps(half.state())))
    assert again.ask() == half.ask()
    assert drive(again).report() == whole
    with pytest.raises(tunelab.ConfigError, match="not a Mamba state"):
        tunelab.Mamba.from_state({"told": []})


# --- the docs' notebook example (docs/python.md) ------------------------------------------------------

def test_the_docs_notebook_example(root, monkeypatch):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    path = root / "crates" / "python" / "tests" / "examples" / "notebook_mamba.py"
    code = path.read_text()
    # docs/python.md shows this file's text
    text = (root / "docs" / "python.md").read_text()
    block = text.split("<!-- notebook-example", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert block == code
    assert 15 <= len(code.strip().splitlines()) <= 25
    ns = {}
    with np.errstate(over="ignore", invalid="ignore"):
        exec(compile(code, str(path), "exec"), ns)
    r = ns["m"].report()
    # what the chapter says under the example
    assert r["best_arm"] == {"step": 0.001333521432163324}
    assert round(r["best_score"], 3) == 0.156
    assert [(a["scores"], a["pruned_round"]) for a in r["arms"][7:]] == [([None], 0), ([None], 0)]
    assert ns["df"]["score"].isin([math.inf]).sum() == 2
    # the chart: one line per arm with a finite score (the two +inf arms left out), labelled by step
    ax = ns["fig"].axes[0]
    arm_lines = [ln for ln in ax.get_lines() if ln.get_transform() == ax.transData and ln.get_linestyle() != "None"]
    assert len(arm_lines) == 7
    labels = [ln.get_label() for ln in arm_lines]
    assert labels[0] == "h=0.0001" and "h=0.0013" in labels
    assert "chosen: h=0.0013" in [t.get_text() for t in ax.texts]


def test_a_data_frame_runs_on_any_preset_that_reads_data_and_unscaled_features_warn(tmp_path):
    pd = pytest.importorskip("pandas")
    import warnings

    rng = np.random.default_rng(4)
    x = rng.normal(size=(120, 2))
    y = (x[:, 0] + 0.5 * x[:, 1] + rng.normal(size=120) > 0).astype(float)
    # a config whose data is simulated (not an upload): the frame replaces its data, as the CLI's --data
    cfg = {"kind": "tune", "data": {"source": "simulate", "n": 200, "d": 2, "seed": 1, "test_fraction": 0.2},
           "model": {"kind": "logistic"}, "sampler": {"kind": "sgld"},
           "arms": {"log10_step": {"from": -4, "to": -2, "by": 1}, "batch": [0.3]},
           "tuner": {"kind": "mamba", "eta": 3}, "budget": {"grad_evals": 6000},
           "metric": {"kind": "ksd", "max_samples": 60}, "thin": 2, "seed": 3}
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "label": y})
    r = tunelab.run(cfg, data=frame, label="label", threads=1)
    assert r["status"] == "complete" and "csv" in json.dumps(r["config"]["data"]["source"])
    assert r["config"]["data"]["label"] == "label"
    # the same table from a CSV file gives the same run
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    again = tunelab.run(cfg, data=str(path), label="label", threads=1)
    assert [a["scores"] for a in again["result"]["arms"]] == [a["scores"] for a in r["result"]["arms"]]
    # unscaled features (means around 500) with standardize off: a warning that says the fix
    raw = frame.assign(a=500 + 80 * frame["a"])
    with pytest.warns(UserWarning, match=r"features look unscaled \(feature 'a' has mean 4\d\d.*standardize=True"):
        tunelab.run(cfg, data=raw, label="label", threads=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tunelab.run(cfg, data=raw, label="label", standardize=True, threads=1)
    assert not [w for w in caught if "unscaled" in str(w.message)]
    # a model that reads no data says so, naming the keyword argument
    with pytest.raises(tunelab.ConfigError, match=r"data= is not used: this tune config reads no data set"):
        tunelab.run("tune/gaussian", data=frame, label="label")
