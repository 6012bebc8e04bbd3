"""tunelab.Mamba (ask/tell) for samplers written in Python, and the numpy example."""

import importlib.util
import math

import numpy as np
import pytest

import tunelab


def load_example(root):
    spec = importlib.util.spec_from_file_location("mamba_numpy", root / "examples" / "python" / "mamba_numpy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gaussian(n, d, spread, seed):
    x = spread * np.random.default_rng(seed).normal(size=(n, d))
    return x, -x


def test_schedule_and_scores():
    m = tunelab.Mamba(9, budget=130.0, eta=3)
    assert m.plan() == [{"arms": 9, "budget": 32.5, "keep": 3}, {"arms": 3, "budget": 97.5, "keep": 1}]
    ask = m.ask()
    assert (ask.round, ask.arms, ask.budget) == (0, list(range(9)), 32.5)
    assert m.ask() == ask
    x, g = gaussian(300, 4, 1.0, 0)
    s, n = m.score(x, g)
    want = tunelab.ksd(x, g, scale="median-precond", estimator="u", full=True)
    assert (s, n) == (math.sqrt(abs(want["ksd_sq"])), 300)
    plain = tunelab.Mamba(3, 1.0, kernel="plain")
    assert plain.score(x, g)[0] == tunelab.ksd(x, g)


def test_rounds_pick_the_exact_arm_and_report():
    spreads = [1.6, 1.3, 1.0, 0.8, 0.5, 0.7, 0.6, 2.0, 1.4]
    m = tunelab.Mamba([{"spread": s} for s in spreads], budget=400.0, eta=3)
    while (ask := m.ask()) is not None:
        pruned = m.tell({a: gaussian(int(ask.budget * 4), 3, spreads[a], 10 * a + ask.round) for a in ask.arms})
        assert len(pruned) == len(ask.arms) - m.plan()[ask.round]["keep"]
    r = m.report()
    assert r["finished"] and r["best_arm"] == {"spread": 1.0}
    # the same shape as a tune report's best: arm, score, params
    assert r["best"] == {"arm": 2, "score": r["arms"][2]["scores"][-1], "params": {"spread": 1.0}}
    assert r["arm_params"] == [{"spread": s} for s in spreads]
    assert [len(x["arms"]) for x in r["rounds"]] == [9, 3]
    assert r["kernel"]["kind"] == "per-arm"
    assert all(a["pruned_round"] in (0, 1, None) for a in r["arms"])


def test_told_scores_give_the_same_report():
    def drive(remote):
        m = tunelab.Mamba(4, budget=80.0, eta=2)
        while (ask := m.ask()) is not None:
            data = {a: gaussian(60, 2, 1.0 + 0.3 * a, a) for a in ask.arms}
            if remote:
                m.tell_scored([(a, *tunelab.score_arm(m.config, *data[a])) for a in ask.arms])
            else:
                m.tell(data)
        return m.report()
    assert drive(True) == drive(False)


def test_errors_are_exceptions_with_the_core_message():
    m = tunelab.Mamba(3, 1.0)
    with pytest.raises(tunelab.ConfigError, match=r"tell\(\) without a pending ask\(\)"):
        m.tell_scores({0: 1.0})
    m.ask()
    with pytest.raises(tunelab.ConfigError, match=r"round 0 asked for arms \[0, 1, 2\]; missing \[2\]"):
        m.tell_scores({0: 1.0, 1: 2.0})
    x, g = gaussian(10, 2, 1.0, 0)
    with pytest.raises(tunelab.DataError, match="arm 1"):
        m.tell({0: (x, g), 1: (x, g[:5]), 2: (x, g)})
    with pytest.raises(tunelab.ConfigError, match="eta >= 2"):
        tunelab.Mamba(3, 1.0, eta=1)
    with pytest.raises(tunelab.ConfigError, match="precond_sd"):
        tunelab.Mamba(3, 1.0, kernel="run")
    with pytest.raises(tunelab.ConfigError):
        tunelab.Mamba(3, 1.0, kernel="wide")


def test_numpy_example_runs(root):
    ex = load_example(root)
    report = tunelab.mamba_run(ex.ARMS, ex.run_arm, ex.BUDGET, eta=3, seed=0)
    assert report["finished"] and report["best"] is not None
    assert [len(r["arms"]) for r in report["rounds"]] == [9, 3]
    # the largest step with 10% and 3% batches is far off: pruned in the first round
    assert report["arms"][1]["pruned_round"] == 0 and report["arms"][2]["pruned_round"] == 0
    assert report["arms"][report["best"]["arm"]]["pruned_round"] is None
    again = tunelab.mamba_run(ex.ARMS, ex.run_arm, ex.BUDGET, eta=3, seed=0)
    assert again == report


def test_mamba_run_checkpoint_resumes_to_the_same_report(root, tmp_path):
    # A run killed in its second round (here: run_arm raises), started again with the same checkpoint, ends
    # with the report of a run never interrupted, bit for bit.
    ex = load_example(root)
    whole = tunelab.mamba_run(ex.ARMS, ex.run_arm, ex.BUDGET, eta=3, seed=0)
    path = tmp_path / "run.ckpt"
    calls = {"n": 0}

    def dies_in_round_1(arm, budget, state, rng_seed):
        if rng_seed[2] == 1:
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt("killed")
        return ex.run_arm(arm, budget, state, rng_seed)

    with pytest.raises(KeyboardInterrupt):
        tunelab.mamba_run(ex.ARMS, dies_in_round_1, ex.BUDGET, eta=3, seed=0, checkpoint=path)
    assert path.exists()
    resumed = tunelab.mamba_run(ex.ARMS, dies_in_round_1, ex.BUDGET, eta=3, seed=0, checkpoint=path)
    assert resumed == whole
    assert tunelab.to_json(resumed) == tunelab.to_json(whole)
    with pytest.raises(tunelab.ConfigError, match="keyword argument checkpoint="):
        tunelab.mamba_run(ex.ARMS, ex.run_arm, ex.BUDGET, eta=3, seed=1, checkpoint=path)
