"""MAMBA tuning BlackJAX's SGLD through tunelab's ask/tell interface (needs `pip install blackjax`).

The same problem, arms and budget as `mamba_numpy.py` (simulated logistic regression, N = 1,000, d = 5:
a small stand-in for the paper's problem), with the chains run by BlackJAX's `sgld` (its
`sgmcmc.gradients.grad_estimator` minibatch gradient; THIN steps at a time compiled with `jax.jit`). Run with
BlackJAX 1.7.1 (`init(position)`, `step(rng_key, position, minibatch, step_size)`) and JAX 0.10.2 on CPU; it
is not run by the tests (BlackJAX is not installed in CI) — `mamba_numpy.py` is.

    python examples/python/mamba_blackjax.py

Output (2-core machine shared with other jobs, 41 s wall, most of it JAX compilation):

    round 0: 9 arms x 300000 gradient evaluations, pruned [0, 1, 2, 4, 5, 6]
    round 1: 3 arms x 900000 gradient evaluations, pruned [3, 7]
    best arm: 8 {'step': 0.0001, 'batch': 0.03} score 0.22694463632335582

`mamba_numpy.py` picks the same arm (score 0.2294; its chains use numpy's random streams, so the pruned sets of
the first rounds differ).
"""

import sys
from functools import partial

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


@partial(jax.jit, static_argnums=(3, 4))
def _steps(theta, key, h, b, n):
    """``n`` SGLD steps with minibatches of ``b`` points (without replacement), compiled once per (b, n)."""

    def body(_, carry):
        theta, key = carry
        key, k_batch, k_step = jax.random.split(key, 3)
        idx = jax.random.choice(k_batch, N, (b,), replace=False)
        return SGLD.step(k_step, theta, (XJ[idx], YJ[idx]), h), key

    return jax.lax.fori_loop(0, n, body, (theta, key))


def run_arm(arm, budget, state, rng_seed):
    """tunelab.mamba_run contract: this round's samples (thinned by 10), their full-data scores, the new state."""
    b = max(1, int(round(arm["batch"] * N)))
    if state is None:
        state = (SGLD.init(jnp.asarray(THETA_MAP)), jax.random.PRNGKey(rng_seed[0] * 1000 + rng_seed[1]))
    theta, key = state
    iters = int(budget // b)
    kept = []
    for _ in range(iters // THIN):
        theta, key = _steps(theta, key, arm["step"], b, THIN)
        kept.append(np.asarray(theta))
    if iters % THIN:
        theta, key = _steps(theta, key, arm["step"], b, iters % THIN)
    samples = np.array(kept) if kept else np.zeros((0, len(THETA_MAP)))
    ok = np.all(np.isfinite(samples), axis=1)
    samples = samples[: int(np.argmin(ok)) if not ok.all() else len(samples)]  # stop at a diverged state
    return samples, (grad_log_post(samples) if len(samples) else samples), (theta, key)


if __name__ == "__main__":
    report = tunelab.mamba_run(ARMS, run_arm, BUDGET, eta=3, seed=0)
    for r in report["rounds"]:
        print(f"round {r['round']}: {len(r['arms'])} arms x {r['budget']:.0f} gradient evaluations, pruned {r['pruned']}")
    print("best arm:", report["best"], report["best_arm"], "score", report["best_score"])
