"""``tunelab.plot``: the page's charts from a report, as matplotlib Figures (matplotlib is an optional
dependency, imported on the first call: ``pip install matplotlib`` or ``pip install 'tunelab[plot]'``).

Every function takes a report (the envelope from ``tunelab.run``, its ``result``, or for ``scores`` a
``Mamba.report()``) and returns a ``matplotlib.figure.Figure`` with a title, axis labels and a legend:

- ``scores``: score against compute per arm (log scales) with MAMBA's bracket: a dotted line where each round
  ended, a cross where an arm was pruned, the chosen arm drawn thick (tune, compare, ``Mamba.report()``);
- ``regret``: a bandit report's simple and cumulative regret per algorithm, the mean with its band;
- ``traces``: the chosen arm's kept draws, one panel per coordinate (tune, compare);
- ``tvo``: TVO's test log p(x) per epoch and the integrand E[w] over beta with each schedule's points;
- ``hoag``: HOAG's suboptimality against cost per method, and the validation landscape with the iterates.

Figures are made with ``matplotlib.figure.Figure`` (not pyplot): a notebook shows the returned figure once,
``fig.savefig("figure.pdf")`` writes a paper figure, and nothing accumulates in pyplot's figure list. ``scores``
also draws into a given ``ax`` (then it returns that axes' figure).
"""

from __future__ import annotations

import importlib
import math
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from ._errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["scores", "regret", "traces", "tvo", "hoag"]


def _figure(nrows: int = 1, ncols: int = 1, **kw: Any) -> Tuple["Figure", List["Axes"]]:
    try:
        mfigure = importlib.import_module("matplotlib.figure")
    except ImportError:
        raise ImportError("tunelab.plot needs matplotlib, an optional dependency: pip install matplotlib "
                          "(or pip install 'tunelab[plot]')") from None
    fig = mfigure.Figure(figsize=kw.pop("figsize", (6.4 * ncols, 4.2 * nrows)), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [a for row in axes for a in row]


def _result(report: Dict[str, Any], kinds: Sequence[str], what: str) -> Tuple[str, Dict[str, Any]]:
    """(kind, result) of an envelope or a bare result; a clear error for another kind or a stopped run."""
    from ._frames import _guess_kind

    if "plan" in report and "rounds" in report and "kind" not in report:
        kind, result = "mamba", report
    elif "kind" in report and "result" in report:
        kind, result = report["kind"], report["result"]
        if result is None:
            raise ConfigError(f"invalid configuration: tunelab.plot.{what}: the report has no result "
                              f"(status {report.get('status')!r})")
    else:
        kind, result = _guess_kind(report), report
        if kind == "unknown" and "runs" in report and "summary" in report:
            kind = "tvo"
    if kind not in kinds:
        raise ConfigError(f"invalid configuration: tunelab.plot.{what} draws {', '.join(kinds)} reports, "
                          f"not a {kind} report")
    return kind, result


def _entry(result: Dict[str, Any], tuner: Optional[str]) -> Tuple[str, Dict[str, Any]]:
    """A compare result's tuner report by name (default: the first tuner): the entry itself (its tuner's
    report, flattened, with ``name`` and ``evaluation``)."""
    names = [e["name"] for e in result["entries"]]
    if tuner is None:
        tuner = names[0]
    for e in result["entries"]:
        if e["name"] == tuner:
            return tuner, e
    raise ConfigError(f"invalid configuration: tunelab.plot: no tuner {tuner!r} in this comparison "
                      f"(tuners: {', '.join(names)})")


def _finite(v: Optional[float]) -> float:
    return math.nan if v is None or not math.isfinite(v) else float(v)


def _arm_label(arm: Dict[str, Any], i: int) -> str:
    if "step" in arm:
        batch = arm.get("batch")
        return f"h={arm['step']:.3g}" + (f", b={batch}" if batch is not None else "")
    return f"arm {arm.get('arm', i)}"


def scores(report: Dict[str, Any], *, tuner: Optional[str] = None, ax: Optional["Axes"] = None,
           legend: bool = True, labels: Optional[Sequence[str]] = None) -> "Figure":
    """Score against compute per arm, with the bracket (a tune or compare report, or ``Mamba.report()``).

    Each arm is a line through its scores, at the compute it had run when scored (the cumulative budget of
    the rounds it took part in, in the config's budget unit); a cross marks the round an arm was pruned in, a
    dotted vertical line the end of each round, and the chosen arm is drawn thick. Scores of diverged arms
    (+inf) are left out (an arm with no finite score has no line and no legend entry). ``tuner`` picks a
    comparison's tuner (default the first); ``labels`` names the arms in the legend (default: step and batch
    for the built-in tuners, ``arm i`` for ``Mamba.report()``).
    """
    kind, result = _result(report, ("tune", "compare", "mamba"), "scores")
    name = None
    if kind == "compare":
        name, result = _entry(result, tuner)
    arms: List[Dict[str, Any]] = result["arms"]
    rounds: List[Dict[str, Any]] = result["rounds"]
    best = result.get("best")
    # Mamba.report(): `best` is the chosen arm's index; the rows told are its budget unit, scored by KSD
    chosen = best if isinstance(best, int) else (best or {}).get("arm")
    unit = next((r.get("unit") for r in rounds if r.get("unit")), None) or ("rows" if kind == "mamba" else "budget")
    metric = str(result.get("metric", "ksd" if kind == "mamba" else "score"))
    if ax is None:
        fig, (ax,) = _figure()
    else:
        fig = ax.get_figure()
    # compute of every arm at each of its scores: the cumulative budget of its rounds
    spent: Dict[int, float] = {}
    xs: Dict[int, List[float]] = {}
    ends: List[float] = []
    for rnd in rounds:
        end = 0.0
        for a in rnd["arms"]:
            spent[a] = spent.get(a, 0.0) + float(rnd["budget"])
            xs.setdefault(a, []).append(spent[a])
            end = max(end, spent[a])
        ends.append(end)
    positive = True
    for i, arm in enumerate(arms):
        ys = [_finite(s) for s in arm["scores"]]
        x = xs.get(i, [])[: len(ys)]
        if not x or all(math.isnan(y) for y in ys):
            continue  # never scored, or diverged in every round it ran (+inf): nothing to draw
        positive = positive and all(y > 0 for y in ys if not math.isnan(y))
        is_chosen = chosen == i
        label = (labels[i] if labels is not None else _arm_label(arm, i)) + (" (chosen)" if is_chosen else "")
        (line,) = ax.plot(x, ys[: len(x)], marker="o", markersize=3, linewidth=2.6 if is_chosen else 1.0,
                          zorder=3 if is_chosen else 2, label=label)
        pruned = arm.get("pruned_round")
        if pruned is not None and pruned < len(x) and not math.isnan(ys[pruned]):
            ax.plot([x[pruned]], [ys[pruned]], marker="x", markersize=7, color=line.get_color(), linestyle="none")
    for k, end in enumerate(ends):
        ax.axvline(end, color="0.6", linestyle=":", linewidth=0.8)
        ax.annotate(f"round {k + 1}", (end, 1.0), xycoords=("data", "axes fraction"), rotation=90,
                    ha="right", va="top", fontsize=7, color="0.4")
    ax.set_xscale("log")
    if positive:
        ax.set_yscale("log")
    ax.set_xlabel(f"{unit} per arm")
    ax.set_ylabel(f"{metric.upper()} (lower is better)")
    tuner_name = name or str(result.get("tuner", "MAMBA"))
    ax.set_title(f"{tuner_name}: {metric.upper()} against compute, {len(arms)} arms, {len(rounds)} rounds")
    if legend:
        ax.legend(fontsize=7, ncol=max(1, math.ceil(len(arms) / 12)), title="arm (x: pruned)", title_fontsize=7)
    return fig


def regret(report: Dict[str, Any], *, log: bool = False) -> "Figure":
    """A bandit report's simple and cumulative regret per algorithm: the mean over repeats and its band."""
    _, result = _result(report, ("bandit",), "regret")
    t = result["rounds"]
    fig, axes = _figure(1, 2)
    for ax, key, title in zip(axes, ("simple_regret", "cumulative_regret"), ("Simple regret", "Cumulative regret")):
        for alg in result["algorithms"]:
            band = alg[key]
            (line,) = ax.plot(t, band["mean"], label=alg["name"])
            ax.fill_between(t, band["lo"], band["hi"], color=line.get_color(), alpha=0.2, linewidth=0)
        ax.set_xlabel("round")
        ax.set_ylabel(title.lower())
        ax.set_title(f"{title} ({result.get('problem', 'bandit')})")
        if log:
            ax.set_yscale("symlog", linthresh=1e-3)
        ax.legend(fontsize=8, title="band: mean ± {:g} se".format(result.get("config", {}).get("band", 1.96)),
                  title_fontsize=7)
    return fig


def traces(report: Dict[str, Any], *, tuner: Optional[str] = None, dims: Optional[Sequence[int]] = None,
           max_dims: int = 4) -> "Figure":
    """The chosen arm's kept draws, one panel per coordinate (``dims``, default the first ``max_dims``)."""
    import numpy as np

    kind, result = _result(report, ("tune", "compare"), "traces")
    name = None
    if kind == "compare":
        name, result = _entry(result, tuner)
    best = result.get("best")
    if not best:
        raise ConfigError("invalid configuration: tunelab.plot.traces: the report has no chosen arm")
    x = np.asarray(best["samples"], dtype=np.float64).reshape(-1, int(best["dim"]))
    dims = list(dims) if dims is not None else list(range(min(max_dims, x.shape[1])))
    fig, axes = _figure(len(dims), 1, figsize=(7.0, 1.8 * len(dims) + 0.8))
    label = _arm_label(best, int(best.get("arm", 0)))
    for ax, j in zip(axes, dims):
        ax.plot(np.arange(x.shape[0]), x[:, j], linewidth=0.7, label=f"x{j}")
        ax.set_ylabel(f"x{j}")
        ax.legend(loc="upper right", fontsize=7)
    axes[-1].set_xlabel("kept draw")
    fig.suptitle(f"{name + ': ' if name else ''}traces of the chosen arm ({label})")
    return fig


def tvo(report: Dict[str, Any]) -> "Figure":
    """TVO: test log p(x) after each window per method, and the integrand E_pi_beta[w] over beta at the end of
    training with each method's last schedule (the points the TVO sum uses)."""
    _, result = _result(report, ("tvo",), "tvo")
    fig, (curve, integrand) = _figure(1, 2)
    for run in result["runs"]:
        label = run["method"] + (f" #{run['repeat']}" if run.get("repeat") else "")
        epochs = [w["epoch"] for w in run["windows"]]
        (line,) = curve.plot(epochs, [_finite(w.get("test_log_px")) for w in run["windows"]], marker="o",
                             markersize=3, label=label)
        ys = run["integrand"]
        betas = [i / (len(ys) - 1) for i in range(len(ys))] if len(ys) > 1 else [0.0]
        integrand.plot(betas, ys, color=line.get_color(), label=label)
        if run["windows"]:
            sched = run["windows"][-1]["schedule"]
            at = [ys[min(len(ys) - 1, round(b * (len(ys) - 1)))] for b in sched]
            integrand.plot(sched, at, linestyle="none", marker="|", markersize=10, color=line.get_color())
    curve.set_xlabel("epoch")
    curve.set_ylabel("test log p(x) (IWAE bound)")
    curve.set_title("TVO: test log p(x) by epoch")
    curve.legend(fontsize=8, title="method")
    integrand.set_xlabel("beta")
    integrand.set_ylabel("E_pi_beta[log w]")
    integrand.set_title("Integrand at the end of training (|: last schedule)")
    integrand.legend(fontsize=8, title="method")
    return fig


def hoag(report: Dict[str, Any], *, x: str = "cost") -> "Figure":
    """HOAG and its baselines: suboptimality (outer loss minus the reference optimum) against ``x`` (``cost``,
    ``seconds`` or ``iter``) per method, log scale; and, for one hyperparameter, the validation landscape with
    each method's iterates."""
    _, result = _result(report, ("hoag",), "hoag")
    land = result.get("landscape")
    one_d = bool(land) and len(land.get("axes", [])) == 1
    fig, axes = _figure(1, 2 if one_d else 1)
    sub = axes[0]
    for m in result["methods"]:
        pts = [(p[x], p["suboptimality"]) for p in m["trace"] if p.get("suboptimality") is not None]
        sub.plot([p[0] for p in pts], [max(p[1], 1e-16) for p in pts], marker="o", markersize=3, label=m["name"])
    sub.set_yscale("log")
    sub.set_xlabel({"cost": "cost (inner-solver gradient evaluations)", "seconds": "seconds", "iter": "outer iteration"}
                   .get(x, x))
    sub.set_ylabel("outer loss − reference optimum")
    sub.set_title(f"HOAG ({result.get('problem', '')}): suboptimality against {x}")
    sub.legend(fontsize=8, title="method")
    if one_d:
        ax = axes[1]
        grid = land["axes"][0]
        ax.plot(grid, land["values"], color="0.3", label="outer loss")
        for m in result["methods"]:
            ax.plot([p["hyper"][0] for p in m["trace"]], [p["outer_loss"] for p in m["trace"]], linestyle="none",
                    marker=".", label=f"{m['name']} iterates")
        names = result.get("hyper_names") or ["hyperparameter"]
        ax.set_xlabel(names[0])
        ax.set_ylabel("outer loss")
        ax.set_title("Landscape and iterates")
        ax.legend(fontsize=8)
    return fig
