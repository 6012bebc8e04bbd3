"""A Ray Tune scheduler that prunes trials by tunelab's Stein discrepancy.

Any trainable that reports its recent ``samples`` and their ``scores`` (``grad log p`` at the samples, n x d
arrays or nested lists) can be tuned::

    from ray import tune
    from tunelab.tune import SteinHalvingScheduler

    def trainable(config):
        state = None
        for step in range(max_t):
            samples, scores, state = run_sampler(config, state)   # one unit of budget
            tune.report({"samples": samples, "scores": scores})

    tune.Tuner(trainable, param_space={...},
               tune_config=tune.TuneConfig(scheduler=SteinHalvingScheduler(max_t=27, reduction_factor=3),
                                           num_samples=...)).fit()

The scheduler computes each result's score under one Stein kernel (``tunelab.score_arm``; default the
``per-arm`` kernel of ``tunelab.Mamba``), writes it into the result as ``stein_score`` (lower is better),
and applies asynchronous successive halving (Li et al. 2020, ASHA, Algorithm 2) at the rungs
``grace_period * eta^k <= max_t`` of ``time_attr``: a trial reaching a rung continues only if its score is
among the best ``1/eta`` of the scores recorded at that rung so far. With a fixed set of trials that all reach
a rung before the next is decided, that is MAMBA's rule; ``tunelab.ray.mamba`` keeps the synchronous rounds
exactly.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np
from ray.tune.schedulers import FIFOScheduler, TrialScheduler

import tunelab


class SteinHalvingScheduler(FIFOScheduler):
    """Asynchronous successive halving on ``stein_score`` (see the module doc).

    ``samples_attr`` / ``scores_attr``: the result keys of the samples and scores; ``time_attr``: the budget
    counter (default ``training_iteration``); ``grace_period``, ``reduction_factor`` (eta) and ``max_t``:
    the rungs. Scoring keywords (``kernel``, ``precond_sd``, ``c``, ``beta``, ``scale``, ``estimator``,
    ``max_samples``) as ``tunelab.Mamba``.
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
        self._rungs: List[int] = []
        t = grace_period
        while t <= max_t:
            self._rungs.append(t)
            t *= self._eta
        self._recorded: Dict[int, Dict[str, float]] = {r: {} for r in self._rungs}
        self.stopped: Dict[str, int] = {}

    def set_search_properties(self, metric: Optional[str], mode: Optional[str], **spec) -> bool:
        # The scheduler ranks by its own score (lower is better); a Tuner's metric/mode are for the search.
        return True

    def stein_score(self, result: Dict[str, Any]) -> float:
        """The score of one result (``inf`` when it has no samples or too few)."""
        if self._samples_attr not in result or self._scores_attr not in result:
            return math.inf
        x = np.asarray(result[self._samples_attr], dtype=np.float64)
        g = np.asarray(result[self._scores_attr], dtype=np.float64)
        if x.size == 0:
            return math.inf
        return tunelab.score_arm(self._score_config, x, g)[0]

    def on_trial_result(self, tune_controller, trial, result: Dict) -> str:
        score = self.stein_score(result)
        result["stein_score"] = score
        t = result.get(self._time_attr, 0)
        if t >= self._max_t:
            return TrialScheduler.STOP
        for rung in reversed(self._rungs):
            if t < rung or trial.trial_id in self._recorded[rung]:
                continue
            recorded = self._recorded[rung]
            recorded[trial.trial_id] = score
            ranked = sorted(recorded.values())
            keep = max(1, len(ranked) // self._eta)
            cutoff = ranked[keep - 1]
            if len(ranked) >= self._eta and score > cutoff:
                self.stopped[trial.trial_id] = rung
                return TrialScheduler.STOP
            break
        return TrialScheduler.CONTINUE

    def debug_string(self) -> str:
        sizes = ", ".join(f"{r}: {len(v)}" for r, v in self._recorded.items())
        return f"SteinHalvingScheduler (eta = {self._eta}; rungs {sizes}; stopped {len(self.stopped)})"
