"""MAMBA tuning BlackJAX's SGLD through tunelab's ask/tell interface (needs `pip install blackjax`).

The same problem, arms and budget as `mamba_numpy.py` (simulated logistic regression, N = 1,000, d = 5:
a small stand-in for the paper's problem), with the chains run by BlackJAX's `sgld` (its
`sgmcmc.gradients.grad_estimator` minibatch gradient). Written against BlackJAX 1.x's `blackjax.sgld`
(`init(position)`, `step(rng_key, position, minibatch, step_size)`); it is not run by the tests (BlackJAX is
not installed in CI) — `mamba_numpy.py` is.

    python examples/python/mamba_blackjax.py
"""

import sys

import numpy as np

import tunelab

try:
    import blackjax
    import jax
    import jax.numpy as jnp
except ImportError:
    sys.exit("this example needs BlackJAX: pip install blackjax")

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from mamba_numpy import ARMS, BUDGET, N, PRIOR_VAR, THETA_MAP, THIN, X, Y, grad_log_post  # noqa: E402

jax.config.update("jax_enable_x64", True)
XJ, YJ = jnp.asarray(X), jnp.asarray(Y)


def logprior(theta):
    return -0.5 * jnp.sum(theta**2) / PRIOR_VAR


def loglik(theta, batch):
    x, y = batch
    z = x @ theta
    return y * z - jnp.logaddexp(0.0, z)


SGLD = blackjax.sgld(blackjax.sgmcmc.gradients.grad_estimator(logprior, loglik, N))


def run_arm(arm, budget, state, rng_seed):
    """tunelab.mamba_run contract: this round's samples (thinned by 10), their full-data scores, the new state."""
    b = max(1, int(round(arm["batch"] * N)))
    if state is None:
        state = (SGLD.init(jnp.asarray(THETA_MAP)), jax.random.PRNGKey(rng_seed[0] * 1000 + rng_seed[1]))
    theta, key = state
    kept = []
    for t in range(int(budget // b)):
        key, k_batch, k_step = jax.random.split(key, 3)
        idx = jax.random.choice(k_batch, N, (b,), replace=False)
        theta = SGLD.step(k_step, theta, (XJ[idx], YJ[idx]), arm["step"])
        if (t + 1) % THIN == 0:
            kept.append(np.asarray(theta))
    samples = np.array(kept) if kept else np.zeros((0, len(THETA_MAP)))
    return samples, (grad_log_post(samples) if len(samples) else samples), (theta, key)


if __name__ == "__main__":
    report = tunelab.mamba_run(ARMS, run_arm, BUDGET, eta=3, seed=0)
    for r in report["rounds"]:
        print(f"round {r['round']}: {len(r['arms'])} arms x {r['budget']:.0f} gradient evaluations, pruned {r['pruned']}")
    print("best arm:", report["best"], report["best_arm"], "score", report["best_score"])
