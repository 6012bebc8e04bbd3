"""``tunelab.plot``: the page's charts from a report, as matplotlib Figures (matplotlib is an optional
dependency, imported on the first call: ``pip install matplotlib`` or ``pip install 'tunelab[plot]'``).

Every function takes a report (the envelope from ``tunelab.run``, its ``result``, or for ``scores`` a
``Mamba.report()``) and returns a Figure drawn for its data, in the page's visual language:

- ``scores``: score against compute per arm (log scales) with MAMBA's bracket (tune, compare,
  ``Mamba.report()``): colour = step size on the page's line ramp, shown as a colour bar; marker and dash =
  batch size; pruned arms faded grey; the chosen arm thick and black and named on the plot; a dashed line where
  each round ended. The batch key sits outside the axes, never over the data;
- ``regret``: a bandit report's simple and cumulative regret per algorithm, the mean with its band;
- ``traces``: the chosen arm's kept draws, one panel per coordinate (tune, compare);
- ``tvo``: TVO's test log p(x) per epoch and the integrand E[w] over beta with each schedule's points;
- ``hoag``: HOAG's suboptimality against cost per method, and the validation landscape with the iterates;
- ``lr_schedule``: each schedule's training loss against step, and the learning rates it used;
- ``step_size``: GP-UCB's step size and KSD per window beside the fixed steps' KSD;
- ``compare_scores``: every tuner of a comparison, one ``scores`` panel each;
- ``report``: the chart of any report's kind (what ``Report.plot()`` draws).

Keys go outside the plot areas (below them or on the figure's right); series get distinct colour and dash pairs (up to
40 before any repeats); tick labels are thinned after layout until none overlap (checked from their rendered
extents). Figures are ``matplotlib.figure.Figure`` objects made without pyplot (nothing accumulates in
pyplot's figure list) that show themselves in Jupyter when a cell ends with one (``_repr_png_``), and
``fig.savefig("figure.pdf")`` writes a paper figure. ``scores`` also draws into a given ``ax``.

Rounds are numbered from 0 everywhere (JSON, tables, ``Mamba.Ask``, these plots and the CLI's messages).
"""

from __future__ import annotations

import importlib
import io
import math
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from ._errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["scores", "compare_scores", "regret", "traces", "tvo", "hoag", "lr_schedule", "step_size", "report"]

# The page's line ramp for step sizes (www/shared/charts.js lineRamp: every colour at least 3.6:1 on white).
_RAMP = [(0, 32, 77), (72, 56, 150), (160, 52, 140), (205, 80, 60), (200, 110, 0)]
# One marker and dash per batch size (the page's score chart: marker and dash = batch size).
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
_DASHES: List[Any] = ["-", "--", ":", "-."]
_GREY = "#9aa1a9"
_INK = "#3d4650"
# A legend with more entries than this goes outside the axes.
_INSIDE_MAX = 6

_FIGURE_CLASS: Any = None


def _mpl(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ImportError("tunelab.plot needs matplotlib, an optional dependency: pip install matplotlib "
                          "(or pip install 'tunelab[plot]')") from None


def _figure_class() -> Any:
    """A ``Figure`` subclass that displays itself in Jupyter (``_repr_png_``) and fits its tick labels
    whenever it is drawn."""
    global _FIGURE_CLASS
    if _FIGURE_CLASS is None:
        mfigure = _mpl("matplotlib.figure")

        class TunelabFigure(mfigure.Figure):  # type: ignore[misc, name-defined]
            """A matplotlib Figure that Jupyter shows as a PNG when a cell ends with it."""

            def _repr_png_(self) -> bytes:
                buf = io.BytesIO()
                self.savefig(buf, format="png", dpi=100)
                return buf.getvalue()

        _FIGURE_CLASS = TunelabFigure
    return _FIGURE_CLASS


def _figure(nrows: int = 1, ncols: int = 1, **kw: Any) -> Tuple["Figure", List["Axes"]]:
    cls = _figure_class()
    fig = cls(figsize=kw.pop("figsize", (6.4 * ncols, 4.2 * nrows)), layout="constrained")
    # The Agg canvas: text extents can be measured (tick fitting) and savefig / Jupyter need no pyplot.
    _mpl("matplotlib.backends.backend_agg").FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [a for row in axes for a in row]


def _ramp(t: float) -> Tuple[float, float, float]:
    """The page's line ramp at ``t`` in [0, 1]."""
    t = min(1.0, max(0.0, t)) * (len(_RAMP) - 1)
    i = min(int(t), len(_RAMP) - 2)
    f = t - i
    a, b = _RAMP[i], _RAMP[i + 1]
    return tuple((a[k] + f * (b[k] - a[k])) / 255.0 for k in range(3))  # type: ignore[return-value]


def _cmap() -> Any:
    colors = _mpl("matplotlib.colors")
    return colors.LinearSegmentedColormap.from_list("tunelab-step", [_ramp(i / 8) for i in range(9)])


def _style(i: int, n: int) -> Dict[str, Any]:
    """Colour and dash of series ``i`` of ``n``: tab10 colours, then tab20's; past 20 series each colour
    comes back with another dash, so 40 series are all distinct pairs."""
    palette = list(_mpl("matplotlib").colormaps["tab10" if n <= 10 else "tab20"].colors)
    return {"color": palette[i % len(palette)], "linestyle": _DASHES[(i // len(palette)) % len(_DASHES)]}


def _legend(ax: "Axes", title: Optional[str] = None, where: str = "upper") -> None:
    """The key of ``ax``'s lines, outside the plot areas on the figure's right (``where``: ``upper`` or
    ``lower``, for a second key), in columns of at most 22 entries: never over the data."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    fig = ax.get_figure()
    ncol = max(1, math.ceil(len(handles) / 22))
    small = 8 if len(handles) <= _INSIDE_MAX else 7
    fig.legend(handles, labels, loc=f"outside right {where}", fontsize=small, title=title, title_fontsize=small,
               ncol=ncol, frameon=False)


def _every(base: Any, k: int) -> Any:
    """A tick locator keeping every ``k``-th tick of ``base``."""
    ticker = _mpl("matplotlib.ticker")

    class Every(ticker.Locator):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self.base, self.k = base, k

        def set_axis(self, axis: Any) -> None:
            super().set_axis(axis)
            self.base.set_axis(axis)

        def __call__(self) -> Any:
            return self.base()[:: self.k]

        def tick_values(self, vmin: float, vmax: float) -> Any:
            return self.base.tick_values(vmin, vmax)[:: self.k]

    return Every()


def _overlaps(labels: List[Any], renderer: Any, pad: float = 2.0) -> bool:
    boxes = [t.get_window_extent(renderer) for t in labels]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            if a.x0 < b.x1 + pad and b.x0 < a.x1 + pad and a.y0 < b.y1 + pad and b.y0 < a.y1 + pad:
                return True
    return False


def tick_labels(axis: Any) -> List[Any]:
    """The tick labels of an axis that are drawn (visible, non-empty, inside the view), major and minor."""
    lo, hi = sorted(axis.get_view_interval())
    out = []
    for which, ticks in (("major", axis.get_major_ticks()), ("minor", axis.get_minor_ticks())):
        locs = axis.get_majorticklocs() if which == "major" else axis.get_minorticklocs()
        for tick, loc in zip(ticks, locs):
            for lab in (tick.label1, tick.label2):
                if lab.get_visible() and lab.get_text() and lo - 1e-12 * abs(lo) <= loc <= hi + 1e-12 * abs(hi):
                    out.append(lab)
    return out


def _fit_ticks(fig: "Figure") -> "Figure":
    """Thins tick labels after layout until no two labels of an axis overlap: minor labels of a log axis go
    first, then every other major tick, and so on."""
    ticker = _mpl("matplotlib.ticker")
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":
                axis.set_minor_formatter(ticker.NullFormatter())
    for _ in range(6):
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        crowded = []
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                labels = tick_labels(axis)
                if len(labels) > 1 and _overlaps(labels, renderer):
                    crowded.append(axis)
        if not crowded:
            break
        for axis in crowded:
            loc = axis.get_major_locator()
            k = getattr(loc, "k", 1)
            axis.set_major_locator(_every(getattr(loc, "base", loc), k + 1))
    return fig


def _result(report: Dict[str, Any], kinds: Sequence[str], what: str) -> Tuple[str, Dict[str, Any]]:
    """(kind, result) of an envelope or a bare result; a clear error for another kind or a run without one."""
    from ._kinds import kind_of

    kind, result = kind_of(report, f"tunelab.plot.{what}")
    if kind not in kinds:
        raise ConfigError(f"tunelab.plot.{what} draws {', '.join(kinds)} reports, not a {kind} report")
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
    raise ConfigError(f"tunelab.plot: the keyword argument tuner={tuner!r} names no tuner of this comparison "
                      f"(tuners: {', '.join(names)})")


def _finite(v: Optional[float]) -> float:
    return math.nan if v is None or not math.isfinite(v) else float(v)


def _g(x: float) -> str:
    """A step size as the page writes it: 3 significant digits."""
    return f"{x:.3g}"


def _arm_label(arm: Dict[str, Any], i: int) -> str:
    if "step" in arm:
        batch = arm.get("batch")
        return f"h={_g(arm['step'])}" + (f", b={batch}" if batch is not None else "")
    return f"arm {arm.get('arm', i)}"


def _best_arm(best: Any) -> Optional[int]:
    if isinstance(best, dict):
        a = best.get("arm")
        return int(a) if a is not None else None
    return int(best) if isinstance(best, int) else None


def scores(report: Dict[str, Any], *, tuner: Optional[str] = None, ax: Optional["Axes"] = None,
           legend: bool = True, labels: Optional[Sequence[str]] = None) -> "Figure":
    """Score against compute per arm, with the bracket (a tune or compare report, or ``Mamba.report()``).

    Each arm is a line through its scores, at the compute it had run when scored (the cumulative budget of
    the rounds it took part in, in the config's budget unit). Colour: the arm's step size on the page's ramp
    (the colour bar); marker and dash: its batch size (the key outside the axes, right); pruned arms are
    faded grey with a cross where they were pruned; the chosen arm is thick and black and named on the plot;
    a dashed line marks the end of each round (labelled ``round 0``, ``round 1``, ... as in the JSON). Arms
    without step sizes (``Mamba.report()`` over your own arms) take distinct colours, named by ``labels``
    (default ``arm i``). Scores of diverged arms (+inf) are left out. ``tuner`` picks a comparison's tuner
    (default the first). ``legend=False`` draws no key and no colour bar (for small multiples).
    """
    kind, result = _result(report, ("tune", "compare", "mamba"), "scores")
    name = None
    if kind == "compare":
        name, result = _entry(result, tuner)
    arms: List[Dict[str, Any]] = result["arms"]
    descs = result.get("arm_params")
    if kind == "mamba" and isinstance(descs, list) and len(descs) == len(arms):
        # Mamba.report() over arms described by dicts with a step (and batch): drawn as the built-in tuner's
        arms = [dict(a, **{k: d[k] for k in ("step", "batch") if isinstance(d, dict) and isinstance(d.get(k), (int, float))})
                for a, d in zip(arms, descs)]
    rounds: List[Dict[str, Any]] = result["rounds"]
    chosen = _best_arm(result.get("best"))
    unit = next((r.get("unit") for r in rounds if r.get("unit")), None) or ("rows" if kind == "mamba" else "budget")
    metric = str(result.get("metric", "ksd" if kind == "mamba" else "score"))
    if ax is None:
        fig, (ax,) = _figure(figsize=(7.6, 4.6))
        own = True
    else:
        fig = ax.get_figure()
        own = False
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
    steps = [float(a["step"]) for a in arms if isinstance(a.get("step"), (int, float)) and a["step"] > 0]
    by_step = len(steps) == len(arms) and len(arms) > 0
    batches = sorted({a.get("batch") for a in arms if a.get("batch") is not None}, reverse=True)
    lo, hi = (math.log10(min(steps)), math.log10(max(steps))) if by_step else (0.0, 0.0)
    positive = True
    for i, arm in enumerate(arms):
        ys = [_finite(s) for s in arm["scores"]]
        x = xs.get(i, [])[: len(ys)]
        if not x or all(math.isnan(y) for y in ys):
            continue  # never scored, or diverged in every round it ran (+inf): nothing to draw
        positive = positive and all(y > 0 for y in ys if not math.isnan(y))
        is_chosen = chosen == i
        pruned = arm.get("pruned_round")
        bi = batches.index(arm["batch"]) if arm.get("batch") in batches else 0
        if by_step:
            color: Any = _ramp((math.log10(arm["step"]) - lo) / (hi - lo) if hi > lo else 0.5)
            marker, dash = _MARKERS[bi % len(_MARKERS)], _DASHES[bi % len(_DASHES)]
        else:
            st = _style(i, len(arms))
            color, marker, dash = st["color"], "o", st["linestyle"]
        label = labels[i] if labels is not None else _arm_label(arm, i)
        kw: Dict[str, Any] = dict(marker=marker, markersize=3.5, linestyle=dash, label=label)
        if is_chosen:
            kw.update(color="black", linewidth=2.6, markersize=5, zorder=4)
        elif pruned is not None:
            kw.update(color=_GREY if by_step else color, alpha=0.45, linewidth=0.8, zorder=2,
                      markerfacecolor=color, markeredgecolor=color)
        else:
            kw.update(color=color, linewidth=1.3, zorder=3)
        ax.plot(x, ys[: len(x)], **kw)
        if pruned is not None and pruned < len(x) and not math.isnan(ys[pruned]):
            ax.plot([x[pruned]], [ys[pruned]], marker="x", markersize=6, color=_GREY, linestyle="none", zorder=2)
        if is_chosen:
            k = max(j for j in range(len(x)) if not math.isnan(ys[j]))
            ax.annotate(f"chosen: {label}", (x[k], ys[k]), xytext=(-8, 14), textcoords="offset points",
                        ha="right", va="bottom", fontsize=8, fontweight="bold",
                        bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="0.6", alpha=0.9),
                        arrowprops=dict(arrowstyle="-", color="0.3", lw=0.8), zorder=5)
    for k, end in enumerate(ends):
        ax.axvline(end, color="0.55", linestyle="--", linewidth=0.7, zorder=1)
        ax.annotate(f"round {k}", (end, 1.0), xycoords=("data", "axes fraction"), xytext=(0, 2),
                    textcoords="offset points", rotation=90, ha="center", va="bottom", fontsize=7, color="0.35")
    ax.set_xscale("log")
    if positive:
        ax.set_yscale("log")
    ax.set_xlabel(f"{unit} per arm")
    ax.set_ylabel(f"{metric.upper()} (lower is better)")
    tuner_name = name or str(result.get("tuner", "MAMBA"))
    n_rounds = len(rounds)
    ax.set_title(f"{tuner_name}: {metric.upper()} against compute, {len(arms)} arm{'s' * (len(arms) != 1)}, "
                 f"{n_rounds} round{'s' * (n_rounds != 1)}", fontsize=10, pad=26)
    if legend:
        lines = _mpl("matplotlib.lines")
        handles: List[Any] = []
        if by_step:
            colors = _mpl("matplotlib.colors")
            cm = _mpl("matplotlib.cm")
            sm = cm.ScalarMappable(norm=colors.LogNorm(10 ** lo, 10 ** hi) if hi > lo else colors.LogNorm(10 ** lo / 2, 10 ** lo * 2),
                                   cmap=_cmap())
            cbar = fig.colorbar(sm, ax=ax, pad=0.02, fraction=0.05, aspect=30)
            cbar.set_label("step size h")
            for bi, b in enumerate(batches):
                handles.append(lines.Line2D([], [], color=_INK, marker=_MARKERS[bi % len(_MARKERS)],
                                            linestyle=_DASHES[bi % len(_DASHES)], label=f"batch {b}"))
        else:
            handles += [h for h in ax.get_legend_handles_labels()[0]]
        handles.append(lines.Line2D([], [], color="black", linewidth=2.6, label="chosen arm"))
        handles.append(lines.Line2D([], [], color=_GREY, alpha=0.6, marker="x", label="pruned (x: when)"))
        handles.append(lines.Line2D([], [], color="0.55", linestyle="--", linewidth=0.7, label="end of a round"))
        ncol = min(6, len(handles)) if by_step else min(6, max(1, math.ceil(len(handles) / 5)))
        engine = fig.get_layout_engine()
        if own or (engine is not None and type(engine).__name__ == "ConstrainedLayoutEngine"):
            # outside the axes, below them: never over the data
            fig.legend(handles=handles, loc="outside lower center", ncol=ncol, fontsize=7, frameon=False)
        else:
            ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                      fontsize=7, frameon=False)
    if own:
        _fit_ticks(fig)
    return fig


def regret(report: Dict[str, Any], *, log: bool = False) -> "Figure":
    """A bandit report's simple and cumulative regret per algorithm: the mean over repeats and its band."""
    _, result = _result(report, ("bandit",), "regret")
    t = result["rounds"]
    fig, axes = _figure(1, 2, figsize=(11.0, 4.2))
    algs = result["algorithms"]
    band_z = result.get("config", {}).get("band", 1.96)
    for ax, key, title in zip(axes, ("simple_regret", "cumulative_regret"), ("Simple regret", "Cumulative regret")):
        for i, alg in enumerate(algs):
            band = alg[key]
            st = _style(i, len(algs))
            (line,) = ax.plot(t, band["mean"], label=alg["name"], linewidth=1.2, **st)
            ax.fill_between(t, band["lo"], band["hi"], color=line.get_color(), alpha=0.15, linewidth=0)
        ax.set_xlabel("round")
        ax.set_ylabel(title.lower())
        ax.set_title(f"{title} ({result.get('problem', 'bandit')})", fontsize=10)
        if log:
            ax.set_yscale("symlog", linthresh=1e-3)
    _legend(axes[1], title=f"band: mean ± {band_z:g} se")
    return _fit_ticks(fig)


def traces(report: Dict[str, Any], *, tuner: Optional[str] = None, dims: Optional[Sequence[int]] = None,
           max_dims: int = 4) -> "Figure":
    """The chosen arm's kept draws, one panel per coordinate (``dims``, default the first ``max_dims``)."""
    import numpy as np

    kind, result = _result(report, ("tune", "compare"), "traces")
    name = None
    if kind == "compare":
        name, result = _entry(result, tuner)
    best = result.get("best")
    if not best or "samples" not in best:
        raise ConfigError("tunelab.plot.traces: the report has no chosen arm with samples")
    x = np.asarray(best["samples"], dtype=np.float64).reshape(-1, int(best["dim"]))
    dims = list(dims) if dims is not None else list(range(min(max_dims, x.shape[1])))
    fig, axes = _figure(len(dims), 1, figsize=(7.0, 1.8 * len(dims) + 0.8))
    label = _arm_label(best, int(best.get("arm", 0)))
    for ax, j in zip(axes, dims):
        ax.plot(np.arange(x.shape[0]), x[:, j], linewidth=0.7, color=_INK)
        ax.set_ylabel(f"x{j}")
    axes[-1].set_xlabel("kept draw")
    fig.suptitle(f"{name + ': ' if name else ''}traces of the chosen arm ({label})", fontsize=10)
    return _fit_ticks(fig)


def tvo(report: Dict[str, Any]) -> "Figure":
    """TVO: test log p(x) after each window per method, and the integrand E_pi_beta[w] over beta at the end of
    training with each method's last schedule (the points the TVO sum uses)."""
    _, result = _result(report, ("tvo",), "tvo")
    fig, (curve, integrand) = _figure(1, 2, figsize=(11.0, 4.2))
    runs = result["runs"]
    for i, run in enumerate(runs):
        label = run["method"] + (f" #{run['repeat']}" if run.get("repeat") else "")
        st = _style(i, len(runs))
        epochs = [w["epoch"] for w in run["windows"]]
        curve.plot(epochs, [_finite(w.get("test_log_px")) for w in run["windows"]], marker="o",
                   markersize=3, label=label, **st)
        ys = run["integrand"]
        betas = [k / (len(ys) - 1) for k in range(len(ys))] if len(ys) > 1 else [0.0]
        integrand.plot(betas, ys, label=label, **st)
        if run["windows"] and ys:
            sched = run["windows"][-1]["schedule"]
            at = [ys[min(len(ys) - 1, round(b * (len(ys) - 1)))] for b in sched]
            integrand.plot(sched, at, linestyle="none", marker="|", markersize=10, color=st["color"])
    curve.set_xlabel("epoch")
    curve.set_ylabel("test log p(x) (IWAE bound)")
    curve.set_title("TVO: test log p(x) by epoch", fontsize=10)
    integrand.set_xlabel("beta")
    integrand.set_ylabel("E_pi_beta[log w]")
    integrand.set_title("Integrand at the end of training (|: last schedule)", fontsize=10)
    _legend(curve, title="method")
    return _fit_ticks(fig)


def hoag(report: Dict[str, Any], *, x: str = "cost") -> "Figure":
    """HOAG and its baselines: suboptimality (outer loss minus the reference optimum) against ``x`` (``cost``,
    ``seconds`` or ``iter``) per method, log scale; and, for one hyperparameter, the validation landscape with
    each method's iterates."""
    if x not in ("cost", "seconds", "iter"):
        raise ConfigError(f"tunelab.plot.hoag: the keyword argument x must be 'cost', 'seconds' or 'iter', not {x!r}")
    _, result = _result(report, ("hoag",), "hoag")
    land = result.get("landscape")
    one_d = bool(land) and len(land.get("axes", [])) == 1
    fig, axes = _figure(1, 2 if one_d else 1, figsize=(11.0 if one_d else 6.4, 4.2))
    sub = axes[0]
    methods = result["methods"]
    for i, m in enumerate(methods):
        pts = [(p[x], p["suboptimality"]) for p in m["trace"] if p.get("suboptimality") is not None]
        sub.plot([p[0] for p in pts], [max(p[1], 1e-16) for p in pts], marker="o", markersize=3, label=m["name"],
                 **_style(i, len(methods)))
    sub.set_yscale("log")
    sub.set_xlabel({"cost": "cost (inner-solver gradient evaluations)", "seconds": "seconds", "iter": "outer iteration"}[x])
    sub.set_ylabel("outer loss − reference optimum")
    sub.set_title(f"HOAG ({result.get('problem', '')}): suboptimality against {x}", fontsize=10)
    _legend(sub, title="method")
    if one_d:
        ax = axes[1]
        grid = land["axes"][0]
        ax.plot(grid, land["values"], color="0.3", label="outer loss")
        for i, m in enumerate(methods):
            ax.plot([p["hyper"][0] for p in m["trace"]], [p["outer_loss"] for p in m["trace"]], linestyle="none",
                    marker=".", color=_style(i, len(methods))["color"], label=f"{m['name']} iterates")
        names = result.get("hyper_names") or ["hyperparameter"]
        ax.set_xlabel(names[0])
        ax.set_ylabel("outer loss")
        ax.set_title("Landscape and iterates", fontsize=10)
        _legend(ax, where="lower")
    return _fit_ticks(fig)


def lr_schedule(report: Dict[str, Any], *, log: bool = True) -> "Figure":
    """Learning-rate schedules: each method's training loss against step (left; log scale with ``log``) and
    the learning rate it used at each step (right, log scale). The best constant and best decay schedules (the
    report's ``best_constant`` / ``best_decay``) are drawn thicker."""
    _, result = _result(report, ("lr-schedule",), "lr_schedule")
    methods = result["methods"]
    fig, (loss, lr) = _figure(1, 2, figsize=(11.0, 4.2))
    best = {(result.get(k) or {}).get("name") for k in ("best_constant", "best_decay")} - {None}
    positive = True
    for i, m in enumerate(methods):
        st = _style(i, len(methods))
        steps = [p["step"] for p in m["trace"]]
        ys = [_finite(p["loss"]) for p in m["trace"]]
        positive = positive and all(y > 0 for y in ys if not math.isnan(y))
        width = 2.2 if m["name"] in best else 1.0
        label = m["name"] + (" (diverged)" if m.get("diverged") else "")
        loss.plot(steps, ys, linewidth=width, label=label, **st)
        lr.plot(steps, [p["lr"] for p in m["trace"]], linewidth=width, label=label, **st)
    if log and positive:
        loss.set_yscale("log")
    lr.set_yscale("log")
    loss.set_xlabel("step")
    loss.set_ylabel("training loss")
    loss.set_title(f"Learning-rate schedules: loss ({len(methods)} method{'s' * (len(methods) != 1)})", fontsize=10)
    lr.set_xlabel("step")
    lr.set_ylabel("learning rate")
    lr.set_title("Learning rate used (thick: best constant and best decay)", fontsize=10)
    _legend(loss, title="method")
    return _fit_ticks(fig)


def step_size(report: Dict[str, Any]) -> "Figure":
    """GP-UCB step-size tuning: the step size GP-UCB chose in each window (left, log scale) and the KSD of
    each window for GP-UCB and each fixed step (right, log scale; diverged windows left out)."""
    _, result = _result(report, ("step-size",), "step_size")
    gp = result["gp_ucb"]
    fixed = result.get("fixed") or []
    fig, (steps, ksd) = _figure(1, 2, figsize=(11.0, 4.2))
    w = list(range(len(gp["steps"])))
    steps.plot(w, gp["steps"], marker="o", markersize=3, color="black", label=gp["name"])
    for i, f in enumerate(fixed):
        if f["steps"]:
            steps.axhline(f["steps"][0], linewidth=0.8, **_style(i, len(fixed)))
    steps.set_yscale("log")
    steps.set_xlabel("window")
    steps.set_ylabel("step size h")
    steps.set_title("GP-UCB's step size per window (lines: fixed steps)", fontsize=10)
    runs = [gp] + list(fixed)
    for i, run in enumerate(runs):
        ys = [_finite(k) for k in run["ksd"]]
        st = {"color": "black", "linestyle": "-", "linewidth": 2.0} if i == 0 else dict(_style(i - 1, len(fixed)), linewidth=1.0)
        ksd.plot(list(range(len(ys))), ys, marker="o", markersize=3, label=run["name"], **st)
    ksd.set_yscale("log")
    ksd.set_xlabel("window")
    ksd.set_ylabel("KSD (lower is better)")
    ksd.set_title("KSD per window", fontsize=10)
    _legend(ksd, title="run")
    return _fit_ticks(fig)


def compare_scores(report: Dict[str, Any], *, tuner: Optional[str] = None, **kwargs: Any) -> "Figure":
    """A comparison's chart: every tuner's ``scores``, one panel each with one shared key; with ``tuner=``,
    that tuner's ``scores`` alone."""
    if tuner is not None:
        return scores(report, tuner=tuner, **kwargs)
    _, result = _result(report, ("compare",), "compare_scores")
    names = [e["name"] for e in result["entries"]]
    n = len(names)
    ncols = min(n, 2)
    nrows = math.ceil(n / ncols)
    fig, axes = _figure(nrows, ncols, figsize=(6.6 * ncols, 4.4 * nrows))
    for ax, name in zip(axes, names):
        scores(report, tuner=name, ax=ax, legend=False)
    for ax in axes[n:]:
        ax.set_visible(False)
    return _fit_ticks(fig)


def report(report: Dict[str, Any], **kwargs: Any) -> "Figure":
    """The chart of a report's kind (its view in ``tunelab._kinds``): ``scores`` (tune, ``Mamba.report()``),
    ``compare_scores`` (compare), ``regret`` (bandit), ``hoag``, ``lr_schedule``, ``step_size``, ``tvo``.
    Keywords go to that function."""
    from ._kinds import kind_of, view

    kind, _ = kind_of(report, "tunelab.plot.report")
    draw = globals()[view(kind, "tunelab.plot.report").chart]
    return draw(report, **kwargs)  # type: ignore[no-any-return]
