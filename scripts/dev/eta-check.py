"""How good is the progress ETA? Runs a preset (default tune/paper-logreg) through tunelab.run with a progress
callback, records the wall time of every progress event, and compares the ETA a bar shows then (elapsed x
(total - done) / done, as the CLI's and Python's progress lines compute it) with the time the run actually took
from then on. Events that arrive together (within 5 ms: a round's arm scores) count once, as the bar shows the
last of them. Prints, from 10% of the run's work on, the worst error of the time left (events up to 90%, where
the time left is at least a tenth of the run) and the worst error of the finish time (elapsed + ETA against the
run's wall time, every event).

    python scripts/dev/eta-check.py [KIND/PRESET] [--threads N] [--repeat K] [--fit]

`--fit` also measures the constants of the work model (src/experiments/sgmcmc/plan.rs) on the run: from the
arms' CPU seconds (the report's `arms[].seconds`, iterations and gradient evaluations) the time of an iteration's
own work and of a full-batch gradient evaluation against a minibatch one (least squares of seconds per iteration
on the batch size over the minibatch arms: ITER_TIME = intercept / slope; FULL_BATCH_TIME = the full-batch
arms' seconds per gradient evaluation / slope), and the scores' time per counted unit against the chains'
(SCORE_TIME: the scores' bursts' wall time per unit of the counter over the chains' chunks', times the
SCORE_TIME the counter used; a tune report of a logistic-regression preset, a gradient-evaluation budget).

A timing, so it is a script, not a test: the tests check the progress fraction against the work model instead
(tests/core/experiments/tune.rs progress_counts_the_chains_and_the_scores_in_one_unit, test_run.py).
"""

import argparse
import time

import tunelab


def fit(report, events, score_time):
    """The work model's constants measured on one run (see the module doc)."""
    arms = report["result"]["arms"]
    n_train = max(a["batch"] for a in arms)
    mini = [a for a in arms if a["batch"] < n_train and a["iters"] > 0]
    full = [a for a in arms if a["batch"] >= n_train and a["grad_evals"] > 0]
    # seconds per iteration = intercept + slope x batch, weighted by the arms' iterations
    w = [a["iters"] for a in mini]
    x = [a["batch"] for a in mini]
    y = [a["seconds"] / a["iters"] for a in mini]
    sw = sum(w)
    mx, my = sum(wi * xi for wi, xi in zip(w, x)) / sw, sum(wi * yi for wi, yi in zip(w, y)) / sw
    slope = sum(wi * (xi - mx) * (yi - my) for wi, xi, yi in zip(w, x, y)) / sum(wi * (xi - mx) ** 2 for wi, xi in zip(w, x))
    intercept = my - slope * mx
    full_grad = sum(a["seconds"] for a in full) / sum(a["grad_evals"] for a in full) if full else float("nan")
    # the counter's work in the chains' chunks and in the scores' bursts, and their wall times
    chain_t = chain_w = score_t = score_w = 0.0
    last = None
    for t, done, detail in events:
        kind = detail.get("type")
        if last is not None and kind in ("progress", "arm-scored", "round-finished"):
            dt, dw = t - last[0], done - last[1]
            if kind == "progress" and last[2] in ("progress", "round-started"):
                chain_t, chain_w = chain_t + dt, chain_w + dw
            elif kind != "progress" and last[2] in ("progress", "arm-scored"):
                score_t, score_w = score_t + dt, score_w + dw
        last = (t, done, kind)
    print(f"fit: {1e9 * intercept:.0f} ns per iteration + {1e9 * slope:.2f} ns per minibatch point "
          f"({len(mini)} minibatch arms); full batch {1e9 * full_grad:.2f} ns per point ({len(full)} arms)")
    print(f"fit: ITER_TIME = {intercept / slope:.1f}, FULL_BATCH_TIME = {full_grad / slope:.2f}, "
          f"SCORE_TIME = {score_time * (score_t / score_w) / (chain_t / chain_w):.3f} "
          f"(scores {score_t:.2f} s, chains {chain_t:.2f} s of the run)")


def one(preset, threads):
    seen = []
    events = []
    start = time.monotonic()

    def progress(e):
        if e["type"] == "progress":
            seen.append((time.monotonic() - start, e["done"], e["total"]))
            events.append((seen[-1][0], e["done"], e.get("detail") or {}))

    report = tunelab.run(preset, progress=progress, threads=threads)
    end = time.monotonic() - start
    # the bar's state: the last event of each burst
    shown = [s for k, s in enumerate(seen) if k + 1 == len(seen) or seen[k + 1][0] - s[0] > 0.005]
    rows, left_worst, finish_worst = [], 0.0, 0.0
    for t, done, total in shown:
        if total <= 0 or done < 0.1 * total or done >= total:
            continue
        eta = t * (total - done) / done
        actual = end - t
        left = abs(eta - actual) / actual if actual > 0 else 0.0
        finish = abs(t + eta - end) / end
        finish_worst = max(finish_worst, finish)
        if done <= 0.9 * total and actual >= 0.1 * end:
            left_worst = max(left_worst, left)
        rows.append((100 * done / total, t, eta, actual, left, finish))
    return report, end, len(seen), rows, left_worst, finish_worst, events


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="?", default="tune/paper-logreg")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--fit", action="store_true", help="measure the work model's constants too")
    ap.add_argument("--score-time", type=float, default=0.2, help="the SCORE_TIME of the build (for --fit; src/experiments/sgmcmc/plan.rs)")
    args = ap.parse_args()
    for _ in range(args.repeat):
        report, end, n, rows, left_worst, finish_worst, events = one(args.preset, args.threads)
        print(f"{args.preset}: {end:.2f} s, {n} progress events in {report['compute']['unit']}")
        for pct, t, eta, actual, left, finish in rows[:: max(1, len(rows) // 12)]:
            print(f"  {pct:5.1f}% at {t:6.2f} s: ETA {eta:6.2f} s, took {actual:6.2f} s "
                  f"(time left {100 * left:4.1f}% off, finish {100 * finish:4.1f}% off)")
        print(f"worst ETA error from 10% on: time left {100 * left_worst:.1f}% (to 90%), "
              f"finish time {100 * finish_worst:.1f}%")
        if args.fit:
            fit(report, events, args.score_time)


if __name__ == "__main__":
    main()
