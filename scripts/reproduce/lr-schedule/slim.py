#!/usr/bin/env python3
"""Copies `tunelab lr-schedule` reports into the committed raw-report folder, slimmed: every method's loss trace
and the dynamic tuner's per-decision records and per-run traces are dropped, and so is the envelope's `compute` (so these are
data for the tables, not reports the page opens); each schedule's rates, final and test losses, its
repeats' final losses (repeat 0 is the schedule's single run, as the paper runs each once), the best-of-family
summaries, the tuner's per-schedule ranks and the multi-task record are kept. scripts/reproduce/doc_tables.py
generates the learning-rate tables of the docs from these files.

Usage: python3 scripts/reproduce/lr-schedule/slim.py DEST_DIR REPORT.json ..."""
import json
import os
import sys

dest = sys.argv[1]
os.makedirs(dest, exist_ok=True)
for path in sys.argv[2:]:
    rep = json.load(open(path))
    res = rep["result"]
    res["methods"] = [{k: m[k] for k in ("name", "family", "schedule", "final_loss", "test_loss", "diverged",
                                         "compute_steps", "repeat_finals") if k in m} for m in res["methods"]]
    if res.get("dynamic"):
        res["dynamic"] = {k: v for k, v in res["dynamic"].items() if k not in ("decisions", "run_traces")}
    slim = {k: rep[k] for k in ("format", "kind", "status", "config") if k in rep}
    slim["result"] = res
    with open(os.path.join(dest, os.path.basename(path)), "w") as f:
        json.dump(slim, f, separators=(",", ":"))
        f.write("\n")
