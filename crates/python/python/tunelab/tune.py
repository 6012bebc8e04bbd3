"""A Ray Tune scheduler that prunes trials by tunelab's Stein discrepancy.

A trainable reduces its recent ``samples`` and their ``scores`` (``grad log p`` at the samples, n x d arrays)
to their Stein score inside the trial with ``tunelab.tune.report`` (so Tune's results, logs, checkpoints and
``get_dataframe()`` hold scores only, whatever the size of the samples), and Tune's own metric works::

    from ray import tune
    import tunelab.tune

    sched = tunelab.tune.SteinHalvingScheduler(max_t=27, reduction_factor=3)
    scoring = sched.scoring                                        # the run's Stein kernel, a plain dict

    def trainable(config):
        state = None
        for step in range(max_t):
            samples, scores, state = run_sampler(config, state)   # one unit of budget
            tunelab.tune.report(samples, scores, scoring=scoring)  # reports {"stein_score", "stein_rows"}

    results = tune.Tuner(trainable, param_space={...},
                         tune_config=tune.TuneConfig(metric="stein_score", mode="min", scheduler=sched,
                                                     num_samples=...),
                         run_config=tune.RunConfig(callbacks=[sched.callback])).fit()
    best = results.get_best_result()   # the metric and mode of the TuneConfig
    results.get_dataframe()            # stein_score, stein_rows, stein_rung, stein_pruned columns
    sched.decisions                    # every rung decision: trial index, rung, score, "continue" / "stop"

A trainable may still report raw ``samples`` and ``scores`` (the scheduler then scores them itself, but Tune
stores the samples in every result and ``TuneConfig(metric=...)`` cannot be used).

The scheduler computes each result's score under one Stein kernel (``tunelab.score_arm``; default the
``per-arm`` kernel of ``tunelab.Mamba``; lower is better) and applies successive halving at the rungs
``grace_period * eta^k < max_t`` of ``time_attr`` (ASHA, Li et al. 2020, Algorithm 2, with one change for
determinism): a trial reaching a rung continues only if its score is among the best ``1/eta`` of the scores
recorded at that rung by itself and the trials *added before it* (not the ones that happened to arrive
first, which made ASHA's decisions depend on timing). When an earlier trial has not reached the rung yet, the
decision waits (the trial keeps running) and is made as soon as every earlier trial has reached the rung or
ended before it; a trial decided "stop" is stopped at its next result. So the decisions (``decisions``) are
a function of the trials' scores and their order only: the same for a rerun with the same seeds.

Ray Tune gives a scheduler a copy of each result, so the score reaches Tune's results through a callback:
pass ``run_config=tune.RunConfig(callbacks=[sched.callback])``. It writes ``stein_score``, ``stein_rung``
(the rung this result was recorded at, or -1) and ``stein_pruned`` (1 once the trial is decided "stop",
else 0) into every result, so ``get_best_result(metric="stein_score", mode="min")``, ``get_dataframe()`` and
the logs have them.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from ray.tune import Callback
from ray.tune.schedulers import FIFOScheduler, TrialScheduler

import tunelab

logger = logging.getLogger(__name__)


def report(samples: Any, scores: Any, *, scoring: Optional[Dict[str, Any]] = None, **metrics: Any) -> None:
    """Inside a Ray Tune trainable: reports the Stein score of ``samples`` (n x d) with their ``scores``
    (``grad log p``) as ``stein_score`` (``inf`` for a diverged chain or fewer than 2 rows) and the rows scored
    as ``stein_rows``, plus any other ``metrics``; the samples themselves never reach Tune. ``scoring``: the
    scheduler's kernel (``SteinHalvingScheduler.scoring``; default the ``per-arm`` kernel of
    ``tunelab.Mamba``)."""
    from ray import tune

    cfg = scoring if scoring is not None else tunelab.Mamba(1, 1.0).config
    x = np.asarray(samples, dtype=np.float64)
    g = np.asarray(scores, dtype=np.float64)
    score, rows = (math.inf, 0) if x.size == 0 else tunelab.score_arm(cfg, x, g)
    tune.report({"stein_score": float(score), "stein_rows": int(rows), **metrics})


class _SteinCallback(Callback):
    """Writes the scheduler's score and decisions into Tune's results (Tune lets callbacks edit them)."""

    def __init__(self, scheduler: "SteinHalvingScheduler"):
        self._scheduler = scheduler

    def on_trial_result(self, iteration: int, trials: List[Any], trial: Any, result: Dict, **info: Any) -> None:
        self._scheduler._callback_ran = True
        result.update(self._scheduler._take(trial.trial_id))


class SteinHalvingScheduler(FIFOScheduler):
    """Successive halving on ``stein_score``, deterministic in the trials' order (see the module doc).

    ``samples_attr`` / ``scores_attr``: the result keys of the samples and scores; ``time_attr``: the budget
    counter (default ``training_iteration``); ``grace_period``, ``reduction_factor`` (eta) and ``max_t``:
    the rungs. Scoring keywords (``kernel``, ``precond_sd``, ``c``, ``beta``, ``scale``, ``estimator``,
    ``max_samples``) as ``tunelab.Mamba``.

    ``callback``: the ``tune.Callback`` to pass in ``RunConfig(callbacks=[...])`` so the scores reach Tune's
    results. ``decisions``: one dict per rung decision, ``{"trial": index in the order trials were added,
    "trial_id", "rung", "score", "decision": "continue" | "stop"}``, sorted by trial and rung.
    ``stopped``: trial id -> the rung it was stopped at.
    """

    def __init__(self, time_attr: str = "training_iteration", samples_attr: str = "samples",
                 scores_attr: str = "scores", grace_period: int = 1, reduction_factor: int = 3, max_t: int = 81,
                 **scoring):
        super().__init__()
        if reduction_factor < 2:
            raise tunelab.ConfigError(f"invalid configuration: reduction_factor must be at least 2 (got {reduction_factor})")
        if grace_period < 1 or max_t < grace_period:
            raise tunelab.ConfigError("invalid configuration: need 1 <= grace_period <= max_t")
        self._time_attr = time_attr
        self._samples_attr = samples_attr
        self._scores_attr = scores_attr
        self._eta = int(reduction_factor)
        self._max_t = max_t
        # No Tune metric: the scheduler computes its own score from each result (Tune's strict metric check
        # would otherwise ask the trainable to report ``stein_score`` itself).
        self._metric = None
        # The config of the run's kernel (validated once by building a Mamba over one arm).
        self._score_config = tunelab.Mamba(1, 1.0, self._eta, **scoring).config
        # The decision rungs: a trial at max_t is done, so rungs are below it.
        self._rungs: List[int] = []
        t = grace_period
        while t < max_t:
            self._rungs.append(t)
            t *= self._eta
        self._index: Dict[str, int] = {}                 # trial id -> order added
        self._ids: List[str] = []
        self._recorded: Dict[int, Dict[int, float]] = {r: {} for r in self._rungs}   # rung -> index -> score
        self._pending: Dict[Tuple[int, int], float] = {}  # (index, rung) -> score, decision waiting
        self._decided: Dict[Tuple[int, int], str] = {}    # (index, rung) -> "continue" / "stop"
        self._ended: set = set()                           # indices of trials that ended
        self._out: Dict[str, Dict[str, Any]] = {}          # trial id -> fields for its Tune result
        self._results = 0
        self._callback_ran = False
        self.stopped: Dict[str, int] = {}
        self.callback = _SteinCallback(self)

    def set_search_properties(self, metric: Optional[str], mode: Optional[str], **spec) -> bool:
        # The scheduler ranks by its own score (lower is better); a Tuner's metric/mode are for the search.
        return True

    @property
    def scoring(self) -> Dict[str, Any]:
        """The run's Stein kernel as a plain dict, for ``tunelab.tune.report(..., scoring=...)`` in the trials."""
        return dict(self._score_config)

    def stein_score(self, result: Dict[str, Any]) -> float:
        """The score of one result: its ``stein_score`` when the trial scored itself (``tunelab.tune.report``),
        else the score of its samples (``inf`` when it has no samples or too few)."""
        if result.get("stein_score") is not None:
            return float(result["stein_score"])
        if self._samples_attr not in result or self._scores_attr not in result:
            return math.inf
        x = np.asarray(result[self._samples_attr], dtype=np.float64)
        g = np.asarray(result[self._scores_attr], dtype=np.float64)
        if x.size == 0:
            return math.inf
        return tunelab.score_arm(self._score_config, x, g)[0]

    @property
    def decisions(self) -> List[Dict[str, Any]]:
        rows = [{"trial": i, "trial_id": self._ids[i], "rung": r, "score": self._recorded[r][i], "decision": d}
                for (i, r), d in self._decided.items()]
        return sorted(rows, key=lambda d: (d["trial"], d["rung"]))

    # --- bookkeeping -------------------------------------------------------------------------------------
    def _idx(self, trial) -> int:
        if trial.trial_id not in self._index:
            self._index[trial.trial_id] = len(self._ids)
            self._ids.append(trial.trial_id)
        return self._index[trial.trial_id]

    def _stopped_before(self, i: int, rung: int) -> Optional[bool]:
        """True if trial i was decided "stop" at a rung below ``rung``; None while one of those is pending."""
        for r in self._rungs:
            if r >= rung:
                return False
            d = self._decided.get((i, r))
            if d == "stop":
                return True
            if d is None and (i, r) in self._pending:
                return None
        return False

    def _resolved_for(self, j: int, rung: int) -> Optional[List[float]]:
        """Trial j's contribution at ``rung`` ([score] or []), or None while it is not known yet."""
        stopped = self._stopped_before(j, rung)
        if stopped is None:
            return None
        if stopped:
            return []
        if j in self._recorded[rung]:
            return [self._recorded[rung][j]]
        return [] if j in self._ended else None

    def _resolve(self) -> None:
        changed = True
        while changed:
            changed = False
            for (i, rung), score in sorted(self._pending.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                if self._stopped_before(i, rung) is not False:
                    if self._stopped_before(i, rung):
                        del self._pending[(i, rung)]    # stopped earlier: this rung does not count
                        changed = True
                    continue
                earlier = [self._resolved_for(j, rung) for j in range(i)]
                if any(e is None for e in earlier):
                    continue
                ranked = sorted([s for e in earlier for s in e] + [score])
                keep = max(1, len(ranked) // self._eta)
                stop = len(ranked) >= self._eta and score > ranked[keep - 1]
                del self._pending[(i, rung)]
                self._decided[(i, rung)] = "stop" if stop else "continue"
                if stop:
                    tid = self._ids[i]
                    self.stopped.setdefault(tid, rung)
                    self._out.setdefault(tid, {})["stein_pruned"] = 1
                changed = True

    def _take(self, trial_id: str) -> Dict[str, Any]:
        return self._out.pop(trial_id, {})

    # --- Tune hooks --------------------------------------------------------------------------------------
    def on_trial_add(self, tune_controller, trial) -> None:
        self._idx(trial)
        super().on_trial_add(tune_controller, trial)

    def _end(self, trial) -> None:
        self._ended.add(self._idx(trial))
        self._resolve()

    def on_trial_complete(self, tune_controller, trial, result: Dict) -> None:
        self._end(trial)

    def on_trial_error(self, tune_controller, trial) -> None:
        self._end(trial)

    def on_trial_remove(self, tune_controller, trial) -> None:
        self._end(trial)

    def on_trial_result(self, tune_controller, trial, result: Dict) -> str:
        i = self._idx(trial)
        tid = trial.trial_id
        self._results += 1
        if self._results == 2 and not self._callback_ran:
            logger.warning("SteinHalvingScheduler: stein_score does not reach Tune's results; pass "
                           "run_config=tune.RunConfig(callbacks=[scheduler.callback])")
        score = self.stein_score(result)
        t = result.get(self._time_attr, 0)
        rung_here = -1
        for rung in self._rungs:
            if t >= rung and i not in self._recorded[rung]:
                self._recorded[rung][i] = score
                self._pending[(i, rung)] = score
                rung_here = rung
        self._resolve()
        out = self._out.setdefault(tid, {})
        out.update(stein_score=score, stein_rung=rung_here)
        pruned = tid in self.stopped
        out["stein_pruned"] = 1 if pruned else 0
        if pruned or t >= self._max_t:
            return TrialScheduler.STOP
        return TrialScheduler.CONTINUE

    def debug_string(self) -> str:
        sizes = ", ".join(f"{r}: {len(v)}" for r, v in self._recorded.items())
        return f"SteinHalvingScheduler (eta = {self._eta}; rungs {sizes}; stopped {len(self.stopped)})"
