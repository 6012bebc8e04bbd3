#!/usr/bin/env python3
"""Exports scikit-learn's small real data sets into data/ once (see data/README.md). Not run by tests."""
from pathlib import Path

from sklearn import datasets

OUT = Path(__file__).resolve().parents[2] / "data"


def dump(name, X, y, cols):
    with open(OUT / f"{name}.csv", "w") as f:
        f.write(",".join(cols + ["y"]) + "\n")
        for row, t in zip(X, y):
            label = repr(float(t)) if isinstance(t, float) else str(int(t))
            f.write(",".join(repr(float(v)) for v in row) + "," + label + "\n")


b = datasets.load_breast_cancer()
dump("breast_cancer", b.data, b.target, [c.replace(" ", "_") for c in b.feature_names])
w = datasets.load_wine()
dump("wine", w.data, w.target, list(w.feature_names))
d = datasets.load_diabetes(scaled=False)
dump("diabetes", d.data, d.target, list(d.feature_names))
