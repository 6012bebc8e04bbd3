import numpy as np, tunelab

prec = np.array([1.0, 100.0])                  # target N(0, diag(1, 0.01)): grad log p(x) = -prec * x
def sgld(step, n, x, rng):                      # your sampler: n Langevin steps from x
    out = np.empty((n, 2))
    for i in range(n):
        x = x - step * prec * x + np.sqrt(2 * step) * rng.normal(size=2)
        out[i] = x
    return out, -prec * out, x                  # samples, scores (grad log p), last state

m = tunelab.Mamba([{"step": float(h)} for h in np.logspace(-4, -1, 9)], budget=3000, eta=3)
last, rng = {}, np.random.default_rng(0)
while (ask := m.ask()) is not None:
    res = {}
    for a in ask.arms:
        x, g, last[a] = sgld(m.arms[a]["step"], int(ask.budget), last.get(a, np.zeros(2)), rng)
        res[a] = (x, g)
    m.tell(res)                                 # a chain that blew up (NaN/inf rows) scores +inf
df = tunelab.to_frame(m.report(), "rounds")     # pandas: one row per arm and round (budget, score)
fig = tunelab.plot.scores(m.report(), labels=[f"h={a['step']:.2g}" for a in m.arms])
m.report()["best_arm"]
