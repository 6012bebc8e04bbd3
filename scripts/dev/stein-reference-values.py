"""Writes tests/data/stein_reference.json: a small sample set with KSD values computed by the
reference implementations (SGMCMCJax `imq_KSD` in float64, stein-thinning `ksd` with the 'id' and
'med' preconditioners). tests/core/numerics/stein.rs checks tunelab against these numbers.

    python -m venv /tmp/v && /tmp/v/bin/pip install numpy scipy stein-thinning "jax[cpu]" sgmcmcjax
    /tmp/v/bin/python scripts/dev/stein-reference-values.py
"""
import json
import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
from sgmcmcjax.ksd import imq_KSD
import stein_thinning.kernel as K
import stein_thinning.stein as S

rng = np.random.default_rng(2026)
n, d = 60, 3
x = rng.normal(size=(n, d)) * np.array([0.5, 1.0, 2.0]) + 0.3
s = -(x - 0.2) / np.array([0.6, 1.0, 1.5]) ** 2 + 0.2 * rng.normal(size=(n, d))
out = {"n": n, "d": d, "samples": x.ravel().tolist(), "scores": s.ravel().tolist(),
       "sgmcmcjax_imq_ksd": float(imq_KSD(jnp.array(x), jnp.array(s)))}
for pre in ["id", "med"]:
    linv = K.make_precon(x, pre)
    out[f"stein_thinning_{pre}"] = float(S.ksd(lambda i, j: K.vfk0_imq(x[i], x[j], s[i], s[j], linv), n)[-1])
with open("tests/data/stein_reference.json", "w") as f:
    json.dump(out, f, indent=1)
print({k: v for k, v in out.items() if not isinstance(v, list)})
