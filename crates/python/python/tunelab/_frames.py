"""``tunelab.to_frame``: the tables of a report as pandas DataFrames (pandas is an optional dependency)."""

from __future__ import annotations

import importlib
import math
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ._errors import ConfigError


def _pandas() -> Any:
    try:
        # imported by name: pandas stays optional for type checkers too (no pandas-stubs needed)
        pandas = importlib.import_module("pandas")
    except ImportError:
        raise ImportError("tunelab.to_frame needs pandas, an optional dependency: pip install pandas "
                          "(or pip install 'tunelab[pandas]')") from None
    return pandas


def _score(v: Optional[float]) -> float:
    """A report score: ``None`` (+inf: diverged or too few samples) as ``inf``."""
    return math.inf if v is None else float(v)


def _flat(row: Dict[str, Any]) -> Dict[str, Any]:
    """Scalar fields as they are; a list of numbers ``v`` as ``v_0, v_1, ...``; nested dicts and lists of
    dicts are left out (they have tables of their own)."""
    out: Dict[str, Any] = {}
    for k, v in row.items():
        if isinstance(v, dict) or (isinstance(v, list) and v and isinstance(v[0], (dict, list))):
            continue
        if isinstance(v, list):
            out.update({f"{k}_{i}": x for i, x in enumerate(v)})
        else:
            out[k] = v
    return out


# --- tune (and the tune reports inside compare) ---

# An arm's hyperparameters, as Optuna names its trials' parameters (``params_<name>``).
_TUNE_PARAMS = ("step", "batch", "leapfrog")


def tune_arms(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    for a in r["arms"]:
        # (the page's drill-down `draws`, a dict, are not a column)
        row = {"arm": a.get("arm", a.get("id"))}
        row.update({k: v for k, v in a.items() if k not in ("scores", "draws", "arm")})
        row.update({f"params_{k}": a[k] for k in _TUNE_PARAMS if k in a})
        row["rounds_run"] = len(a["scores"])
        row["score"] = _score(a["scores"][-1]) if a["scores"] else math.nan
        rows.append(row)
    return rows


def _round_visits(r: Dict[str, Any]) -> Iterator[Tuple[Dict[str, Any], int, int]]:
    """(round, arm, k) for every arm of every round: the arm's k-th score belongs to that round."""
    seen: Dict[int, int] = {}
    for rnd in r["rounds"]:
        for a in rnd["arms"]:
            k = seen.get(a, 0)
            seen[a] = k + 1
            yield rnd, a, k


def tune_rounds(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    for rnd, a, k in _round_visits(r):
        scores = r["arms"][a]["scores"]
        rows.append({"round": rnd["round"], "arm": a, "budget": rnd["budget"], "unit": rnd.get("unit"),
                     "score": _score(scores[k]) if k < len(scores) else math.nan})
    return rows


def tune_traces(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    best = r.get("best")
    if not best:
        return []
    x = np.asarray(best["samples"], dtype=np.float64).reshape(-1, int(best["dim"]))
    return [{"arm": best["arm"], "draw": i, **{f"x{j}": float(v) for j, v in enumerate(row)}}
            for i, row in enumerate(x)]


TUNE_TABLES: Dict[str, Callable[[Dict[str, Any]], List[Dict[str, Any]]]] = {
    "arms": tune_arms, "rounds": tune_rounds, "traces": tune_traces,
}


def compare_table(table: str) -> Callable[[Dict[str, Any]], List[Dict[str, Any]]]:
    def rows(r: Dict[str, Any]) -> List[Dict[str, Any]]:
        if table == "evaluation":
            return [{"tuner": e["name"], **_flat(e["evaluation"])} for e in r["entries"]]
        # an entry is its tuner's report (flattened) with `name` and `evaluation`
        return [{"tuner": e["name"], **row} for e in r["entries"] for row in TUNE_TABLES[table](e)]
    return rows


# --- bandit ---

def bandit_regrets(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    for alg in r["algorithms"]:
        for i, t in enumerate(r["rounds"]):
            row: Dict[str, Any] = {"algorithm": alg["name"], "round": t}
            for key in ("simple_regret", "cumulative_regret"):
                band = alg[key]
                row[key] = band["mean"][i]
                row[f"{key}_lo"] = band["lo"][i]
                row[f"{key}_hi"] = band["hi"][i]
            rows.append(row)
    return rows


def bandit_arms(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [{"algorithm": alg["name"], **arm} for alg in r["algorithms"]
            for arm in ((alg.get("charts") or {}).get("arms") or [])]


# --- traces of the other kinds ---

def method_traces(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    # hoag and lr-schedule: one row per trace point of each method
    return [{"method": m["name"], **_flat(p)} for m in r["methods"] for p in m["trace"]]


def lr_methods(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    # one row per schedule: its family, final and test loss, divergence, steps, and its learning rates
    return [_flat({k: v for k, v in m.items() if k not in ("trace",)}) for m in r["methods"]]


def hoag_methods(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    for m in r["methods"]:
        row = _flat({k: v for k, v in m.items() if k != "trace"})
        last = m["trace"][-1] if m.get("trace") else {}
        row.update({f"final_{k}": v for k, v in _flat(last).items() if k not in ("iter",)})
        rows.append(row)
    return rows


def step_size_runs(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    for run in ([r["gp_ucb"]] if r.get("gp_ucb") else []) + list(r.get("fixed") or []):
        rows.append({"name": run["name"], "windows": len(run["steps"]), "last_step": run["steps"][-1] if run["steps"] else math.nan,
                     "tail_ksd": _score(run.get("tail_ksd")), "diverged_windows": run.get("diverged_windows", 0),
                     "grad_evals": run.get("grad_evals")})
    return rows


def step_size_traces(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    for run in list(r.get("fixed") or []) + ([r["gp_ucb"]] if r.get("gp_ucb") else []):
        for w, (step, ksd) in enumerate(zip(run["steps"], run["ksd"])):
            rows.append({"name": run["name"], "window": w, "step": step, "ksd": _score(ksd)})
    return rows


# --- tvo ---

def tvo_summary(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    # one row per method: test log p(x) and KL, mean and sd over repeats, and the diverged runs
    return [_flat(m) for m in r["summary"]]


def tvo_windows(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    # one row per run and window: the window's epoch, reward, bounds and its schedule's points (schedule_0..)
    return [{"method": run["method"], "repeat": run.get("repeat", 0), **_flat(w)}
            for run in r["runs"] for w in run["windows"]]


def tvo_integrand(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    # one row per run and beta of the integrand E_pi_beta[log w] at the end of training
    rows = []
    for run in r["runs"]:
        ys = run["integrand"]
        for k, y in enumerate(ys):
            rows.append({"method": run["method"], "repeat": run.get("repeat", 0),
                         "beta": k / (len(ys) - 1) if len(ys) > 1 else 0.0, "integrand": y})
    return rows


# --- Mamba.report() (ask/tell) ---

def _params(desc: Any) -> Dict[str, Any]:
    """An arm description as Optuna-style columns: a dict's scalar entries as ``params_<key>``; anything else
    as one column ``params_arm`` (a number or string as it is, other objects by ``repr``)."""
    if isinstance(desc, dict):
        return {f"params_{k}": v for k, v in desc.items() if isinstance(v, (int, float, str, bool)) or v is None}
    if isinstance(desc, (int, float, str, bool)):
        return {"params_arm": desc}
    return {"params_arm": repr(desc)}


def mamba_arms(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    descs = r.get("arm_params") or [None] * len(r["arms"])
    return [{"arm": a["arm"], **(_params(d) if d is not None else {}), "pruned_round": a["pruned_round"],
             "rounds_run": len(a["scores"]), "score": _score(a["scores"][-1]) if a["scores"] else math.nan}
            for a, d in zip(r["arms"], descs)]


def mamba_rounds(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [{"round": rnd["round"], "arm": a, "budget": rnd["budget"],
             "score": _score(r["arms"][a]["scores"][k]), "rows": r["arms"][a]["samples"][k],
             "pruned": a in rnd["pruned"]} for rnd, a, k in _round_visits(r)]


def to_frame(report: Dict[str, Any], table: Optional[str] = None) -> Any:
    """One table of a report as a pandas DataFrame (pandas is optional: ``pip install pandas``).

    ``report``: an envelope from ``tunelab.run`` or the ``result`` inside it, or ``Mamba.report()``.
    Tables by kind (the first is the default):

    - tune: ``arms`` (one row per arm: step, batch, status, pruned_round, last ``score``, and the arm's
      hyperparameters as Optuna names them: ``params_step``, ``params_batch``, ``params_leapfrog``),
      ``rounds`` (one row per arm and round: budget, ``score``), ``traces`` (the chosen arm's kept draws:
      ``draw``, ``x0``..);
    - compare: ``arms``, ``rounds``, ``traces`` of every tuner (column ``tuner``) and ``evaluation``;
    - bandit: ``regrets`` (simple and cumulative regret with their bands per algorithm and round), ``arms``;
    - hoag: ``traces`` (one row per trace point of each method), ``methods`` (one row per method, its last
      point as ``final_*``);
    - lr-schedule: ``traces``, ``methods`` (one row per schedule: family, final and test loss, divergence);
    - step-size: ``traces`` (one row per window of each run: step, ksd), ``runs`` (one row per run);
    - tvo: ``summary`` (one row per method: test log p(x) and KL over repeats), ``windows`` (one row per run
      and window: epoch, reward, bounds, ``schedule_0``..), ``integrand`` (one row per run and beta);
    - ``Mamba.report()``: ``arms`` (with each arm's description as ``params_*`` columns), ``rounds`` (score,
      rows scored, pruned).

    Rounds are numbered from 0, as in the JSON and ``Mamba.Ask``. Scores that are +inf in the report
    (``None``: diverged or too few samples) are ``inf``.
    """
    from . import _kinds

    pd = _pandas()
    kind, result = _kinds.kind_of(report, "to_frame")
    tables = _kinds.view(kind, "to_frame").tables
    name = table or next(iter(tables))
    if name not in tables:
        raise ConfigError(f"to_frame: a {kind} report has the tables {', '.join(tables)}; not {name!r}")
    return pd.DataFrame(tables[name](result))
