"""``tunelab.plot``: the page's charts from reports as matplotlib Figures. Checked by their artists
(lines, bands, labels, titles, legends), not by pixels; the Agg backend, no display."""

import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import tunelab  # noqa: E402
from tunelab import plot  # noqa: E402

# Small configs of each kind (as tests/common/small_configs.rs), seconds each.
TUNE = {"kind": "tune", "data": {"source": "none", "test_fraction": 0}, "model": {"kind": "gaussian", "d": 2},
        "sampler": {"kind": "sgld"}, "arms": {"log10_step": {"from": -3, "to": -1, "by": 1}, "batch": [1]},
        "tuner": {"kind": "mamba", "eta": 3}, "budget": {"iterations": 600},
        "metric": {"kind": "ksd", "max_samples": 100}, "thin": 2, "start": "zero", "seed": 5}
BANDIT = {"kind": "bandit", "problem": {"kind": "bernoulli", "means": [0.2, 0.5, 0.8]},
          "algorithms": [{"kind": "ttts"}, {"kind": "successive-halving"}], "rounds": 60, "repeats": 3, "seed": 2,
          "checkpoints": 6}
HOAG = {"kind": "hoag", "problem": "logreg", "data": {"source": "simulate", "n": 90, "d": 4, "seed": 3},
        "methods": [{"kind": "hoag", "tolerance": "cubic"}, {"kind": "grid", "points": 5}],
        "budget": {"cost": 150, "max_iter": 8}, "landscape_points": 9, "seed": 5}
TVO = {"kind": "tvo", "epochs": 2, "window": 1, "d": 2, "test_size": 100, "eval_size": 30, "curve_k": 3, "iwae_k": 5,
       "hidden": [4], "latent": 2, "methods": ["gp-ucb", "linear"], "seed": 6}


def data_lines(ax):
    """The lines drawn from the data: not the bracket's vertical round lines (two points at the same x,
    spanning the axes)."""
    return [ln for ln in ax.get_lines() if ln.get_transform() == ax.transData]


def legend_texts(ax):
    leg = ax.get_legend()
    assert leg is not None, "no legend"
    return [t.get_text() for t in leg.get_texts()]


@pytest.fixture(scope="module")
def tune_report():
    return tunelab.run(TUNE, threads=1)


def test_scores_draws_one_line_per_arm_with_the_bracket_and_the_chosen_arm(tune_report):
    fig = plot.scores(tune_report)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    res = tune_report["result"]
    arms, rounds = res["arms"], res["rounds"]
    # one line per arm, plus one cross per arm pruned with a finite score
    lines = data_lines(ax)
    arm_lines = [ln for ln in lines if ln.get_linestyle() != "None"]
    crosses = [ln for ln in lines if ln.get_marker() == "x"]
    assert len(arm_lines) == len(arms) == 3
    assert len(crosses) == sum(a["pruned_round"] is not None for a in arms)
    # each arm's points: its scores at the cumulative budget of its rounds
    spent = {}
    for rnd in rounds:
        for a in rnd["arms"]:
            spent.setdefault(a, []).append(sum(r["budget"] for r in rounds[: rnd["round"] + 1] if a in r["arms"]))
    for i, (ln, arm) in enumerate(zip(arm_lines, arms)):
        assert list(ln.get_xdata()) == spent[i][: len(arm["scores"])]
        assert np.allclose(ln.get_ydata(), arm["scores"])
    # the bracket: a vertical line where each round ended
    vlines = [ln for ln in ax.get_lines() if ln not in lines]
    assert len(vlines) == len(rounds)
    # the chosen arm is labelled and thick
    chosen = res["best"]["arm"]
    labels = legend_texts(ax)
    assert len(labels) == len(arms) and labels[chosen].endswith("(chosen)")
    assert labels[0].startswith("h=0.001, b=1")
    assert arm_lines[chosen].get_linewidth() > arm_lines[(chosen + 1) % 3].get_linewidth()
    assert ax.get_xlabel() == "iterations per arm" and ax.get_ylabel() == "KSD (lower is better)"
    assert "against compute" in ax.get_title() and "3 arms" in ax.get_title()
    assert ax.get_xscale() == "log"


def test_scores_of_a_compare_tuner_and_of_a_mamba_ask_tell_report():
    cfg = dict(TUNE, kind="compare", reference_samples=0)
    cmp = tunelab.run(cfg, threads=1)
    names = [e["name"] for e in cmp["result"]["entries"]]
    fig = plot.scores(cmp, tuner="heuristic")
    assert fig.axes[0].get_title().startswith("heuristic:")
    assert len(data_lines(fig.axes[0])) == 1
    with pytest.raises(ValueError, match=r"no tuner 'nope'.*MAMBA-KSD"):
        plot.scores(cmp, tuner="nope")
    # to_frame of a comparison (entries are the tuners' reports, flattened)
    arms = tunelab.to_frame(cmp, "arms")
    assert set(arms["tuner"]) == set(names) and len(arms) == sum(len(e["arms"]) for e in cmp["result"]["entries"])
    fig = plot.traces(cmp, tuner=names[0])
    assert fig.get_suptitle().startswith(names[0])
    # Mamba.report(): a user's numpy sampler
    m = tunelab.Mamba([{"scale": s} for s in np.linspace(0.2, 3.0, 9)], budget=2000.0, eta=3)
    rng = np.random.default_rng(0)
    while (ask := m.ask()) is not None:
        m.tell({a: (x := rng.normal(size=(int(ask.budget), 2)) * m.arms[a]["scale"], -x) for a in ask.arms})
    rep = m.report()
    fig = plot.scores(rep)
    ax = fig.axes[0]
    assert len([ln for ln in data_lines(ax) if ln.get_linestyle() != "None"]) == 9
    labels = legend_texts(ax)
    assert labels[0] == "arm 0" and labels[rep["best"]] == f"arm {rep['best']} (chosen)"
    assert ax.get_xlabel() == "rows per arm" and len(rep["rounds"]) >= 2


def test_scores_draws_into_a_given_axes(tune_report):
    fig = Figure()
    ax1, ax2 = fig.subplots(1, 2)
    assert plot.scores(tune_report, ax=ax2, legend=False) is fig
    assert not ax1.get_lines() and len(data_lines(ax2)) >= 3 and ax2.get_legend() is None


def test_regret_draws_each_algorithm_with_its_band():
    report = tunelab.run(BANDIT, threads=1)
    fig = plot.regret(report)
    simple, cumulative = fig.axes
    algs = report["result"]["algorithms"]
    for ax, key in ((simple, "simple_regret"), (cumulative, "cumulative_regret")):
        lines = ax.get_lines()
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(lines) == len(bands) == len(algs)
        assert legend_texts(ax) == [a["name"] for a in algs]
        for ln, a in zip(lines, algs):
            assert list(ln.get_xdata()) == report["result"]["rounds"]
            assert np.allclose(ln.get_ydata(), a[key]["mean"])
        assert ax.get_xlabel() == "round"
    assert simple.get_title().startswith("Simple regret") and cumulative.get_ylabel() == "cumulative regret"


def test_traces_has_one_panel_per_coordinate(tune_report):
    fig = plot.traces(tune_report)
    best = tune_report["result"]["best"]
    assert len(fig.axes) == best["dim"] == 2
    for j, ax in enumerate(fig.axes):
        (ln,) = ax.get_lines()
        assert np.allclose(ln.get_ydata(), best["samples"][:, j])
        assert ax.get_ylabel() == f"x{j}"
    assert fig.axes[-1].get_xlabel() == "kept draw" and "traces of the chosen arm" in fig.get_suptitle()
    assert len(plot.traces(tune_report, dims=[1]).axes) == 1


def test_tvo_and_hoag_curves():
    report = tunelab.run(TVO, threads=1)
    fig = plot.tvo(report)
    curve, integrand = fig.axes
    runs = report["result"]["runs"]
    assert len(curve.get_lines()) == len(runs) == 2
    assert legend_texts(curve) == ["gp-ucb", "linear"]
    assert curve.get_xlabel() == "epoch" and integrand.get_xlabel() == "beta"
    # each method's integrand curve and its last schedule's points
    assert len(integrand.get_lines()) == 2 * len(runs)
    assert np.allclose(integrand.get_lines()[0].get_ydata(), runs[0]["integrand"])

    report = tunelab.run(HOAG, threads=1)
    fig = plot.hoag(report)
    sub, land = fig.axes
    methods = report["result"]["methods"]
    assert legend_texts(sub) == [m["name"] for m in methods]
    assert sub.get_yscale() == "log" and sub.get_xlabel().startswith("cost")
    assert len(land.get_lines()) == 1 + len(methods)
    assert land.get_xlabel() == report["result"]["hyper_names"][0]


def test_wrong_reports_and_missing_matplotlib_are_clear_errors(tune_report, monkeypatch):
    with pytest.raises(ValueError, match="draws bandit reports, not a tune report"):
        plot.regret(tune_report)
    with pytest.raises(ValueError, match="no result"):
        plot.scores({"kind": "tune", "status": "stopped", "result": None})
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="tunelab.plot needs matplotlib"):
        plot.scores(tune_report)
