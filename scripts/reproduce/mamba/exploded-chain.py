"""Scores SGHMC chains on the logistic regression with the pieces of the run kernel (see
scripts/reproduce/mamba/exploded-chain.sh). Preconditioner: the Laplace sd at the MAP (Newton), z = x / sd, s_z = s * sd.
Prints, per chain, the chain's sd over the Laplace sd (median over coordinates), mean |s_z|, the IMQ
(c = 1, beta = -1/2) U- and V-statistics as sqrt|KSD^2|, the V-statistic's mean diagonal term, the three
off-diagonal parts of the U-statistic (s.s k, the gradient term, the trace terms), the median distance,
and the moment term |E[s (x - m)^T] + I|_F^2 / d (U-statistic, m = the MAP)."""
import sys
import numpy as np


def load(p):
    return np.loadtxt(p, delimiter=',', skiprows=1)


def laplace(data):
    X, y = data[:, :-1], data[:, -1]
    d = X.shape[1]
    th = np.zeros(d)
    for _ in range(50):
        p = 1 / (1 + np.exp(-X @ th))
        g = X.T @ (y - p) - th / 10
        H = (X * (p * (1 - p))[:, None]).T @ X + np.eye(d) / 10
        th = th + np.linalg.solve(H, g)
    return th, np.sqrt(np.diag(np.linalg.inv(H)))


def imq_parts(z, s, c=1.0, beta=-0.5):
    n, d = z.shape
    u = z[:, None, :] - z[None, :, :]
    r2 = (u ** 2).sum(-1)
    q = c * c + r2
    a = (s @ s.T) * q ** beta
    b = -2 * beta * ((s[:, None, :] - s[None, :, :]) * u).sum(-1) * q ** (beta - 1)
    t = -2 * beta * d * q ** (beta - 1) - 4 * beta * (beta - 1) * r2 * q ** (beta - 2)
    k0 = a + b + t
    off = ~np.eye(n, dtype=bool)
    return dict(U=k0[off].mean(), V=k0.mean(), diag=np.diag(k0).mean(), ss=a[off].mean(), grad=b[off].mean(),
                tr=t[off].mean(), medr=np.sqrt(np.median(r2[off])))


def moment_u(z, s, m):
    n, d = z.shape
    A = s[:, :, None] * (z - m)[:, None, :] + np.eye(d)[None]
    S = A.sum(0)
    return ((S * S).sum() - (A * A).sum()) / (n * (n - 1) * d)


data = load(sys.argv[1])
mp, sd = laplace(data)
print('Laplace sd', np.round(sd, 4))
for f in sys.argv[2:]:
    x = load(f)[-300:]
    g = load(f.replace('.csv', '.scores.csv'))[-300:]
    z, sz = x / sd, g * sd
    p = imq_parts(z, sz)
    mo = moment_u(z, sz, mp / sd)
    print(f'{f}: n {len(x)}, chain sd / Laplace sd {np.median(x.std(0) / sd):.3g}, mean |s_z| {np.abs(sz).mean():.3g}')
    print(f'   IMQ sqrt|U| {np.sqrt(abs(p["U"])):.4f}, sqrt V {np.sqrt(p["V"]):.4f}, V diagonal mean {p["diag"]:.3g}; '
          f'U parts: s.s k {p["ss"]:.3g}, gradient {p["grad"]:.3g}, trace {p["tr"]:.3g}; median distance {p["medr"]:.3g}; '
          f'moment term {mo:.4g}; default (IMQ U + moment) sqrt {np.sqrt(abs(p["U"] + mo)):.4g}')
