"""What Python shows of each experiment kind, in one place: its tables (``to_frame`` / ``Report.frame``), its
chart (``plot.report`` / ``Report.plot``), how a bare ``result`` (without its envelope) is recognised, and the
kind's lines in a report's notebook summary. The kinds themselves are the core's registry (``tunelab.kinds()``:
name, label, progress unit, presets, panel); ``VIEWS`` has one entry per registry kind plus ``mamba``, the
shape of ``Mamba.report()`` (ask/tell, not a registry kind), and ``missing()`` names a registry kind without a
view (the tests check that there is none, so a new kind in the core fails them until it has its view here).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from . import _core
from . import _frames as f
from ._errors import ConfigError

Rows = List[Dict[str, Any]]
Table = Callable[[Dict[str, Any]], Rows]


class View(NamedTuple):
    """One kind's Python view."""

    #: Table name -> rows of a result (the first is ``to_frame``'s default).
    tables: Dict[str, Table]
    #: The ``tunelab.plot`` function that draws the kind's chart (by name: matplotlib stays optional).
    chart: str
    #: Whether a bare result has this kind's shape (tried in ``VIEWS``' order).
    looks_like: Callable[[Dict[str, Any]], bool]
    #: The kind's (label, text) lines in a report's summary, from its result.
    summary: Callable[[Dict[str, Any]], List[Tuple[str, str]]] = lambda r: []


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if v == v and abs(v) != float("inf") else str(v)
    return str(v)


def best_text(b: Optional[Dict[str, Any]]) -> str:
    """A chosen arm in words: its id, parameters and score."""
    if not b:
        return "none"
    parts = [f"arm {b.get('arm')}"]
    params = b.get("params") or {k: b[k] for k in ("step", "batch", "leapfrog") if k in b}
    parts += [f"{k} = {_fmt(v)}" for k, v in params.items()]
    if b.get("score") is not None:
        parts.append(f"score {_fmt(b['score'])}")
    return ", ".join(parts)


def _tune_summary(r: Dict[str, Any]) -> List[Tuple[str, str]]:
    return [("chosen arm", best_text(r["best"]))] if isinstance(r.get("best"), dict) else []


def _compare_summary(r: Dict[str, Any]) -> List[Tuple[str, str]]:
    return [(f"{e.get('name')}: chosen", best_text(e.get("best") or {})) for e in r.get("entries") or []]


def _bandit_summary(r: Dict[str, Any]) -> List[Tuple[str, str]]:
    rows = []
    for a in r.get("algorithms") or []:
        sr = (a.get("simple_regret") or {}).get("mean") or []
        if sr:
            rows.append((str(a.get("name")), f"final simple regret {_fmt(sr[-1])}"))
    return rows


def _lr_summary(r: Dict[str, Any]) -> List[Tuple[str, str]]:
    return [(key.replace("_", " "), f"{r[key].get('name')}: loss {_fmt(r[key].get('final_loss'))}")
            for key in ("best_constant", "best_decay") if isinstance(r.get(key), dict)]


def _tvo_summary(r: Dict[str, Any]) -> List[Tuple[str, str]]:
    rows = []
    for m in r.get("summary") or []:
        if isinstance(m, dict) and "method" in m:
            # one repeat has no spread to show: no "± 0"
            sd = f" ± {_fmt(m.get('log_px_sd'))}" if len(m.get("log_px") or []) > 1 else ""
            rows.append((str(m["method"]), f"test log p(x) {_fmt(m.get('log_px_mean'))}{sd}"))
    return rows


VIEWS: Dict[str, View] = {
    "compare": View({"arms": f.compare_table("arms"), "rounds": f.compare_table("rounds"),
                     "traces": f.compare_table("traces"), "evaluation": f.compare_table("evaluation")},
                    "compare_scores", lambda r: "entries" in r, _compare_summary),
    "bandit": View({"regrets": f.bandit_regrets, "arms": f.bandit_arms}, "regret",
                   lambda r: "algorithms" in r, _bandit_summary),
    "tune": View(dict(f.TUNE_TABLES), "scores", lambda r: "arms" in r and "rounds" in r, _tune_summary),
    "step-size": View({"traces": f.step_size_traces, "runs": f.step_size_runs}, "step_size",
                      lambda r: "gp_ucb" in r),
    "lr-schedule": View({"traces": f.method_traces, "methods": f.lr_methods}, "lr_schedule",
                        lambda r: "methods" in r and "intervals" in r, _lr_summary),
    "hoag": View({"traces": f.method_traces, "methods": f.hoag_methods}, "hoag", lambda r: "methods" in r),
    "tvo": View({"summary": f.tvo_summary, "windows": f.tvo_windows, "integrand": f.tvo_integrand}, "tvo",
                lambda r: "runs" in r and "summary" in r, _tvo_summary),
    # Mamba.report() (ask/tell): recognised by its plan before any of the above (see kind_of)
    "mamba": View({"arms": f.mamba_arms, "rounds": f.mamba_rounds}, "scores",
                  lambda r: "plan" in r and "rounds" in r and "kind" not in r, _tune_summary),
}


def registry() -> List[str]:
    """The core's kinds, in the registry's order."""
    return [k["name"] for k in json.loads(_core.kinds())]


def missing() -> List[str]:
    """Registry kinds that have no view here (none, when Python knows every kind)."""
    return [k for k in registry() if k not in VIEWS]


def kind_of(report: Dict[str, Any], what: str) -> Tuple[str, Dict[str, Any]]:
    """(kind, result) of a report envelope, a bare result or a ``Mamba.report()``; ``what`` names the caller in
    the error for an envelope without a result (a run stopped before it had one)."""
    if VIEWS["mamba"].looks_like(report):
        return "mamba", report
    if "kind" in report and "result" in report:
        if report["result"] is None:
            raise ConfigError(f"{what}: the report has no result (status {report.get('status')!r})")
        return str(report["kind"]), report["result"]
    kind = next((k for k, v in VIEWS.items() if k != "mamba" and v.looks_like(report)), "unknown")
    return kind, report


def view(kind: str, what: str) -> View:
    """The view of ``kind``; a ``ConfigError`` naming the kinds that have one otherwise."""
    v = VIEWS.get(kind)
    if v is None:
        raise ConfigError(f"{what}: no view of a {kind} report (kinds: {', '.join(VIEWS)})")
    return v
