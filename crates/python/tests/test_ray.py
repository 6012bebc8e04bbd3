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


def test_tune_scheduler_prunes_by_stein_score(cluster, tmp_path):
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
        tune_config=tune.TuneConfig(scheduler=sched, max_concurrent_trials=2),
        run_config=tune.RunConfig(storage_path=str(tmp_path), verbose=0),
    )
    results = tuner.fit()
    iters = {r.config["spread"]: r.metrics["training_iteration"] for r in results}
    # the good samplers run to the end; every wrong spread is stopped at the first rung
    assert iters[1.0] == 9 and iters[0.9] == 9
    assert [iters[s] for s in (1.7, 5.0, 0.3, 3.0)] == [1, 1, 1, 1]
    assert len(sched.stopped) == 4


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
