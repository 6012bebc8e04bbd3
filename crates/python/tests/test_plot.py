"""``tunelab.plot``: charts made for each kind's data, as matplotlib Figures. Checked by their artists (lines,
colours, bands, labels, legends) and by the rendered extents of their text (no legend over the axes, no two tick
labels overlapping, nothing cut off), at 3, 6 and 56 arms and 27 lines; the Agg canvas, no display."""

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
# 14 step sizes x 4 batch sizes = 56 arms, as the paper's presets (logistic regression on simulated data)
TUNE56 = {"kind": "tune", "data": {"source": "simulate", "n": 200, "d": 2, "seed": 1, "test_fraction": 0.2},
          "model": {"kind": "logistic"}, "sampler": {"kind": "sgld"},
          "arms": {"log10_step": {"from": -5.25, "to": -2, "by": 0.25}, "batch": [0.01, 0.03, 0.1, 0.3]},
          "tuner": {"kind": "mamba", "eta": 3}, "budget": {"grad_evals": 40000},
          "metric": {"kind": "ksd", "max_samples": 60}, "thin": 2, "seed": 3}
# 3 step sizes x 2 batch sizes = 6 arms
TUNE6 = dict(TUNE56, arms={"log10_step": {"from": -4, "to": -2, "by": 1}, "batch": [0.1, 0.3]})
BANDIT = {"kind": "bandit", "problem": {"kind": "bernoulli", "means": [0.2, 0.5, 0.8]},
          "algorithms": [{"kind": "ttts"}, {"kind": "successive-halving"}], "rounds": 60, "repeats": 3, "seed": 2,
          "checkpoints": 6}
HOAG = {"kind": "hoag", "problem": "logreg", "data": {"source": "simulate", "n": 90, "d": 4, "seed": 3},
        "methods": [{"kind": "hoag", "tolerance": "cubic"}, {"kind": "grid", "points": 5}],
        "budget": {"cost": 150, "max_iter": 8}, "landscape_points": 9, "seed": 5}
TVO = {"kind": "tvo", "epochs": 2, "window": 1, "d": 2, "test_size": 100, "eval_size": 30, "curve_k": 3, "iwae_k": 5,
       "hidden": [4], "latent": 2, "methods": ["gp-ucb", "linear"], "seed": 6}
LR = {"kind": "lr-schedule", "problem": {"kind": "noisy-quadratic", "dim": 5, "noise": 1.0}, "intervals": 3,
      "steps_per_interval": 8, "records_per_interval": 2, "batch": 4, "lr_bounds": [0.001, 1.0], "constant": 2,
      "decay_starts": 1, "decay_factors": [0.1], "dynamic": {"enabled": True, "runs": 2, "candidates": 5,
                                                              "band_samples": 20}, "seed": 3}
STEP = {"kind": "step-size", "data": {"n": 120, "d": 2}, "sampler": {"kind": "sgld", "batch": 0.2},
        "log10_step": [-5.0, -2.0], "windows": 5, "window_iters": 40, "fixed_log10_steps": [-4.0, -3.0], "seed": 4}


def legend_texts(fig, k=0):
    """The entries of the figure's k-th key (keys sit outside the plot areas)."""
    return [t.get_text() for t in fig.legends[k].get_texts()]


def data_lines(ax):
    """The lines drawn from the data: not the bracket's vertical round lines (two points at the same x,
    spanning the axes)."""
    return [ln for ln in ax.get_lines() if ln.get_transform() == ax.transData]


def arm_lines(ax):
    return [ln for ln in data_lines(ax) if ln.get_linestyle() != "None"]


def main_axes(fig):
    """The plot areas (not colour bars)."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def readable(fig):
    """The rendered figure's text fits: no legend overlaps a plot area, no two tick labels of an axis overlap,
    and every title, label, legend and annotation lies inside the figure."""
    fig.draw_without_rendering()
    r = fig.canvas.get_renderer()
    box = fig.bbox
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    for ax in main_axes(fig):
        area = ax.get_window_extent(r)
        for leg in legends:
            lb = leg.get_window_extent(r)
            assert not lb.overlaps(area), f"a legend ({lb}) lies over the axes ({area})"
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = plot.tick_labels(axis)
            boxes = [t.get_window_extent(r) for t in labels]
            for i in range(len(boxes)):
                for j in range(i + 1, len(boxes)):
                    assert not boxes[i].overlaps(boxes[j]), \
                        f"tick labels {labels[i].get_text()!r} and {labels[j].get_text()!r} overlap"
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label] + [t for t in ax.texts]
        for t in texts:
            if t.get_visible() and t.get_text():
                e = t.get_window_extent(r)
                assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, \
                    f"{t.get_text()!r} is cut off ({e} outside {box})"
    for leg in legends:
        e = leg.get_window_extent(r)
        assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, "legend cut off"


@pytest.fixture(scope="module")
def tune_report():
    return tunelab.run(TUNE, threads=1)


@pytest.fixture(scope="module")
def tune56():
    return tunelab.run(TUNE56, threads=1)


def test_scores_draws_one_line_per_arm_with_the_bracket_and_the_chosen_arm(tune_report):
    fig = plot.scores(tune_report)
    assert isinstance(fig, Figure)
    ax = main_axes(fig)[0]
    res = tune_report["result"]
    arms, rounds = res["arms"], res["rounds"]
    lines = data_lines(ax)
    crosses = [ln for ln in lines if ln.get_marker() == "x"]
    assert len(arm_lines(ax)) == len(arms) == 3
    assert len(crosses) == sum(a["pruned_round"] is not None for a in arms)
    # each arm's points: its scores at the cumulative budget of its rounds
    spent = {}
    for rnd in rounds:
        for a in rnd["arms"]:
            spent.setdefault(a, []).append(sum(r["budget"] for r in rounds[: rnd["round"] + 1] if a in r["arms"]))
    for i, (ln, arm) in enumerate(zip(arm_lines(ax), arms)):
        assert list(ln.get_xdata()) == spent[i][: len(arm["scores"])]
        assert np.allclose(ln.get_ydata(), arm["scores"])
        assert ln.get_label().startswith(f"h={arm['step']:.3g}, b=1")
    # the bracket: a vertical line where each round ended, labelled from round 0 as in the JSON
    vlines = [ln for ln in ax.get_lines() if ln not in lines]
    assert len(vlines) == len(rounds)
    assert [t.get_text() for t in ax.texts if t.get_text().startswith("round")] == [f"round {k}" for k in range(len(rounds))]
    # the chosen arm: thick and black, and named on the plot
    chosen = res["best"]["arm"]
    al = arm_lines(ax)
    assert matplotlib.colors.to_hex(al[chosen].get_color()) == "#000000"
    assert al[chosen].get_linewidth() > max(ln.get_linewidth() for i, ln in enumerate(al) if i != chosen)
    assert any(t.get_text() == f"chosen: {al[chosen].get_label()}" for t in ax.texts)
    # pruned arms are faded grey
    for i, a in enumerate(arms):
        if a["pruned_round"] is not None:
            assert matplotlib.colors.to_hex(al[i].get_color()) == "#9aa1a9" and al[i].get_alpha() < 1
    assert ax.get_xlabel() == "iterations per arm" and ax.get_ylabel() == "KSD (lower is better)"
    assert "against compute" in ax.get_title() and "3 arms" in ax.get_title()
    assert ax.get_xscale() == "log"
    # the step size as a colour bar, the batch sizes in a key outside the axes
    (cbar,) = [a for a in fig.axes if a.get_label() == "<colorbar>"]
    assert cbar.get_ylabel() == "step size h"
    assert ax.get_legend() is None and len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()][0] == "batch 1"
    readable(fig)


def test_56_arms_colour_by_step_mark_by_batch_and_stay_readable(tune56):
    fig = plot.scores(tune56)
    ax = main_axes(fig)[0]
    res = tune56["result"]
    assert len(res["arms"]) == 56
    al = arm_lines(ax)
    drawn = [i for i, a in enumerate(res["arms"]) if any(s is not None for s in a["scores"])]
    assert len(al) == len(drawn) > 40
    chosen = res["best"]["arm"]
    # survivors (not chosen): colour = step on the ramp (small steps dark), marker = batch
    steps = sorted({a["step"] for a in res["arms"]})
    batches = sorted({a["batch"] for a in res["arms"]}, reverse=True)
    markers = {}
    for ln, i in zip(al, drawn):
        a = res["arms"][i]
        markers.setdefault(a["batch"], set()).add(ln.get_marker())
        if i != chosen and a["pruned_round"] is None:
            assert np.allclose(matplotlib.colors.to_rgb(ln.get_color()),
                               plot._ramp((np.log10(a["step"]) - np.log10(steps[0])) / (np.log10(steps[-1]) - np.log10(steps[0]))))
    assert all(len(m) == 1 for m in markers.values()) and len({next(iter(m)) for m in markers.values()}) == len(batches)
    # no legend inside the axes: one key below them, with the 4 batch sizes, chosen, pruned and round ends
    assert ax.get_legend() is None
    (key,) = fig.legends
    assert [t.get_text() for t in key.get_texts()] == [f"batch {b}" for b in batches] + \
        ["chosen arm", "pruned (x: when)", "end of a round"]
    readable(fig)
    # saved as a paper figure: the same checks hold after a savefig
    import io
    fig.savefig(io.BytesIO(), format="pdf")
    readable(fig)


def test_6_arms_are_readable():
    fig = plot.scores(tunelab.run(TUNE6, threads=1))
    assert len(arm_lines(main_axes(fig)[0])) == 6
    readable(fig)


def test_27_lines_of_your_own_arms_take_distinct_styles_and_a_key_outside():
    # Mamba.report() over 27 arms of a user's numpy sampler: no step sizes, so one colour and dash per arm
    m = tunelab.Mamba([{"scale": s} for s in np.linspace(0.2, 3.0, 27)], budget=900.0, eta=3)
    rng = np.random.default_rng(0)
    while (ask := m.ask()) is not None:
        m.tell({a: (x := rng.normal(size=(int(ask.budget), 2)) * m.arms[a]["scale"], -x) for a in ask.arms})
    rep = m.report()
    fig = plot.scores(rep)
    ax = main_axes(fig)[0]
    al = arm_lines(ax)
    assert len(al) == 27
    styles = {(matplotlib.colors.to_hex(ln.get_color()), ln.get_linestyle()) for i, ln in enumerate(al)
              if i != rep["best"]["arm"] and rep["arms"][i]["pruned_round"] is None}
    assert len(styles) == len([a for a in rep["arms"] if a["pruned_round"] is None]) - 1
    assert [ln.get_label() for ln in al][:2] == ["arm 0", "arm 1"]
    assert ax.get_xlabel() == "rows per arm" and len(rep["rounds"]) >= 2
    readable(fig)


def test_scores_of_a_compare_tuner_and_report_plot_of_every_tuner():
    cfg = dict(TUNE, kind="compare", reference_samples=0)
    cmp = tunelab.run(cfg, threads=1)
    names = [e["name"] for e in cmp["result"]["entries"]]
    fig = plot.scores(cmp, tuner="heuristic")
    assert main_axes(fig)[0].get_title().startswith("heuristic:")
    assert len(data_lines(main_axes(fig)[0])) == 1
    with pytest.raises(ValueError, match=r"tuner='nope' names no tuner.*MAMBA-KSD"):
        plot.scores(cmp, tuner="nope")
    arms = tunelab.to_frame(cmp, "arms")
    assert set(arms["tuner"]) == set(names) and len(arms) == sum(len(e["arms"]) for e in cmp["result"]["entries"])
    fig = plot.traces(cmp, tuner=names[0])
    assert fig.get_suptitle().startswith(names[0])
    fig = cmp.plot()
    assert [ax.get_title().split(":")[0] for ax in main_axes(fig) if ax.get_visible()] == names
    readable(fig)


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
        for ln, a in zip(lines, algs):
            assert list(ln.get_xdata()) == report["result"]["rounds"]
            assert np.allclose(ln.get_ydata(), a[key]["mean"])
        assert ax.get_xlabel() == "round"
    assert legend_texts(fig) == [a["name"] for a in algs]
    assert simple.get_title().startswith("Simple regret") and cumulative.get_ylabel() == "cumulative regret"
    readable(fig)


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
    readable(fig)


def test_tvo_and_hoag_curves():
    report = tunelab.run(TVO, threads=1)
    fig = plot.tvo(report)
    curve, integrand = fig.axes
    runs = report["result"]["runs"]
    assert len(curve.get_lines()) == len(runs) == 2
    assert legend_texts(fig) == ["gp-ucb", "linear"]
    assert curve.get_xlabel() == "epoch" and integrand.get_xlabel() == "beta"
    # each method's integrand curve and its last schedule's points
    assert len(integrand.get_lines()) == 2 * len(runs)
    assert np.allclose(integrand.get_lines()[0].get_ydata(), runs[0]["integrand"])
    readable(fig)
    # its tables
    assert list(report.frame("summary")["method"]) == ["gp-ucb", "linear"]
    windows = report.frame("windows")
    assert len(windows) == sum(len(r["windows"]) for r in runs) and "schedule_0" in windows.columns
    assert len(report.frame("integrand")) == sum(len(r["integrand"]) for r in runs)

    report = tunelab.run(HOAG, threads=1)
    fig = plot.hoag(report)
    sub, land = fig.axes
    methods = report["result"]["methods"]
    assert legend_texts(fig) == [m["name"] for m in methods]
    assert legend_texts(fig, 1) == ["outer loss"] + [f"{m['name']} iterates" for m in methods]
    assert sub.get_yscale() == "log" and sub.get_xlabel().startswith("cost")
    assert len(land.get_lines()) == 1 + len(methods)
    assert land.get_xlabel() == report["result"]["hyper_names"][0]
    readable(fig)
    assert list(report.frame("methods")["name"]) == [m["name"] for m in methods]


def test_lr_schedule_and_step_size_have_charts_and_tables():
    report = tunelab.run(LR, threads=1)
    fig = plot.lr_schedule(report)
    loss, lr = fig.axes
    methods = report["result"]["methods"]
    assert len(loss.get_lines()) == len(lr.get_lines()) == len(methods) >= 3
    for ln, m in zip(lr.get_lines(), methods):
        assert list(ln.get_xdata()) == [p["step"] for p in m["trace"]]
        assert np.allclose(ln.get_ydata(), [p["lr"] for p in m["trace"]])
    assert lr.get_yscale() == "log" and loss.get_xlabel() == "step"
    readable(fig)
    frame = report.frame("methods")
    assert list(frame["name"]) == [m["name"] for m in methods] and "final_loss" in frame.columns

    report = tunelab.run(STEP, threads=1)
    fig = plot.step_size(report)
    steps, ksd = fig.axes
    gp, fixed = report["result"]["gp_ucb"], report["result"]["fixed"]
    assert np.allclose(steps.get_lines()[0].get_ydata(), gp["steps"])
    assert len(ksd.get_lines()) == 1 + len(fixed)
    assert legend_texts(fig) == [gp["name"]] + [f["name"] for f in fixed]
    readable(fig)
    assert list(report.frame("runs")["name"]) == [gp["name"]] + [f["name"] for f in fixed]
    assert report.plot().axes[0].get_ylabel() == "step size h"


def test_figures_show_themselves_as_png(tune_report):
    fig = plot.scores(tune_report)
    png = fig._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    import matplotlib.pyplot as plt
    # made without pyplot: nothing accumulates in pyplot's figure list
    assert plt.get_fignums() == []


def test_wrong_reports_and_missing_matplotlib_are_clear_errors(tune_report, monkeypatch):
    with pytest.raises(ValueError, match="draws bandit reports, not a tune report"):
        plot.regret(tune_report)
    with pytest.raises(ValueError, match="no result"):
        plot.scores({"kind": "tune", "status": "failed", "result": None})
    with pytest.raises(ValueError, match="keyword argument x must be"):
        plot.hoag(tune_report, x="time")
    monkeypatch.setattr(plot, "_FIGURE_CLASS", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="tunelab.plot needs matplotlib"):
        plot.scores(tune_report)
