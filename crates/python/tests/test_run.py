"""tunelab.run over the one experiment contract: presets, progress events, the CLI's result, errors,
KeyboardInterrupt stopping a run (and raised with the stopped report)."""

import _thread
import importlib.util
import json
import signal
import subprocess
import threading

import numpy as np
import pytest

import tunelab


def strip_times(v):
    """A report without its wall-clock fields (not reproducible), sample matrices as the CLI's flat lists."""
    if isinstance(v, np.ndarray):
        return v.ravel().tolist()
    if isinstance(v, dict):
        return {k: strip_times(x) for k, x in v.items() if "seconds" not in k and k != "threads"}
    if isinstance(v, list):
        return [strip_times(x) for x in v]
    return v


def test_presets_cover_every_kind():
    p = tunelab.presets()
    assert set(p) == {"tune", "compare", "bandit", "hoag", "lr-schedule", "step-size", "tvo"}
    assert "gaussian" in p["tune"]
    cfg = tunelab.preset("tune", "gaussian")
    assert cfg["kind"] == "tune"
    # a tune run's progress counts its budget's unit
    unit = {"grad_evals": "gradient evaluations", "iterations": "iterations", "seconds": "seconds of sampling"}
    assert tunelab.check(cfg)["unit"] == unit[next(iter(cfg["budget"]))]


def test_kinds_are_the_core_registry():
    k = tunelab.kinds()
    # every kind of the registry (in the registry's order; presets() lists them sorted)
    assert sorted(k) == sorted(tunelab.presets())
    for name, info in k.items():
        assert info["presets"] == tunelab.presets()[name] and info["label"] and info["unit"]
    assert k["compare"]["panel"] == "tune" and k["hoag"]["panel"] == "hoag"
    assert k["tune"]["unit"] == "gradient evaluations"


def test_every_registry_kind_has_its_python_tables_and_chart():
    """Python's per-kind tables and charts live in one place (tunelab._kinds.VIEWS), checked against the core's
    registry: a kind added to the core without its view fails here."""
    import ast
    import pathlib

    from tunelab import _kinds

    assert _kinds.missing() == []
    assert set(_kinds.VIEWS) == set(tunelab.kinds()) | {"mamba"}
    names = set()
    for kind, v in _kinds.VIEWS.items():
        assert v.tables and callable(getattr(tunelab.plot, v.chart)), kind
        names |= set(v.tables)
    # The stubs' TableName Literal lists exactly the tables the views make.
    stub = pathlib.Path(_kinds.__file__).with_name("_frames.pyi").read_text()
    literal = next(n.value for n in ast.walk(ast.parse(stub)) if isinstance(n, ast.Assign)
                   and getattr(n.targets[0], "id", "") == "TableName")
    assert {e.value for e in literal.slice.elts} == names
    # A bare result (no envelope) is recognised as its kind by the views' shapes, in order.
    shapes = {"compare": {"entries": []}, "bandit": {"algorithms": []}, "tune": {"arms": [], "rounds": []},
              "step-size": {"gp_ucb": None}, "lr-schedule": {"methods": [], "intervals": []},
              "hoag": {"methods": []}, "tvo": {"runs": [], "summary": []},
              "mamba": {"plan": [], "rounds": [], "arms": []}}
    assert {k: _kinds.kind_of(r, "test")[0] for k, r in shapes.items()} == {k: k for k in shapes}


def test_run_equals_the_cli_run(cli, tmp_path):
    cfg = tunelab.preset("tune", "gaussian")
    events = []
    report = tunelab.run(cfg, progress=events.append)
    assert report["status"] == "complete"
    assert events[0]["type"] == "started" and events[-1]["type"] == "finished"
    progress = [e for e in events if e["type"] == "progress"]
    assert progress and progress[-1]["done"] == progress[-1]["total"]
    assert all(a["done"] <= b["done"] for a, b in zip(progress, progress[1:]))
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg))
    out = tmp_path / "report.json"
    p = subprocess.run([cli, "run", "--config", str(path), "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = json.loads(out.read_text())
    assert strip_times(report) == strip_times(want)
    # the same config as JSON text, a file, and KIND/PRESET
    for form in (json.dumps(cfg), str(path), "tune/gaussian"):
        assert strip_times(tunelab.run(form)["result"]) == strip_times(want["result"])


def test_run_seeds_overrides_the_seed():
    a, b = tunelab.run_seeds("tune/gaussian", [1, 2])
    assert a["config"]["seed"] == 1 and b["config"]["seed"] == 2
    assert strip_times(a["result"]["arms"]) != strip_times(b["result"]["arms"])


def test_config_errors_carry_the_cli_message(cli, tmp_path):
    bad = {"kind": "tune-me"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    p = subprocess.run([cli, "run", "--config", str(path)], capture_output=True, text=True)
    assert p.returncode == 1
    with pytest.raises(tunelab.ConfigError) as e:
        tunelab.run(bad)
    # the CLI names the file after the core's "invalid configuration: "
    cli_message = str(e.value).replace("invalid configuration: ", f"invalid configuration: {path}: ", 1)
    assert p.stderr.strip() == f"error: {cli_message}"
    assert "unknown experiment kind 'tune-me'" in str(e.value)
    with pytest.raises(tunelab.ConfigError, match="unknown"):
        tunelab.preset("tune", "no-such-preset")
    cfg = tunelab.preset("tune", "gaussian")
    cfg["tuner"]["eta"] = 1
    with pytest.raises(tunelab.ConfigError):
        tunelab.run(cfg)


def test_progress_exception_stops_the_run_and_is_raised():
    def boom(event):
        if event["type"] == "progress":
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        tunelab.run("tune/gaussian", progress=boom)


def long_config():
    cfg = tunelab.preset("tune", "gaussian")
    # about 10 s if the interrupt were missed (the test then fails on the status, in bounded time)
    cfg["budget"] = {"iterations": 2e7}
    return cfg


def test_keyboard_interrupt_stops_a_run_and_raises_with_its_report():
    # Python's own Ctrl-C handler (another library, Ray for one, may have replaced it in this process)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        check_interrupt()
    finally:
        signal.signal(signal.SIGINT, previous)


def check_interrupt():
    seen = []

    def progress(event):
        seen.append(event)
        # Ctrl-C as the interpreter sees it, once the run is under way
        if event["type"] == "progress" and len(seen) == 3:
            threading.Timer(0.05, _thread.interrupt_main).start()

    with pytest.raises(KeyboardInterrupt) as e:
        tunelab.run(long_config(), progress=progress, threads=1)
    assert isinstance(e.value, tunelab.Interrupted)
    report = e.value.report
    assert report["status"] == "stopped"
    # what the run reached: every arm with its scores so far, the rounds not reached
    res = report["result"]
    assert res["partial"] is True and report["reached"]
    assert len(res["arms"]) > 0 and all("step" in a and "scores" in a for a in res["arms"])
    assert res["not_reached"]["rounds"] and res["not_reached"]["rounds"][0] == len([r for r in res["rounds"] if r["finished"]])
    assert report["compute"]["done"] < report["compute"]["total"]
    assert seen[-1] == {"type": "finished", "status": "stopped", "seconds": seen[-1]["seconds"]}
    assert isinstance(report, tunelab.Report) and "stopped" in report._repr_html_()
    # the stopped report's tables and chart work as a complete one's
    if importlib.util.find_spec("pandas"):
        arms = report.frame("arms")
        assert len(arms) == len(res["arms"]) and "params_step" in arms.columns
    if importlib.util.find_spec("matplotlib"):
        fig = report.plot()
        assert len(fig.axes) >= 1 and "against compute" in fig.axes[0].get_title()


TWO_SIGINTS = """
import json, os, signal, sys, threading, time
import tunelab
cfg = tunelab.preset("tune", "gaussian")
cfg["budget"] = {"iterations": 2e7}
seen = []
def twice():
    # a signal to the process and its group, as `timeout -s INT` sends it: two SIGINTs 5 ms apart
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.005)
    os.kill(os.getpid(), signal.SIGINT)
def progress(event):
    seen.append(event)
    if event["type"] == "progress" and len(seen) == 3:
        threading.Thread(target=twice).start()
try:
    tunelab.run(cfg, progress=progress, threads=1)
except tunelab.Interrupted as e:
    r = e.report
    time.sleep(0.2)   # the second signal has arrived by now: it must not end this script
    print(json.dumps({"status": r["status"], "arms": len(r["result"]["arms"]), "partial": r["result"]["partial"]}))
"""


def test_two_sigints_5_ms_apart_still_give_the_stopped_report():
    import sys

    p = subprocess.run([sys.executable, "-c", TWO_SIGINTS], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["status"] == "stopped" and out["partial"] is True and out["arms"] > 0


# The work model's constants (src/experiments/sgmcmc/plan.rs, measured by scripts/dev/eta-check.py --fit).
ITER_TIME, FULL_BATCH_TIME, SCORE_TIME = 17.6, 0.52, 0.2


def test_tune_progress_is_proportional_to_the_work_done():
    # A grad-evals budget over 9 arms with eta 3: round 0 runs 9 arms at a small budget, round 1 3 arms at a
    # larger one. Each progress event's `done` must be the work run so far, weighted by its time: the arms'
    # cumulative gradient evaluations (FULL_BATCH_TIME each with the full batch) and ITER_TIME per iteration
    # (logistic regression: a point's gradient is d multiply-adds, no scaling), plus each scored arm's KSD work
    # (m full-data score vectors over the 160 training points and m (m - 1) sample pairs of 4 d / d = 4 gradient
    # evaluations each, times SCORE_TIME; sgmcmc::plan::ScoreWork), so that elapsed x remaining / done estimates
    # the time left; chunk counts would put round 0 at 9/12 of the run.
    cfg = {"kind": "tune", "data": {"source": "simulate", "n": 200, "d": 2, "seed": 1, "test_fraction": 0.2},
           "model": {"kind": "logistic"}, "sampler": {"kind": "sgld"},
           "arms": {"log10_step": {"from": -4, "to": -2, "by": 1}, "batch": [0.1, 0.3, 1.0]},
           "tuner": {"kind": "mamba", "eta": 3}, "budget": {"grad_evals": 60000},
           "metric": {"kind": "ksd", "max_samples": 60}, "thin": 2, "seed": 3}
    assert tunelab.check(cfg)["unit"] == "gradient evaluations"
    events = []
    report = tunelab.run(cfg, progress=events.append, threads=1)
    total = report["compute"]["total"]
    plan = report["result"]["rounds"]
    batch = {a["id"]: a["batch"] for a in report["result"]["arms"]}
    ran = {}   # arm -> its chain's work so far (cumulative over its rounds)
    scores = 0.0
    checked = 0
    for e in events:
        if e["type"] != "progress":
            continue
        d = e["detail"]
        if d.get("type") == "progress":
            for a in d["arms"]:
                grad = FULL_BATCH_TIME if batch[a["arm"]] == 160 else 1.0
                ran[a["arm"]] = grad * a["grad_evals"] + ITER_TIME * a["iters"]
        elif d.get("type") == "arm-scored" and d["samples"] >= 2:
            m = d["samples"]
            scores += SCORE_TIME * (m * 160 + m * (m - 1) * 4)
        else:
            continue
        work = sum(ran.values()) + scores
        # within one data-point batch per arm and chunk of the work actually run
        assert abs(e["done"] - work) <= 0.02 * total, (e["done"], work)
        checked += 1
    assert checked >= 8 * len(plan)
    weight = {a: (FULL_BATCH_TIME if b == 160 else 1.0) + ITER_TIME / b for a, b in batch.items()}
    chains = sum(sum(weight[a] for a in r["arms"]) * r["budget"] for r in plan)
    assert total == pytest.approx(chains + scores, rel=1e-12)
    assert report["compute"]["done"] == total


def test_messages_are_in_the_users_terms():
    # a misspelt preset or kind gets the nearest name
    with pytest.raises(tunelab.ConfigError, match=r"unknown tune preset 'paper-logrge'; did you mean 'paper-logreg'\?"):
        tunelab.run("tune/paper-logrge")
    with pytest.raises(tunelab.ConfigError, match=r"unknown experiment kind 'tunee'; did you mean 'tune'\?"):
        tunelab.preset("tunee", "demo")
    # serde's Rust type names are the user's words, at the field's path
    cfg = tunelab.preset("tune", "gaussian")
    cfg["seed"] = "x"
    with pytest.raises(tunelab.ConfigError) as e:
        tunelab.check(cfg)
    assert "`seed`" in str(e.value) and "expected a whole number (0 or more)" in str(e.value)
    assert "u64" not in str(e.value)
    # keyword arguments are named as such, with no position in a JSON text the user never wrote
    with pytest.raises(tunelab.ConfigError, match=r"keyword argument kernel='wide' of tunelab.Mamba must be one of 'per-arm'"):
        tunelab.Mamba(3, 1.0, kernel="wide")
    with pytest.raises(tunelab.ConfigError, match=r"keyword argument threads= must be at least 1"):
        tunelab.run("tune/gaussian", threads=0)
    with pytest.raises(tunelab.ConfigError) as e:
        tunelab.Mamba(3, 1.0, max_samples=-1)
    assert "line 1 column" not in str(e.value)
    assert "the keyword argument max_samples= of tunelab.Mamba: " in str(e.value), str(e.value)
    assert "expected a whole number (0 or more)" in str(e.value) and "usize" not in str(e.value)
    with pytest.raises(tunelab.ConfigError, match=r"the keyword argument c= of tunelab.Mamba: .*expected a number"):
        tunelab.Mamba(3, 1.0, c="x")


def test_one_repeat_shows_no_spread():
    # a tvo summary of one repeat has no standard deviation to show ("± 0" would claim one)
    r = tunelab.Report({"kind": "tvo", "status": "complete", "result": {"summary": [
        {"method": "gp-ucb", "log_px_mean": -90.1, "log_px_sd": 0.0, "log_px": [-90.1]},
        {"method": "fixed", "log_px_mean": -91.0, "log_px_sd": 0.5, "log_px": [-90.5, -91.5]}]}})
    rows = dict(r._summary_rows())
    assert rows["gp-ucb"] == "test log p(x) -90.1"
    assert rows["fixed"] == "test log p(x) -91 ± 0.5"


def _stop_after_first_checkpoint(cfg, path):
    """Runs `cfg` with a checkpoint file at `path` and stops it (an exception from the progress callback) as soon as
    the first checkpoint is written."""

    class Stop(Exception):
        pass

    def stop(event):
        if path.exists():
            raise Stop()

    with pytest.raises(Stop):
        tunelab.run(cfg, stop, threads=1, checkpoint=path)


def test_a_run_stopped_after_a_checkpoint_resumes_to_the_uninterrupted_report(tmp_path):
    cfg = tunelab.preset("tune", "paper-logreg-page")
    cfg["budget"] = {"grad_evals": 6e6}  # MAMBA, 56 arms, 3 rounds
    whole = tunelab.run(cfg, threads=1)
    path = tmp_path / "run.checkpoint"
    _stop_after_first_checkpoint(cfg, path)
    saved = json.loads(path.read_text())
    assert 1 <= saved["rounds"] < 3
    resumed = tunelab.run(cfg, threads=1, resume=path)
    assert resumed["status"] == "complete"
    assert strip_times(resumed) == strip_times(whole)
    # a checkpoint of another config is refused
    other = dict(cfg, seed=cfg["seed"] + 1)
    with pytest.raises(tunelab.ConfigError, match="another config"):
        tunelab.run(other, resume=path)


def test_a_step_size_run_stopped_after_a_checkpoint_resumes_to_the_uninterrupted_report(tmp_path):
    # Round 0 runs the fixed steps, then one GP-UCB window a round: 5 windows, 6 saved states (the core's test of
    # the same config: tests/core/experiments/resume.rs)
    cfg = {"kind": "step-size", "data": {"n": 120, "d": 2}, "sampler": {"kind": "sgld", "batch": 0.2},
           "log10_step": [-5.0, -2.0], "windows": 5, "window_iters": 40, "fixed_log10_steps": [-4.0, -3.0], "seed": 4}
    whole = tunelab.run(cfg, threads=1)
    path = tmp_path / "run.checkpoint"
    _stop_after_first_checkpoint(cfg, path)
    assert 1 <= json.loads(path.read_text())["rounds"] < 6
    resumed = tunelab.run(cfg, threads=1, resume=path)
    assert resumed["status"] == "complete"
    assert strip_times(resumed) == strip_times(whole)


def test_a_bandit_run_stopped_after_a_checkpoint_resumes_to_the_uninterrupted_report(tmp_path):
    # TTTS and successive halving on three Bernoulli arms: 6 chunks of 10 rounds, a checkpoint after each
    cfg = {"kind": "bandit", "problem": {"kind": "bernoulli", "means": [0.2, 0.5, 0.8]},
           "algorithms": [{"kind": "ttts"}, {"kind": "successive-halving"}], "rounds": 60, "repeats": 3,
           "seed": 2, "checkpoints": 6}
    whole = tunelab.run(cfg, threads=1)
    path = tmp_path / "run.checkpoint"
    _stop_after_first_checkpoint(cfg, path)
    assert 1 <= json.loads(path.read_text())["rounds"] < 6
    resumed = tunelab.run(cfg, threads=1, resume=path)
    assert strip_times(resumed) == strip_times(whole)
