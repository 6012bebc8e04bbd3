"""tunelab from Python: Stein discrepancies, the built-in experiments, and MAMBA for your own samplers.

Three uses (README, "Python and clusters"):

- ``tunelab.ksd(samples, scores, ...)`` and ``tunelab.fssd(...)``: the core's kernel and finite-set Stein
  discrepancies on numpy arrays (no copy for C-contiguous float64 arrays; the GIL is released while computing;
  the same bits as ``tunelab ksd`` / ``tunelab fssd`` of the CLI on the same CSV);
- ``tunelab.run(config, progress=...)``: any experiment of the one JSON contract (``kind``: tune, compare,
  bandit, hoag, lr-schedule, step-size), presets via ``tunelab.presets()`` / ``tunelab.preset(kind, name)``;
- ``tunelab.Mamba(arms, budget, eta)``: MAMBA's successive halving in ask/tell form for samplers you write
  (JAX, PyTorch, numpy): ``ask()`` proposes arms and budgets, you run the chains, ``tell()`` scores and prunes.

Distributed versions on Ray: ``tunelab.ray`` (rounds, seeds) and ``tunelab.tune`` (a Ray Tune scheduler).
Errors of the core are raised as ``DataError``, ``ConfigError``, ``NumericalError`` or ``IoError`` (all
``TunelabError``) with the core's message.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._core import ConfigError, DataError, IoError, NumericalError, TunelabError

__version__ = _core.__version__
__all__ = [
    "ksd", "fssd", "run", "check", "presets", "preset", "with_seed", "run_seeds", "Mamba", "mamba_run", "score_arm",
    "with_repeats", "merge_bandit",
    "TunelabError", "DataError", "ConfigError", "NumericalError", "IoError",
]


def _matrix(a: Any, name: str) -> np.ndarray:
    """A C-contiguous float64 2-D view of ``a`` (no copy when it already is one; a 1-D array is one column)."""
    x = np.ascontiguousarray(a, dtype=np.float64)
    if x.ndim == 1:
        x = x.reshape(-1, 1)
    if x.ndim != 2:
        raise DataError(f"data error: {name} must be a 2-D array (n x d), got {x.ndim} dimensions")
    return x


def ksd(samples, scores, c: float = 1.0, beta: float = -0.5, scale: str = "fixed", estimator: str = "v",
        full: bool = False):
    """Kernel Stein discrepancy with the IMQ kernel ``(c^2 + |x-y|^2)^beta`` (Gorham & Mackey 2017).

    ``samples`` and ``scores`` (``grad log p`` at the samples) are ``n x d`` arrays. Options as the CLI's
    ``tunelab ksd``: ``scale`` in ``fixed`` (the given c), ``median`` (c times the median pairwise distance),
    ``median-precond`` (coordinates standardised first); ``estimator`` in ``v``, ``u``, ``linear``. Defaults
    (fixed, c = 1, beta = -1/2, V-statistic) are SGMCMCJax's ``imq_KSD``. Returns the KSD (a float), or with
    ``full=True`` a dict ``{ksd, ksd_sq, n, d, c}``.
    """
    x, g = _matrix(samples, "samples"), _matrix(scores, "scores")
    k, k2, n, d, c_used = _core.ksd(x, g, float(c), float(beta), scale, estimator)
    if full:
        return {"ksd": k, "ksd_sq": k2, "n": n, "d": d, "c": c_used}
    return k


def fssd(samples, scores, locations, gauss_sigma2: Optional[float] = None, imq_c: Optional[float] = None,
         imq_beta: Optional[float] = None, full: bool = False):
    """Squared finite-set Stein discrepancy at ``locations`` (J x d; Jitkrittum et al. 2017, eqs. 3-4).

    Kernel: Gaussian with ``gauss_sigma2``, or IMQ with ``imq_c`` and ``imq_beta``, as the CLI's
    ``tunelab fssd``. Returns FSSD^2 (V-statistic), or with ``full=True`` ``{fssd_sq, fssd_sq_u, j}``.
    """
    x, g, v = _matrix(samples, "samples"), _matrix(scores, "scores"), _matrix(locations, "locations")
    f, fu, j = _core.fssd(x, g, v, gauss_sigma2, imq_c, imq_beta)
    if full:
        return {"fssd_sq": f, "fssd_sq_u": fu, "j": j}
    return f


def presets() -> Dict[str, List[str]]:
    """The built-in presets of every experiment kind: ``{kind: [names]}``."""
    return json.loads(_core.presets())


def preset(kind: str, name: str) -> Dict[str, Any]:
    """The config (a dict, ``kind`` included) of the preset ``name`` of ``kind``."""
    return json.loads(_core.preset(kind, name))


def _config_text(config: Union[Dict[str, Any], str]) -> str:
    if isinstance(config, dict):
        return json.dumps(config)
    if isinstance(config, str):
        text = config.strip()
        if text.startswith("{"):
            return text
        if os.path.exists(config):
            with open(config, encoding="utf-8") as f:
                return f.read()
        if "/" in text and not text.endswith(".json"):
            kind, name = text.split("/", 1)
            return _core.preset(kind, name)
        raise IoError(f"I/O error: cannot read {config}: not a JSON document, a file, or KIND/PRESET")
    raise ConfigError("invalid configuration: config must be a dict, JSON text, a file path or KIND/PRESET")


def check(config: Union[Dict[str, Any], str]) -> Dict[str, Any]:
    """Checks a config once: ``{kind, config (defaults filled), summary, data, unit}``."""
    return json.loads(_core.check(_config_text(config)))


def run(config: Union[Dict[str, Any], str], progress: Optional[Callable[[Dict[str, Any]], Any]] = None, *,
        data: Optional[str] = None, csv: Optional[str] = None, label: str = "y",
        threads: Optional[int] = None) -> Dict[str, Any]:
    """Runs an experiment of any kind and returns its report envelope (a dict).

    ``config``: a dict (the same JSON document as ``tunelab run --config`` and the page), JSON text, a path
    to a JSON file, or ``"KIND/PRESET"`` (for example ``"tune/logreg-small"``). ``progress(event)`` receives
    every event dict (``{"type": "started" | "progress" | "finished", ...}``) on the calling thread.
    ``csv=PATH`` (with ``label``) runs on a CSV file, as ``--data``; ``data=TEXT`` hands CSV text to a config
    whose data source is an upload. ``threads``: the size of the run's thread pool (default: all cores).

    Stopping: Ctrl-C (KeyboardInterrupt) during a run stops it at its next check and **returns** the report
    with ``status == "stopped"`` (and ``reached``: the progress up to the stop), as the CLI writes a partial
    report; it does not raise. An exception raised by ``progress`` also stops the run and is then re-raised.
    Failures of the core raise ``ConfigError``, ``DataError``, ``NumericalError`` or ``IoError``.
    """
    cb = None
    if progress is not None:
        def cb(text: str) -> None:
            progress(json.loads(text))
    out = _core.run(_config_text(config), cb, data, csv, label if csv is not None or data is not None else None,
                    threads)
    return json.loads(out)


def with_seed(config: Union[Dict[str, Any], str], seed: int) -> Dict[str, Any]:
    """The config (a dict) with its seed replaced, as the CLI's ``--seed``."""
    return json.loads(_core.with_seed(_config_text(config), int(seed)))


def with_repeats(config: Union[Dict[str, Any], str], lo: int, hi: int) -> Dict[str, Any]:
    """A bandit config (a dict) that runs only repeats ``lo .. hi - 1`` of its ``repeats``, each with the random
    streams it has in the whole run (``repeat_range`` of the config); its report carries the raw per-repeat
    values that ``merge_bandit`` needs."""
    cfg = json.loads(_config_text(config))
    if cfg.get("kind") != "bandit":
        raise ConfigError(f"invalid configuration: repeat ranges are for bandit configs, not {cfg.get('kind')!r}")
    cfg["repeat_range"] = [int(lo), int(hi)]
    return cfg


def merge_bandit(reports: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Merges the report envelopes of ``run(with_repeats(config, lo, hi))`` over ranges that cover all repeats
    (in any order) into the envelope of ``run(config)``: the same numbers, bit for bit (wall-clock fields
    aside: ``wall_seconds`` and ``seconds`` are the longest part's). Raises ``ConfigError`` when the parts do
    not fit together."""
    if not reports:
        raise ConfigError("invalid configuration: merging bandit reports: no reports given")
    for r in reports:
        if r.get("kind") != "bandit" or r.get("status") != "complete":
            raise ConfigError("invalid configuration: merging bandit reports: every part must be a complete bandit run")
    merged = json.loads(_core.merge_bandit([json.dumps(r["result"]) for r in reports]))
    first = min(reports, key=lambda r: r["config"]["repeat_range"][0])
    out = dict(first)
    out["config"] = {k: v for k, v in first["config"].items() if k != "repeat_range"}
    out["compute"] = dict(first["compute"], wall_seconds=max(r["compute"]["wall_seconds"] for r in reports))
    out["result"] = merged
    return out


def run_seeds(config: Union[Dict[str, Any], str], seeds: Iterable[int], **kwargs) -> List[Dict[str, Any]]:
    """``run`` once per seed on this machine (``tunelab.ray.seeds`` spreads the same runs over a cluster)."""
    return [run(with_seed(config, s), **kwargs) for s in seeds]


def mamba_run(arms: Union[int, Sequence[Any]], run_arm: Callable, budget: float, eta: int = 3, *, seed: int = 0,
              **scoring) -> Dict[str, Any]:
    """A whole MAMBA run over samplers you write, on this machine.

    ``run_arm(arm, budget, state, rng_seed) -> (samples, scores, state)`` runs arm ``arm`` (an entry of
    ``arms``) for ``budget`` more units from ``state`` (``None`` the first time; whatever it returned last
    round otherwise: warm starts) and returns that round's samples and scores (``grad log p`` at them).
    ``rng_seed`` is ``[seed, arm id, round]`` (for ``np.random.default_rng``). Scoring keywords as
    ``Mamba``. Returns ``Mamba.report()``; ``tunelab.ray.mamba`` runs the arms of each round as Ray tasks and
    returns the same report.
    """
    m = Mamba(arms, budget, eta, **scoring)
    states: Dict[int, Any] = {}
    while (ask := m.ask()) is not None:
        results = {}
        for a in ask.arms:
            x, g, states[a] = run_arm(m.arms[a], ask.budget, states.get(a), [int(seed), a, ask.round])
            results[a] = (x, g)
        for a in m.tell(results):
            states.pop(a, None)
    return m.report()


def score_arm(config: Dict[str, Any], samples, scores) -> Tuple[float, int]:
    """``(score, rows scored)`` of one arm under the kernel of a ``Mamba`` config (``Mamba.config``): what
    ``Mamba.tell`` computes, for code that scores where the chains ran (a Ray task, another machine)."""
    return _core.score_arm_with(json.dumps(config), _matrix(samples, "samples"), _matrix(scores, "scores"))


class Mamba:
    """MAMBA (Coullon, South & Nemeth 2023, Algorithm 1) driving samplers written in Python.

    ``arms``: the number of arms, or a sequence of arm descriptions (anything: dicts of step size and batch
    size, sampler objects); arm ids are ``0..M-1`` in that order. ``budget``: R, the budget of the arm that
    survives every round, in your unit (gradient evaluations make results independent of the machine).
    ``eta``: the reduction factor (default 3). Scoring keywords: ``kernel`` (``per-arm``, the default:
    each arm standardised, median length, U-statistic; ``plain``: c = 1, beta = -1/2, V, the paper's KSD;
    ``run``: one preconditioner ``precond_sd`` for the whole run, for example the Laplace sd at the MAP),
    ``c``, ``beta``, ``scale``, ``estimator``, ``max_samples`` (rows scored per arm, thinned evenly; 1000).

    Loop::

        m = tunelab.Mamba(arms, budget=2e7, eta=3)
        while (ask := m.ask()) is not None:
            results = {a: run_chain(m.arms[a], ask.budget) for a in ask.arms}   # (samples, scores) each
            m.tell(results)
        m.report()["best"]

    ``tell`` takes ``{arm: (samples, scores)}`` (or a list of ``(arm, samples, scores)``) for the arms of the
    round; samples are the round's draws of each arm (continue each arm's chain between rounds: warm starts).
    """

    class Ask(tuple):
        """``(round, arms, budget)`` with names."""

        __slots__ = ()

        def __new__(cls, round: int, arms: List[int], budget: float):
            return tuple.__new__(cls, (round, arms, budget))

        round = property(lambda self: self[0])
        arms = property(lambda self: self[1])
        budget = property(lambda self: self[2])

        def __repr__(self) -> str:
            return f"Ask(round={self[0]}, arms={self[1]}, budget={self[2]})"

    def __init__(self, arms: Union[int, Sequence[Any]], budget: float, eta: int = 3, *, kernel: Optional[str] = None,
                 precond_sd: Optional[Iterable[float]] = None, c: Optional[float] = None,
                 beta: Optional[float] = None, scale: Optional[str] = None, estimator: Optional[str] = None,
                 max_samples: int = 1000):
        if isinstance(arms, int):
            self.arms: List[Any] = list(range(arms))
        else:
            self.arms = list(arms)
        cfg: Dict[str, Any] = {"arms": len(self.arms), "budget": float(budget), "eta": int(eta),
                               "max_samples": int(max_samples)}
        for key, value in (("kernel", kernel), ("c", c), ("beta", beta), ("scale", scale),
                           ("estimator", estimator)):
            if value is not None:
                cfg[key] = value
        if precond_sd is not None:
            cfg["precond_sd"] = [float(s) for s in precond_sd]
        self.config = cfg
        self._inner = _core.AskTell(json.dumps(cfg))

    def ask(self) -> Optional["Mamba.Ask"]:
        """The round to run: ``Ask(round, arms, budget)`` (budget per arm, on top of what each arm ran), or
        ``None`` when every round was told. Asking again before ``tell`` returns the same round."""
        a = self._inner.ask()
        return None if a is None else Mamba.Ask(*a)

    def score(self, samples, scores) -> Tuple[float, int]:
        """``(score, rows scored)`` of one arm's samples under the run's kernel (lower is better)."""
        return self._inner.score(_matrix(samples, "samples"), _matrix(scores, "scores"))

    def tell(self, results) -> List[int]:
        """Scores the round's arms and prunes: ``{arm: (samples, scores)}`` or ``[(arm, samples, scores)]``.
        Returns the pruned arm ids."""
        items = results.items() if isinstance(results, dict) else [(r[0], (r[1], r[2])) for r in results]
        rows = [(int(a), _matrix(x, "samples"), _matrix(g, "scores")) for a, (x, g) in items]
        return self._inner.tell(rows)

    def tell_scores(self, scores) -> List[int]:
        """Tells scores computed elsewhere (``{arm: score}`` or ``[(arm, score)]``, for example by
        ``tunelab.score_arm`` in a Ray task). Returns the pruned arm ids."""
        items = scores.items() if isinstance(scores, dict) else scores
        return self._inner.tell_scores([(int(a), float(s)) for a, s in items])

    def tell_scored(self, scored) -> List[int]:
        """Tells ``[(arm, score, rows)]`` as returned by ``score`` / ``score_arm`` where the chains ran; the
        report is then the same as ``tell`` on the samples. Returns the pruned arm ids."""
        return self._inner.tell_scored([(int(a), float(s), int(n)) for a, s, n in scored])

    def plan(self) -> List[Dict[str, Any]]:
        """The planned rounds: ``[{arms, budget, keep}]``."""
        return json.loads(self._inner.plan())

    def report(self) -> Dict[str, Any]:
        """The report so far: config, kernel, plan, rounds (arms, budget, pruned), per-arm scores, best."""
        r = json.loads(self._inner.report())
        if r.get("best") is not None:
            r["best_arm"] = self.arms[r["best"]]
        return r
