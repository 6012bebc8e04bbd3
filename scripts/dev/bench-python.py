#!/usr/bin/env python3
"""Side by side on the same arrays: tunelab's KSD and a MAMBA round's scoring from Python vs SGMCMCJax.

    python scripts/dev/bench-python.py [--repeats 5]

1. KSD (IMQ, c = 1, beta = -1/2, V-statistic: SGMCMCJax's ``imq_KSD``) of n = 1,000 samples in d = 10:
   ``tunelab.ksd`` vs ``sgmcmcjax.ksd.imq_KSD`` (compiled once; the first call is reported apart).
2. Scoring one MAMBA round: 56 arms x 1,000 samples in d = 10 under the paper's KSD:
   ``tunelab.Mamba(56, ..., kernel="plain").tell`` (all arms, in parallel, GIL released) vs ``imq_KSD`` per arm.

Median of --repeats wall-clock runs on this machine. SGMCMCJax is optional: without it only tunelab's
column is printed. The arrays are Gaussian draws with their exact scores (seed 0).
"""

import argparse
import os
import statistics
import time

import numpy as np

import tunelab


def timed(f, repeats):
    out, ts = None, []
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    return out, statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    n, d, arms = 1000, 10, 56
    xs = [rng.normal(size=(n, d)) * (1 + 0.01 * k) for k in range(arms)]
    gs = [-x for x in xs]
    x, g = xs[0], gs[0]

    try:
        import jax
        import jax.numpy as jnp
        from sgmcmcjax.ksd import imq_KSD
        have_jax = True
    except Exception as e:  # ImportError, or a broken JAX install
        have_jax = False
        why = f"{type(e).__name__}: {e}"

    print(f"machine: {os.cpu_count()} cores; numpy {np.__version__}; tunelab {tunelab.__version__}")
    k_tl, t_tl = timed(lambda: tunelab.ksd(x, g), a.repeats)

    def round_tl():
        m = tunelab.Mamba(arms, 1.0, 3, kernel="plain")
        m.ask()
        m.tell({k: (xs[k], gs[k]) for k in range(arms)})
        return m.report()["arms"][0]["scores"][0]

    r_tl, tr_tl = timed(round_tl, a.repeats)
    print(f"{'':44s} {'tunelab':>12s} {'SGMCMCJax':>12s} {'ratio':>7s}")
    if have_jax:
        xj, gj = jnp.asarray(x), jnp.asarray(g)
        t0 = time.perf_counter()
        k_j = float(imq_KSD(xj, gj))
        first = time.perf_counter() - t0
        _, t_j = timed(lambda: float(imq_KSD(xj, gj)), a.repeats)
        xjs, gjs = [jnp.asarray(v) for v in xs], [jnp.asarray(v) for v in gs]
        r_j, tr_j = timed(lambda: [float(imq_KSD(xjs[k], gjs[k])) for k in range(arms)][0], a.repeats)
        print(f"{'KSD, n = 1,000, d = 10 (ms)':44s} {1e3 * t_tl:12.2f} {1e3 * t_j:12.2f} {t_j / t_tl:6.1f}x")
        print(f"{'MAMBA round: score 56 arms x 1,000 (ms)':44s} {1e3 * tr_tl:12.2f} {1e3 * tr_j:12.2f} {tr_j / tr_tl:6.1f}x")
        print(f"SGMCMCJax first call (compilation): {1e3 * first:.0f} ms; jax {jax.__version__} "
              f"(default float32 unless JAX_ENABLE_X64=1)")
        print(f"values: tunelab KSD {k_tl:.6f}, SGMCMCJax {k_j:.6f}; "
              f"round arm 0: tunelab sqrt(KSD^2) {r_tl:.6f}, SGMCMCJax {r_j:.6f}")
    else:
        print(f"{'KSD, n = 1,000, d = 10 (ms)':44s} {1e3 * t_tl:12.2f} {'-':>12s}")
        print(f"{'MAMBA round: score 56 arms x 1,000 (ms)':44s} {1e3 * tr_tl:12.2f} {'-':>12s}")
        print(f"SGMCMCJax not available ({why}): comparison skipped")


if __name__ == "__main__":
    main()
