"""A local Ray cluster started by the test (a head and two worker nodes on this machine, 127.0.0.1 only,
bounded in time, torn down): a MAMBA round spread over the workers gives the same report as a local run,
the seeds of a table as Ray tasks equal local runs, and the Ray Tune scheduler prunes by Stein score."""

import importlib.util
import os
import sys
import time

import numpy as np
import pytest

import tunelab

# Loopback only: without this Ray resolves 127.0.0.1 to the machine's address (ray._private.services
# resolve_ip_for_localhost); set before Ray is imported, inherited by the nodes the test starts.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
ray = pytest.importorskip("ray")
import tunelab.ray as tray  # noqa: E402

TIMEOUT = 240  # seconds for the whole module (the cluster's start included)


def load_example(root):
    spec = importlib.util.spec_from_file_location("mamba_numpy", root / "examples" / "python" / "mamba_numpy.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["mamba_numpy"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    start = time.monotonic()
    # The head runs no tasks (num_cpus 0): every arm goes to one of the two worker nodes.
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False,
                                                        "node_ip_address": "127.0.0.1"})
    try:
        for _ in range(2):
            c.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
        c.wait_for_nodes(timeout=120)
        yield c, start
    finally:
        ray.shutdown()
        c.shutdown()


def test_mamba_round_spread_over_workers_equals_local(cluster, root):
    c, start = cluster
    ex = load_example(root)
    ray.cloudpickle.register_pickle_by_value(ex)
    local = tunelab.mamba_run(ex.ARMS, ex.run_arm, ex.BUDGET, eta=3, seed=7)
    spread = tray.mamba(ex.ARMS, ex.run_arm, ex.BUDGET, eta=3, seed=7)
    nodes = spread.pop("ray")["nodes"]
    assert spread == local
    workers = {n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU", 0) > 0}
    assert len(workers) == 2
    # the first round's 9 arms ran on both worker nodes, none on the head
    assert set(nodes[0].values()) == workers
    assert time.monotonic() - start < TIMEOUT


def test_seeds_of_a_table_as_tasks_equal_local_runs(cluster):
    from test_run import strip_times

    reports = tray.seeds("tune/gaussian", [3, 4])
    for r, s in zip(reports, [3, 4]):
        r.pop("ray")
        assert strip_times(r) == strip_times(tunelab.run(tunelab.with_seed("tune/gaussian", s)))


def _tune_run(tmp_path, name):
    from ray import tune
    from tunelab.tune import SteinHalvingScheduler

    def trainable(config):
        rng = np.random.default_rng(int(config["seed"]))
        for _ in range(9):
            x = config["spread"] * rng.normal(size=(100, 2))
            tune.report({"samples": x.tolist(), "scores": (-x).tolist()})

    # Two good samplers first (they set the rungs' bars), then the wrong spreads.
    spreads = [1.0, 0.9, 1.7, 5.0, 0.3, 3.0]
    sched = SteinHalvingScheduler(grace_period=1, reduction_factor=3, max_t=9)
    tuner = tune.Tuner(
        trainable,
        param_space={"spread": tune.grid_search(spreads), "seed": 1},
        tune_config=tune.TuneConfig(scheduler=sched),
        run_config=tune.RunConfig(name=name, storage_path=str(tmp_path), verbose=0, callbacks=[sched.callback]),
    )
    return sched, tuner.fit()


def test_tune_scheduler_prunes_by_stein_score(cluster, tmp_path):
    sched, results = _tune_run(tmp_path, "a")
    iters = {r.config["spread"]: r.metrics["training_iteration"] for r in results}
    ids = {r.metrics["trial_id"]: r.config["spread"] for r in results}
    # the good samplers run to the end; every wrong spread is decided "stop" at the first rung. A trial is
    # stopped at its first result after the decision; when an earlier trial had not reached the rung yet the
    # decision waits and the trial may run further (here sometimes to the end: a report takes microseconds)
    assert iters[1.0] == 9 and iters[0.9] == 9
    assert {ids[t]: r for t, r in sched.stopped.items()} == {1.7: 1, 5.0: 1, 0.3: 1, 3.0: 1}

    # the Stein score is a Tune metric: in every result, the best result and the data frame
    best = results.get_best_result(metric="stein_score", mode="min")
    finals = {r.config["spread"]: r.metrics["stein_score"] for r in results}
    assert best.config["spread"] == min(finals, key=finals.get)
    assert best.config["spread"] in (1.0, 0.9)
    df = results.get_dataframe()
    assert {"stein_score", "stein_rung", "stein_pruned"} <= set(df.columns)
    pruned = dict(zip(df["config/spread"], df["stein_pruned"]))
    assert pruned[1.0] == 0 and pruned[0.9] == 0
    assert all(pruned[s] == 1 for s in (1.7, 5.0, 0.3, 3.0) if iters[s] < 9)
    for r in results:
        hist = r.metrics_dataframe
        assert hist["stein_score"].notna().all() and len(hist) == r.metrics["training_iteration"]
        assert list(hist["stein_rung"])[:1] == [1]

    # the decisions are recorded: trial order, rung, score, decision (trial 2..5 stopped at rung 1)
    d = sched.decisions
    assert [(x["trial"], x["rung"], x["decision"]) for x in d if x["decision"] == "stop"] == [
        (2, 1, "stop"), (3, 1, "stop"), (4, 1, "stop"), (5, 1, "stop")]
    assert {(x["trial"], x["rung"]) for x in d} == {(0, 1), (0, 3), (1, 1), (1, 3), (2, 1), (3, 1), (4, 1), (5, 1)}

    # a rerun with the same seeds makes the same decisions on the same scores
    sched2, results2 = _tune_run(tmp_path, "b")
    strip = lambda ds: [{k: v for k, v in x.items() if k != "trial_id"} for x in ds]
    assert strip(sched2.decisions) == strip(d)
    ids2 = {r.metrics["trial_id"]: r.config["spread"] for r in results2}
    assert {ids2[t]: r for t, r in sched2.stopped.items()} == {ids[t]: r for t, r in sched.stopped.items()}


def test_repeats_of_a_bandit_comparison_as_tasks_equal_one_run(cluster):
    from test_run import strip_times

    cfg = tunelab.preset("bandit", "beta-reservoir")
    cfg.update(rounds=300, repeats=6, checkpoints=20)
    local = tunelab.run(cfg)
    spread = tray.bandit_repeats(cfg, parts=3)
    info = spread.pop("ray")
    assert info["ranges"] == [[0, 2], [2, 4], [4, 6]]
    # the ranges ran on the two worker nodes (the head has no CPU)
    workers = {n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU", 0) > 0}
    assert set(info["nodes"]) <= workers
    assert strip_times(spread) == strip_times(local)
    assert spread["result"]["algorithms"][0]["final_simple_regret"] == local["result"]["algorithms"][0]["final_simple_regret"]


def test_tune_scheduler_decisions_do_not_depend_on_arrival_order():
    # The scheduler alone (no cluster): the same scores arriving in two orders give the same decisions; a
    # decision that waits for an earlier trial keeps the trial running, then stops it at its next result.
    from ray.tune.schedulers import TrialScheduler
    from tunelab.tune import SteinHalvingScheduler

    class Trial:
        def __init__(self, i):
            self.trial_id = f"t{i}"

    rng = np.random.default_rng(0)
    spreads = [1.0, 0.9, 1.1, 4.0, 0.95, 3.0]
    xs = [s * rng.normal(size=(100, 2)) for s in spreads]

    def result(i, t):
        return {"training_iteration": t, "samples": xs[i], "scores": -xs[i]}

    def play(order):
        sched = SteinHalvingScheduler(grace_period=1, reduction_factor=3, max_t=9)
        trials = [Trial(i) for i in range(len(spreads))]
        for t in trials:
            sched.on_trial_add(None, t)
        said = {}
        for i, t in order:
            res = result(i, t)
            said[(i, t)] = sched.on_trial_result(None, trials[i], dict(res))   # Tune passes a copy
            sched.callback.on_trial_result(0, trials, trials[i], res)          # ... and this one is kept
            assert res["stein_score"] == sched.stein_score(res) and res["stein_rung"] == (1 if t == 1 else -1)
            assert res["stein_pruned"] == (said[(i, t)] == TrialScheduler.STOP)
        return [{k: v for k, v in d.items() if k != "trial_id"} for d in sched.decisions], said

    in_order = [(i, 1) for i in range(6)]
    # trial 5 reaches rung 1 before trials 3 and 4 (its decision waits), then reports again
    shuffled = [(0, 1), (1, 1), (2, 1), (5, 1), (3, 1), (4, 1), (5, 2)]
    d1, _ = play(in_order)
    d2, said = play(shuffled)
    assert d1 == d2
    decided = {x["trial"]: x["decision"] for x in d1}
    assert decided[3] == "stop" and decided[5] == "stop"    # spreads 4.0 and 3.0
    assert decided[0] == decided[1] == "continue"           # fewer than eta scores at the rung
    assert said[(5, 1)] == TrialScheduler.CONTINUE      # waiting for trials 3 and 4
    assert said[(5, 2)] == TrialScheduler.STOP          # decided "stop" meanwhile


def test_tune_trials_report_scores_only_and_tunes_metric_agrees_with_mamba(cluster, tmp_path, monkeypatch):
    # The trials reduce their samples to Stein scores themselves (tunelab.tune.report): Tune's results hold
    # scores only, so result.json stays small whatever the samples' size, and TuneConfig(metric=...) works.
    from ray import tune
    import tunelab.tune as ttune

    spreads = [1.0, 1.7, 5.0, 0.3, 3.0, 0.6]     # the target is N(0, I): spread 1.0 is the right sampler
    n, steps = 400, 9

    def draws(spread, seed, rows):
        x = spread * np.random.default_rng(seed).normal(size=(rows, 2))
        return x, -x

    sched = ttune.SteinHalvingScheduler(grace_period=1, reduction_factor=3, max_t=steps)
    scoring = sched.scoring

    def trainable(config):
        for t in range(steps):
            x, g = draws(config["spread"], 1000 * spreads.index(config["spread"]) + t, n)
            ttune.report(x, g, scoring=scoring)

    tuner = tune.Tuner(
        trainable,
        param_space={"spread": tune.grid_search(spreads)},
        tune_config=tune.TuneConfig(metric="stein_score", mode="min", scheduler=sched),
        run_config=tune.RunConfig(name="scores-only", storage_path=str(tmp_path), verbose=0, callbacks=[sched.callback]),
    )
    results = tuner.fit()
    assert not results.errors
    files = list(tmp_path.glob("scores-only/*/result.json"))
    assert len(files) == len(spreads)
    for f in files:
        text = f.read_text()
        # no samples in Tune's results: a few hundred bytes per result
        assert len(text) < 10_000, (f, len(text))
        assert '"samples"' not in text and '"stein_score"' in text and '"stein_rows": 400' in text
    best = results.get_best_result()          # TuneConfig's metric and mode
    # MAMBA over the same six samplers and the same draws (budget: the reports of the survivor)
    m = tunelab.Mamba(spreads, budget=float(steps), eta=3, **{k: v for k, v in scoring.items()
                                                               if k in ("kernel", "max_samples")})
    ran = {a: 0 for a in range(len(spreads))}
    while (ask := m.ask()) is not None:
        told = {}
        for a in ask.arms:
            rows = [draws(spreads[a], 1000 * a + t, n) for t in range(ran[a], ran[a] + int(ask.budget))]
            ran[a] += int(ask.budget)
            told[a] = (rows[-1][0], rows[-1][1])     # the round's last report, as Tune scores each report
        m.tell(told)
    assert m.report()["best_arm"] == best.config["spread"] == 1.0
