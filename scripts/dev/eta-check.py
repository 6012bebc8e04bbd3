"""How good is the progress ETA? Runs a preset (default tune/paper-logreg) through tunelab.run with a progress
callback, records the wall time of every progress event, and compares the ETA a bar would show then
(elapsed x (total - done) / done, as the CLI's and Python's progress lines compute it) with the time the run
actually took from then on. Prints the worst relative error over the events from 10% of the run on.

    python scripts/dev/eta-check.py [KIND/PRESET] [--threads N]

A timing, so it is a script, not a test (the tests check that progress is proportional to the work instead).
"""

import argparse
import time

import tunelab


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="?", default="tune/paper-logreg")
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    seen = []
    start = time.monotonic()

    def progress(e):
        if e["type"] == "progress":
            seen.append((time.monotonic() - start, e["done"], e["total"]))

    report = tunelab.run(args.preset, progress=progress, threads=args.threads)
    end = time.monotonic() - start
    unit = report["compute"]["unit"]
    worst = 0.0
    rows = []
    for t, done, total in seen:
        if total <= 0 or done < 0.1 * total or done >= total:
            continue
        eta = t * (total - done) / done
        actual = end - t
        err = abs(eta - actual) / actual if actual > 0 else 0.0
        worst = max(worst, err)
        rows.append((100 * done / total, t, eta, actual, err))
    print(f"{args.preset}: {end:.2f} s, {len(seen)} progress events in {unit}")
    for pct, t, eta, actual, err in rows[:: max(1, len(rows) // 12)]:
        print(f"  {pct:5.1f}% at {t:6.2f} s: ETA {eta:6.2f} s, took {actual:6.2f} s ({100 * err:4.1f}% off)")
    print(f"worst ETA error from 10% on: {100 * worst:.1f}%")


if __name__ == "__main__":
    main()
