"""A local Ray cluster started by the test (a head and two worker nodes on this machine, 127.0.0.1 only,
bounded in time, torn down): a MAMBA round spread over the workers gives the same report as a local run,
the seeds of a table as Ray tasks equal local runs, and the Ray Tune scheduler prunes by Stein score."""

import importlib.util
import math
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


def _resumable(step, steps):
    """A trainable that reports a checkpoint (its next step) with every result and resumes from it, as a paused
    trial must: ``step(config, t, checkpoint)`` reports step ``t``'s result."""
    def trainable(config):
        import json
        import tempfile
        from ray import tune

        start = 0
        if (ck := tune.get_checkpoint()) is not None:
            with ck.as_directory() as d:
                with open(os.path.join(d, "step.json")) as f:
                    start = json.load(f)["step"]
        for t in range(start, steps):
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, "step.json"), "w") as f:
                    json.dump({"step": t + 1}, f)
                step(config, t, tune.Checkpoint.from_directory(d))
    return trainable


def _tune_run(tmp_path, name):
    from ray import tune
    from tunelab.tune import SteinHalvingScheduler

    def step(config, t, ck):
        # the draws of step t depend on the seed and t only, so a resumed trial continues the same stream
        x = config["spread"] * np.random.default_rng(1000 * int(config["seed"]) + t).normal(size=(100, 2))
        tune.report({"samples": x.tolist(), "scores": (-x).tolist()}, checkpoint=ck)

    spreads = [1.0, 0.9, 1.7, 5.0, 0.3, 3.0]
    sched = SteinHalvingScheduler(grace_period=1, reduction_factor=3, max_t=9)
    seen = _Seen()
    tuner = tune.Tuner(
        _resumable(step, 9),
        param_space={"spread": tune.grid_search(spreads), "seed": 1},
        tune_config=tune.TuneConfig(scheduler=sched, reuse_actors=True),
        # `seen` after the scheduler's callback: every result as Tune's own loggers receive it
        run_config=tune.RunConfig(name=name, storage_path=str(tmp_path), verbose=0,
                                  callbacks=[sched.callback, seen]),
    )
    return sched, tuner.fit(), seen


def _Seen():
    """A Tune callback that keeps, per trial id, every result the callbacks receive (in order)."""
    from ray.tune import Callback

    class Seen(Callback):
        def __init__(self):
            self.results = {}

        def on_trial_result(self, iteration, trials, trial, result, **info):
            self.results.setdefault(trial.trial_id, []).append(dict(result))

    return Seen()


def test_tune_scheduler_compares_every_trial_at_its_rung(cluster, tmp_path):
    sched, results, seen = _tune_run(tmp_path, "a")
    assert not results.errors
    iters = {r.config["spread"]: r.metrics["training_iteration"] for r in results}
    ids = {r.metrics["trial_id"]: r.config["spread"] for r in results}
    # rung 1 compares all six trials (the first one included) and keeps 6 // 3 = 2; rung 3 compares those two
    # and keeps one, which runs to max_t. Every trial stops at the rung it lost at: it waited there (paused)
    # for the others instead of running on.
    stopped = {ids[t]: r for t, r in sched.stopped.items()}
    assert sorted(stopped.values()) == [1, 1, 1, 1, 3]
    winner = next(s for s in iters if s not in stopped)
    assert {s for s, r in stopped.items() if r == 3} | {winner} == {1.0, 0.9}
    assert iters == {s: stopped.get(s, 9) for s in iters}
    d = sched.decisions
    assert [(x["rung"], x["of"]) for x in d if x["trial"] == 0][:1] == [(1, 6)]
    assert sorted((x["rung"], x["of"], x["decision"]) for x in d) == sorted(
        [(1, 6, "continue")] * 2 + [(1, 6, "stop")] * 4 + [(3, 2, "continue"), (3, 2, "stop")])

    # the Stein score is a Tune metric: in every result, the best result and the data frame
    best = results.get_best_result(metric="stein_score", mode="min")
    assert best.config["spread"] in (1.0, 0.9)
    df = results.get_dataframe()
    assert {"stein_score", "stein_rung", "stein_pruned"} <= set(df.columns)
    pruned = dict(zip(df["config/spread"], df["stein_pruned"]))
    # a result after the decision says "stop" (the trial that completed the rung); a trial paused at its rung is
    # stopped without another result, so `sched.stopped` is the record
    assert all(pruned[s] == 0 for s in iters if s not in stopped)
    assert {s for s in iters if pruned[s] == 1} <= set(stopped)
    # Every result carries the scheduler's fields as Tune's loggers receive it: each trial's first result was
    # recorded at rung 1, later ones at rung 3 or at no rung (-1). Read from the results the callbacks receive, not
    # from `metrics_dataframe`: that is Ray's copy of result.json, and Ray can drop rows of a trial that was paused
    # (see the module doc of tunelab.tune, "rows of a paused trial").
    assert set(seen.results) == set(ids)
    for tid, rows in seen.results.items():
        assert all(math.isfinite(x["stein_score"]) for x in rows)
        assert [x["stein_rung"] for x in rows][:1] == [1]
        assert {x["stein_rung"] for x in rows[1:]} <= {3, -1}
        # every step of the trial reached Tune (a resume from an older checkpoint could repeat one; that is Ray's)
        assert sorted({x["training_iteration"] for x in rows}) == list(range(1, iters[ids[tid]] + 1))
    for r in results:
        hist = r.metrics_dataframe
        assert hist["stein_score"].notna().all()
        assert set(hist["stein_rung"]) <= {1, 3, -1}
    # That the decisions depend on the scores only, not on the order Tune delivers the results in, is
    # test_tune_scheduler_decisions_do_not_depend_on_arrival_order (the scheduler alone; a second Tune run here
    # took 27 s and compared one arrival order with one other).


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
    # trial reaching a rung is paused until every trial of the rung has a score there, the first one included.
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
    shuffled = [(5, 1), (2, 1), (0, 1), (4, 1), (1, 1), (3, 1)]
    d1, said1 = play(in_order)
    d2, said2 = play(shuffled)
    assert d1 == d2
    # every trial was compared with all six at rung 1; the best 6 // 3 = 2 continue
    assert [(x["trial"], x["rung"], x["of"]) for x in d1] == [(i, 1, 6) for i in range(6)]
    decided = {x["trial"]: x["decision"] for x in d1}
    ranked = sorted(range(6), key=lambda i: next(x["score"] for x in d1 if x["trial"] == i))
    assert [i for i in range(6) if decided[i] == "continue"] == sorted(ranked[:2])
    assert decided[3] == decided[5] == "stop"                  # spreads 4.0 and 3.0
    # the first five to arrive wait (paused); the sixth completes the rung and learns its own decision
    for said, order in ((said1, in_order), (said2, shuffled)):
        assert all(said[k] == TrialScheduler.PAUSE for k in order[:-1])
        last = order[-1][0]
        assert said[order[-1]] == (TrialScheduler.CONTINUE if decided[last] == "continue" else TrialScheduler.STOP)


def test_tune_trials_report_scores_only_and_tunes_metric_agrees_with_mamba(cluster, tmp_path):
    # The trials reduce their samples to Stein scores themselves (tunelab.tune.report): Tune's results hold
    # scores only, so result.json stays small whatever the samples' size, and TuneConfig(metric=...) works.
    # Nine trials, eta 3: rung 1 keeps 3 of 9 and rung 3 keeps 1 of 3, as MAMBA's two rounds over nine arms.
    from ray import tune
    import tunelab.tune as ttune

    spreads = [1.0, 1.7, 5.0, 0.3, 3.0, 0.6, 2.2, 0.45, 8.0]   # the target is N(0, I): spread 1.0 is right
    n, steps = 400, 4

    def draws(a, t):
        x = spreads[a] * np.random.default_rng(1000 * a + t).normal(size=(n, 2))
        return x, -x

    sched = ttune.SteinHalvingScheduler(grace_period=1, reduction_factor=3, max_t=steps)
    scoring = sched.scoring

    def step(config, t, ck):
        x, g = draws(spreads.index(config["spread"]), t)
        ttune.report(x, g, scoring=scoring, checkpoint=ck)

    tuner = tune.Tuner(
        _resumable(step, steps),
        param_space={"spread": tune.grid_search(spreads)},
        tune_config=tune.TuneConfig(metric="stein_score", mode="min", scheduler=sched, reuse_actors=True),
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
        assert '"samples"' not in text and '"stein_score"' in text and f'"stein_rows": {n}' in text
    ids = {r.metrics["trial_id"]: spreads.index(r.config["spread"]) for r in results}
    kept1 = sorted(ids[x["trial_id"]] for x in sched.decisions if x["rung"] == 1 and x["decision"] == "continue")
    ran = {spreads.index(r.config["spread"]): r.metrics["training_iteration"] for r in results}
    best = results.get_best_result()          # TuneConfig's metric and mode

    # MAMBA over the same nine samplers and the same draws: round 0 gives each arm 1 step, round 1 the three
    # survivors 3 more (budget R = 4 = max_t); each round is scored on its last draw, as Tune scores each report.
    m = tunelab.Mamba(spreads, budget=float(steps), eta=3, **{k: v for k, v in scoring.items()
                                                               if k in ("kernel", "max_samples")})
    done = {a: 0 for a in range(len(spreads))}
    rounds = []
    while (ask := m.ask()) is not None:
        rounds.append(sorted(ask.arms))
        told = {}
        for a in ask.arms:
            done[a] += int(ask.budget)
            told[a] = draws(a, done[a] - 1)
        m.tell(told)
    assert len(rounds) == 2 and len(rounds[1]) == 3
    # the same three survive the first rung / round, and the same sampler is chosen
    assert kept1 == rounds[1]
    assert m.report()["best_arm"] == best.config["spread"] == 1.0
    # the chosen trial is the one that ran to max_t; the others stopped at the rung they lost at
    assert ran == {a: (steps if spreads[a] == 1.0 else 3 if a in kept1 else 1) for a in ran}
