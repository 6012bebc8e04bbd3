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
                                                     num_samples=..., reuse_actors=True),
                         run_config=tune.RunConfig(callbacks=[sched.callback])).fit()
    best = results.get_best_result()   # the metric and mode of the TuneConfig
    results.get_dataframe()            # stein_score, stein_rows, stein_rung, stein_pruned columns
    sched.decisions                    # every rung decision: trial index, rung, score, "continue" / "stop"

A trainable may still report raw ``samples`` and ``scores`` (the scheduler then scores them itself, but Tune
stores the samples in every result and ``TuneConfig(metric=...)`` cannot be used).

The scheduler computes each result's score under one Stein kernel (``tunelab.score_arm``; default the
``per-arm`` kernel of ``tunelab.Mamba``; lower is better) and runs synchronous successive halving, MAMBA's
rounds (Mamba, sec. 3, Algorithm 1) on Tune's trials: the rungs are ``grace_period * eta^k < max_t`` of
``time_attr``; every trial that reaches a rung is paused there (``TrialScheduler.PAUSE``) until every trial of
the rung has reached it or ended, then the best ``max(1, n // eta)`` of the rung's ``n`` scores (ties: the
trial added first) continue and the others are stopped, as MAMBA keeps ``floor(|S| / eta)`` arms a round. So
every trial is compared at its rung with every other trial of that rung, the first trial included, and the
decisions (``decisions``) are a function of the trials' scores and their order only: the same for a rerun with
the same seeds, whatever the order the results arrive in. The trials of the first rung are the trials Tune has
added (Tune adds a grid or random search's trials at once, up to 200); with a searcher that suggests trials one
at a time, pass ``num_trials`` so the first rung waits for them all.

A paused trial resumes from its last checkpoint, as with Ray's ``HyperBandScheduler``: report one with
``tunelab.tune.report(..., checkpoint=tune.Checkpoint.from_directory(...))`` (the chain's state) and continue
from ``tune.get_checkpoint()``; without one Tune restarts the trial from its start.

Ray Tune gives a scheduler a copy of each result, so the score reaches Tune's results through a callback:
pass ``run_config=tune.RunConfig(callbacks=[sched.callback])``. It writes ``stein_score``, ``stein_rung``
(the rung this result was recorded at, or -1) and ``stein_pruned`` (1 on a result that arrives after the
trial was decided "stop", else 0; a trial paused at its rung is stopped without another result, so
``stopped`` is the record) into every result, so ``get_best_result(metric="stein_score", mode="min")``, ``get_dataframe()`` and
the logs have them.

Rows of a paused trial: when a paused trial resumes, Ray Tune's JSON logger copies the trial's
``result.json`` (what ``metrics_dataframe`` reads) from the storage path over the driver's copy
(``JsonLoggerCallback.log_trial_start`` -> ``LoggerCallback._restore_from_remote``, Ray 2.60). That copy is the last one Ray's background
sync made, so rows written after it are lost from the file, and with them from the trial's ``metrics_dataframe``;
a sync made before the trial's first result loses its first row (the rung-1 row). The callbacks and
``decisions`` see every result; a ``tune.Callback`` passed after ``callback`` records them as the loggers get them.
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


def report(samples: Any, scores: Any, *, scoring: Optional[Dict[str, Any]] = None, checkpoint: Any = None,
           **metrics: Any) -> None:
    """Inside a Ray Tune trainable: reports the Stein score of ``samples`` (n x d) with their ``scores``
    (``grad log p``) as ``stein_score`` (``inf`` for a diverged chain or fewer than 2 rows) and the rows scored
    as ``stein_rows``, plus any other ``metrics``; the samples themselves never reach Tune. ``scoring``: the
    scheduler's kernel (``SteinHalvingScheduler.scoring``; default the ``per-arm`` kernel of
    ``tunelab.Mamba``). ``checkpoint``: a ``tune.Checkpoint`` reported with the result (the state a paused trial
    resumes from)."""
    from ray import tune

    cfg = scoring if scoring is not None else tunelab.Mamba(1, 1.0).config
    x = np.asarray(samples, dtype=np.float64)
    g = np.asarray(scores, dtype=np.float64)
    score, rows = (math.inf, 0) if x.size == 0 else tunelab.score_arm(cfg, x, g)
    tune.report({"stein_score": float(score), "stein_rows": int(rows), **metrics}, checkpoint=checkpoint)


class _SteinCallback(Callback):
    """Writes the scheduler's score and decisions into Tune's results (Tune lets callbacks edit them)."""

    def __init__(self, scheduler: "SteinHalvingScheduler"):
        self._scheduler = scheduler

    def on_trial_result(self, iteration: int, trials: List[Any], trial: Any, result: Dict, **info: Any) -> None:
        self._scheduler._callback_ran = True
        result.update(self._scheduler._take(trial.trial_id))


class SteinHalvingScheduler(FIFOScheduler):
    """Synchronous successive halving on ``stein_score`` (MAMBA's rounds on Tune's trials; see the module doc).

    ``samples_attr`` / ``scores_attr``: the result keys of the samples and scores; ``time_attr``: the budget
    counter (default ``training_iteration``); ``grace_period``, ``reduction_factor`` (eta) and ``max_t``:
    the rungs; ``num_trials``: the trials of the first rung (default: those Tune has added). Scoring keywords
    (``kernel``, ``precond_sd``, ``c``, ``beta``, ``scale``, ``estimator``, ``max_samples``) as
    ``tunelab.Mamba``.

    ``callback``: the ``tune.Callback`` to pass in ``RunConfig(callbacks=[...])`` so the scores reach Tune's
    results. ``decisions``: one dict per trial and rung it was compared at, ``{"trial": index in the order
    trials were added, "trial_id", "rung", "score", "rank" (0 = best), "of" (trials compared), "decision":
    "continue" | "stop"}``, sorted by trial and rung. ``stopped``: trial id -> the rung it was stopped at.
    """

    def __init__(self, time_attr: str = "training_iteration", samples_attr: str = "samples",
                 scores_attr: str = "scores", grace_period: int = 1, reduction_factor: int = 3, max_t: int = 81,
                 num_trials: Optional[int] = None, **scoring):
        super().__init__()
        if reduction_factor < 2:
            raise tunelab.ConfigError(f"invalid configuration: reduction_factor must be at least 2 (got {reduction_factor})")
        if grace_period < 1 or max_t < grace_period:
            raise tunelab.ConfigError("invalid configuration: need 1 <= grace_period <= max_t")
        if num_trials is not None and num_trials < 1:
            raise tunelab.ConfigError(f"invalid configuration: num_trials must be at least 1 (got {num_trials})")
        self._time_attr = time_attr
        self._samples_attr = samples_attr
        self._scores_attr = scores_attr
        self._eta = int(reduction_factor)
        self._max_t = max_t
        self._num_trials = num_trials
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
        self._trials: Dict[int, Any] = {}                # index -> Tune's trial object
        self._recorded: List[Dict[int, float]] = [{} for _ in self._rungs]   # rung k -> index -> score
        self._survivors: List[List[int]] = []            # rung k decided -> indices that continue
        self._rows: Dict[Tuple[int, int], Dict[str, Any]] = {}   # (index, k) -> decision row
        self._ended: set = set()                           # indices of trials that ended
        self._waiting: set = set()                         # indices paused at a rung not decided yet
        self._unpause: set = set()                         # indices decided "continue" while paused
        self._out: Dict[str, Dict[str, Any]] = {}          # trial id -> fields for its Tune result
        self._controller: Any = None
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
        return sorted(self._rows.values(), key=lambda d: (d["trial"], d["rung"]))

    # --- bookkeeping -------------------------------------------------------------------------------------
    def _idx(self, trial) -> int:
        if trial.trial_id not in self._index:
            self._index[trial.trial_id] = len(self._ids)
            self._ids.append(trial.trial_id)
        i = self._index[trial.trial_id]
        self._trials[i] = trial
        return i

    def _entrants(self, k: int) -> List[int]:
        """The trials compared at rung k: every trial added (k = 0) or the previous rung's survivors."""
        return list(range(len(self._ids))) if k == 0 else self._survivors[k - 1]

    def _ready(self, k: int) -> bool:
        if k != len(self._survivors) or k >= len(self._rungs):
            return False
        if k == 0 and self._num_trials is not None and len(self._ids) < self._num_trials:
            return False
        return all(i in self._recorded[k] or i in self._ended for i in self._entrants(k))

    def _decide(self, current: Optional[int]) -> None:
        """Makes every rung decision that has all its scores (a decision can complete the next rung's)."""
        while self._ready(k := len(self._survivors)):
            rung = self._rungs[k]
            scored = [i for i in self._entrants(k) if i in self._recorded[k]]
            key = lambda i: (self._recorded[k][i] if not math.isnan(self._recorded[k][i]) else math.inf, i)
            ranked = sorted(scored, key=key)
            keep = max(1, len(ranked) // self._eta)
            self._survivors.append(sorted(ranked[:keep]))
            for rank, i in enumerate(ranked):
                stop = rank >= keep
                tid = self._ids[i]
                self._rows[(i, k)] = {"trial": i, "trial_id": tid, "rung": rung, "score": self._recorded[k][i],
                                      "rank": rank, "of": len(ranked), "decision": "stop" if stop else "continue"}
                was_waiting = i in self._waiting
                self._waiting.discard(i)
                if stop:
                    self.stopped.setdefault(tid, rung)
                    self._out.setdefault(tid, {})["stein_pruned"] = 1
                    if i != current and was_waiting and self._controller is not None and i not in self._ended:
                        self._controller.stop_trial(self._trials[i])
                elif i != current and was_waiting:
                    self._unpause.add(i)

    def _take(self, trial_id: str) -> Dict[str, Any]:
        return self._out.pop(trial_id, {})

    # --- Tune hooks --------------------------------------------------------------------------------------
    def on_trial_add(self, tune_controller, trial) -> None:
        self._controller = tune_controller
        self._idx(trial)
        super().on_trial_add(tune_controller, trial)

    def _end(self, tune_controller, trial) -> None:
        self._controller = tune_controller if tune_controller is not None else self._controller
        i = self._idx(trial)
        self._ended.add(i)
        self._waiting.discard(i)
        self._unpause.discard(i)
        self._decide(None)

    def on_trial_complete(self, tune_controller, trial, result: Dict) -> None:
        self._end(tune_controller, trial)

    def on_trial_error(self, tune_controller, trial) -> None:
        self._end(tune_controller, trial)

    def on_trial_remove(self, tune_controller, trial) -> None:
        self._end(tune_controller, trial)

    def choose_trial_to_run(self, tune_controller):
        # New trials first, then the paused trials decided "continue"; a trial paused at a rung that is not
        # decided yet stays paused.
        from ray.tune.experiment import Trial

        for trial in tune_controller.get_trials():
            if trial.status == Trial.PENDING:
                return trial
        for trial in tune_controller.get_trials():
            i = self._index.get(trial.trial_id)
            if trial.status == Trial.PAUSED and (i is None or i in self._unpause):
                return trial
        return None

    def on_trial_result(self, tune_controller, trial, result: Dict) -> str:
        self._controller = tune_controller if tune_controller is not None else self._controller
        i = self._idx(trial)
        tid = trial.trial_id
        self._unpause.discard(i)
        self._results += 1
        if self._results == 2 and not self._callback_ran:
            logger.warning("SteinHalvingScheduler: stein_score does not reach Tune's results; pass "
                           "run_config=tune.RunConfig(callbacks=[scheduler.callback])")
        score = self.stein_score(result)
        t = result.get(self._time_attr, 0)
        rung_here = -1
        # The rung this trial is due at: the first one it has not been compared at.
        k = next((k for k, _ in enumerate(self._rungs) if (i, k) not in self._rows), None)
        if k is not None and t >= self._rungs[k] and i not in self._recorded[k]:
            self._recorded[k][i] = score
            self._waiting.add(i)
            rung_here = self._rungs[k]
        self._decide(i)
        out = self._out.setdefault(tid, {})
        out.update(stein_score=score, stein_rung=rung_here)
        pruned = tid in self.stopped
        out["stein_pruned"] = 1 if pruned else 0
        if pruned or t >= self._max_t:
            return TrialScheduler.STOP
        if i in self._waiting:
            return TrialScheduler.PAUSE
        return TrialScheduler.CONTINUE

    def debug_string(self) -> str:
        sizes = ", ".join(f"{r}: {len(v)}" for r, v in zip(self._rungs, self._recorded))
        return f"SteinHalvingScheduler (eta = {self._eta}; rungs {sizes}; stopped {len(self.stopped)})"
