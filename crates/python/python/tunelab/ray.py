"""tunelab sweeps on a Ray cluster: the arms of a MAMBA round, the repeats of a bandit comparison and the seeds
of a table as Ray tasks.

The driver (this process) keeps the successive-halving logic (``tunelab.Mamba``); workers run the chains and
score them with the run's kernel (``tunelab.score_arm``, a pure function of the config), so only scores travel
back, and chain states stay in Ray's object store between rounds. With budgets in gradient evaluations the
report is the same bits as ``tunelab.mamba_run`` on one machine for the same seeds (tests/test_ray.py).

Connect to a cluster first (``ray.init(address="auto")`` on a cluster node, ``ray.init(address="ray://HOST:10001")``
from outside); without ``ray.init`` these functions start a local Ray instance.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

import ray

import tunelab


def _node() -> str:
    return ray.get_runtime_context().get_node_id()


@ray.remote
def _arm_task(run_arm, arm, budget, state, rng_seed, config):
    # Runs on a worker: the user's chain for this round, then the arm's score under the run's kernel.
    x, g, state = run_arm(arm, budget, state, rng_seed)
    score, rows = tunelab.score_arm(config, x, g)
    return (score, rows, _node()), state


@ray.remote
def _run_task(config: str, threads: Optional[int]):
    return tunelab.run(config, threads=threads), _node()


def mamba(arms: Union[int, Sequence[Any]], run_arm: Callable, budget: float, eta: int = 3, *, seed: int = 0,
          num_cpus: float = 1, scheduling_strategy: str = "SPREAD", **scoring) -> Dict[str, Any]:
    """``tunelab.mamba_run`` with the arms of each round as Ray tasks.

    ``run_arm(arm, budget, state, rng_seed) -> (samples, scores, state)`` as in ``tunelab.mamba_run``; it is
    shipped to the workers (define it in an importable module, or register its module with
    ``ray.cloudpickle.register_pickle_by_value``). ``num_cpus`` per task and ``scheduling_strategy``
    (default ``"SPREAD"``: the arms of a round go to different nodes) are Ray task options. Returns the same
    report as ``tunelab.mamba_run``, plus ``report["ray"]["nodes"]``: for each round, the node id each arm
    ran on.
    """
    if not ray.is_initialized():
        ray.init()
    m = tunelab.Mamba(arms, budget, eta, **scoring)
    task = _arm_task.options(num_returns=2, num_cpus=num_cpus, scheduling_strategy=scheduling_strategy)
    run_ref = ray.put(run_arm)
    states: Dict[int, Any] = {}
    nodes: List[Dict[int, str]] = []
    while (ask := m.ask()) is not None:
        refs = {}
        for a in ask.arms:
            refs[a], states[a] = task.remote(run_ref, m.arms[a], ask.budget, states.get(a), [int(seed), a, ask.round],
                                             m.config)
        got = dict(zip(refs, ray.get(list(refs.values()))))
        nodes.append({a: got[a][2] for a in ask.arms})
        for a in m.tell_scored([(a, got[a][0], got[a][1]) for a in ask.arms]):
            states.pop(a, None)
    report = m.report()
    report["ray"] = {"nodes": nodes}
    return report


def bandit_repeats(config: Union[Dict[str, Any], str], parts: Optional[int] = None, *, threads: Optional[int] = 1,
                   num_cpus: float = 1, scheduling_strategy: str = "SPREAD") -> Dict[str, Any]:
    """Runs a bandit comparison with its repeats split into ``parts`` contiguous ranges, one Ray task each
    (default: one task per repeat), and merges the parts' reports on the driver (``tunelab.merge_bandit``).

    Repeat ``r`` uses the random streams it has in a one-machine run, so the result equals
    ``tunelab.run(config)`` bit for bit (wall-clock fields aside), with ``report["ray"]`` added:
    ``{"ranges": [[lo, hi], ...], "nodes": [node id of each range]}``.
    """
    if not ray.is_initialized():
        ray.init()
    full = json.loads(tunelab._config_text(config))
    n = int(tunelab.check(full)["config"]["repeats"])
    parts = n if parts is None else max(1, min(int(parts), n))
    bounds = [round(i * n / parts) for i in range(parts + 1)]
    ranges = [(lo, hi) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
    task = _run_task.options(num_cpus=num_cpus, scheduling_strategy=scheduling_strategy)
    refs = [task.remote(json.dumps(tunelab.with_repeats(full, lo, hi)), threads) for lo, hi in ranges]
    got = ray.get(refs)
    report = tunelab.merge_bandit([r for r, _ in got])
    report["ray"] = {"ranges": [list(r) for r in ranges], "nodes": [node for _, node in got]}
    return report


def seeds(config: Union[Dict[str, Any], str], seeds: Iterable[int], *, threads: Optional[int] = 1,
          num_cpus: float = 1, scheduling_strategy: str = "SPREAD") -> List[Dict[str, Any]]:
    """Runs an experiment config once per seed, one Ray task each (the seeds of a table).

    Returns the report envelopes in seed order; each is what ``tunelab.run(tunelab.with_seed(config, s))``
    returns on one machine (the core's results do not depend on the thread count; ``threads`` sets each
    task's pool, default 1 to match ``num_cpus``), with ``report["ray"]["node"]`` added.
    """
    if not ray.is_initialized():
        ray.init()
    texts = [json.dumps(tunelab.with_seed(config, s)) for s in seeds]
    task = _run_task.options(num_cpus=num_cpus, scheduling_strategy=scheduling_strategy)
    out = []
    for report, node in ray.get([task.remote(t, threads) for t in texts]):
        report["ray"] = {"node": node}
        out.append(report)
    return out
