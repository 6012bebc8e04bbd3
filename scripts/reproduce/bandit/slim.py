#!/usr/bin/env python3
"""Copies `tunelab bandit` and `tunelab step-size` reports into a committed raw-report folder, slimmed: a bandit
report keeps every algorithm's final simple and cumulative regret summaries and its per-repeat recommendations (the
recommended arm, its value and the optimum at the last round, so the simple regret of each repeat is
`optimum - value`), and drops the per-round curves, timings and charts; a step-size report keeps every run's
per-window steps, KSDs and rewards and its tail KSD, and drops the GP posterior chart. The envelope's `compute` is
dropped (these are data for the tables, not reports the page opens). scripts/reproduce/doc_tables.py generates the
GP-UCB and step-size tables of the docs from these files.

Usage: python3 scripts/reproduce/bandit/slim.py DEST_DIR REPORT.json ..."""
import json
import os
import sys

BANDIT_KEEP = ("name", "kind", "final_simple_regret", "final_cumulative_regret", "final_value", "recommended",
               "failures")

dest = sys.argv[1]
os.makedirs(dest, exist_ok=True)
for path in sys.argv[2:]:
    rep = json.load(open(path))
    res = rep["result"]
    if rep["kind"] == "bandit":
        res["last_round"] = res["rounds"][-1]
        res = {k: res[k] for k in ("problem", "config", "last_round", "algorithms")}
        res["algorithms"] = [{k: a[k] for k in BANDIT_KEEP if k in a} for a in res["algorithms"]]
    elif rep["kind"] == "step-size":
        res.pop("gp_posterior", None)
        res.pop("seconds", None)
    else:
        sys.exit(f"{path}: not a bandit or step-size report")
    slim = {k: rep[k] for k in ("format", "kind", "status", "config") if k in rep}
    slim["result"] = res
    with open(os.path.join(dest, os.path.basename(path)), "w") as f:
        json.dump(slim, f, separators=(",", ":"))
        f.write("\n")
