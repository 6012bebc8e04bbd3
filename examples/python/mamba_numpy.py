"""MAMBA tuning an SGLD sampler written in plain numpy, with tunelab's ask/tell interface.

The problem is the paper's kind at a small size (a substitution, stated here): Bayesian logistic regression
on simulated data, N = 1,000 points, d = 5, x ~ N(0, I), prior N(0, 10 I). The sampler is SGLD in
SGMCMCJax's convention (theta += h * grad_estimate + sqrt(2 h) * xi), started at the MAP; arms are 3 step
sizes x 3 batch fractions; budgets are gradient evaluations (data points touched), so the result does not
depend on the machine. Each round's samples are thinned by 10 and scored with full-data gradients, as the
authors' code does.

    python examples/python/mamba_numpy.py            # one machine
    python examples/python/mamba_numpy.py --ray      # the arms of each round as Ray tasks (ray.init())

Both print the same report (tests/test_asktell.py and tests/test_ray.py check it).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

import tunelab

N, D, PRIOR_VAR, THIN = 1000, 5, 10.0, 10
# Arms: (step size, batch fraction). Budget R of the surviving arm, in gradient evaluations.
ARMS = [{"step": h, "batch": f} for h in (1e-2, 1e-3, 1e-4) for f in (1.0, 0.1, 0.03)]
BUDGET = 1.2e6


def make_data(seed: int = 0):
    """Simulated logistic-regression data (the same for every arm and worker)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, D))
    theta = rng.normal(size=D)
    y = (rng.random(N) < 1.0 / (1.0 + np.exp(-x @ theta))).astype(np.float64)
    return x, y


X, Y = make_data()


def grad_log_post(theta: np.ndarray, idx=None) -> np.ndarray:
    """Gradient of the log posterior (rows of theta), full data or the minibatch ``idx`` rescaled by N/b."""
    # einsum without BLAS: the same bits whatever the BLAS thread count (a Ray worker runs with 1 thread).
    theta = np.atleast_2d(theta)
    x, y = (X, Y) if idx is None else (X[idx], Y[idx])
    p = 1.0 / (1.0 + np.exp(-np.einsum("ij,kj->ik", theta, x)))
    return -theta / PRIOR_VAR + (N / len(y)) * np.einsum("ik,kj->ij", y - p, x)


def map_estimate() -> np.ndarray:
    """The MAP by Newton's method (a few steps from 0)."""
    theta = np.zeros(D)
    for _ in range(25):
        p = 1.0 / (1.0 + np.exp(-X @ theta))
        h = (X * (p * (1 - p))[:, None]).T @ X + np.eye(D) / PRIOR_VAR
        theta = theta + np.linalg.solve(h, grad_log_post(theta)[0])
    return theta


THETA_MAP = map_estimate()


def run_arm(arm, budget, state, rng_seed):
    """Runs one arm's SGLD chain for ``budget`` more gradient evaluations (``tunelab.mamba_run`` contract).

    ``state`` is ``None`` the first time (start at the MAP), else ``(theta, rng)`` from the last round.
    Returns this round's samples thinned by 10, their full-data scores and the new state.
    """
    b = max(1, int(round(arm["batch"] * N)))
    theta, rng = state if state is not None else (THETA_MAP.copy(), np.random.default_rng(rng_seed[:2]))
    iters = int(budget // b)
    h = arm["step"]
    kept = []
    for t in range(iters):
        idx = None if b == N else rng.choice(N, size=b, replace=False)
        theta = theta + h * grad_log_post(theta, idx)[0] + np.sqrt(2 * h) * rng.normal(size=D)
        if not np.all(np.isfinite(theta)):
            break
        if (t + 1) % THIN == 0:
            kept.append(theta)
    samples = np.array(kept) if kept else np.zeros((0, D))
    scores = grad_log_post(samples) if len(samples) else np.zeros((0, D))
    return samples, scores, (theta, rng)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ray", action="store_true", help="run the arms of each round as Ray tasks")
    ap.add_argument("--address", default=None, help="Ray cluster address (default: start a local one)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.ray:
        import ray
        import tunelab.ray as tray

        ray.init(address=a.address)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        report = tray.mamba(ARMS, run_arm, BUDGET, eta=3, seed=a.seed)
    else:
        report = tunelab.mamba_run(ARMS, run_arm, BUDGET, eta=3, seed=a.seed)
    for r in report["rounds"]:
        print(f"round {r['round']}: {len(r['arms'])} arms x {r['budget']:.0f} gradient evaluations, pruned {r['pruned']}")
    print("best arm:", report["best"], report["best_arm"], "score", report["best_score"])
    return report


if __name__ == "__main__":
    json.dumps(main()["best"])
