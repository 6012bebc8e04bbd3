"""How good is the progress ETA? Runs a preset (default tune/paper-logreg) through tunelab.run with a progress
callback, records the wall time of every progress event, and compares the ETA a bar shows then (elapsed x
(total - done) / done, as the CLI's and Python's progress lines compute it) with the time the run actually took
from then on. Events that arrive together (within 5 ms: a round's arm scores) count once, as the bar shows the
last of them. Prints, from 10% of the run's work on, the worst error of the time left (events up to 90%, where
the time left is at least a tenth of the run) and the worst error of the finish time (elapsed + ETA against the
run's wall time, every event).

    python scripts/dev/eta-check.py [KIND/PRESET] [--threads N] [--repeat K]

A timing, so it is a script, not a test: the tests check the progress fraction against the work model instead
(tests/core/experiments/tune.rs progress_counts_the_chains_and_the_scores_in_one_unit, test_run.py).
"""

import argparse
import time

import tunelab


def one(preset, threads):
    seen = []
    start = time.monotonic()

    def progress(e):
        if e["type"] == "progress":
            seen.append((time.monotonic() - start, e["done"], e["total"]))

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
    return report, end, len(seen), rows, left_worst, finish_worst


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="?", default="tune/paper-logreg")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    for _ in range(args.repeat):
        report, end, n, rows, left_worst, finish_worst = one(args.preset, args.threads)
        print(f"{args.preset}: {end:.2f} s, {n} progress events in {report['compute']['unit']}")
        for pct, t, eta, actual, left, finish in rows[:: max(1, len(rows) // 12)]:
            print(f"  {pct:5.1f}% at {t:6.2f} s: ETA {eta:6.2f} s, took {actual:6.2f} s "
                  f"(time left {100 * left:4.1f}% off, finish {100 * finish:4.1f}% off)")
        print(f"worst ETA error from 10% on: time left {100 * left_worst:.1f}% (to 90%), "
              f"finish time {100 * finish_worst:.1f}%")


if __name__ == "__main__":
    main()
