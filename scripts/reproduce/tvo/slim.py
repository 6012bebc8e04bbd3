#!/usr/bin/env python3
"""Copies `tunelab run` TVO reports into the committed raw-report folder without the GP-UCB snapshots (each run's
windows with their schedules, rewards and bounds, its integrand, final metrics and the summary are kept: what
scripts/reproduce/tvo/table.mjs reads). scripts/reproduce/doc_tables.py generates the docs' TVO table from them.

Usage: python3 scripts/reproduce/tvo/slim.py DEST_DIR REPORT.json ..."""
import json
import os
import sys

dest = sys.argv[1]
os.makedirs(dest, exist_ok=True)
for path in sys.argv[2:]:
    rep = json.load(open(path))
    for run in rep.get("result", {}).get("runs", []):
        run.pop("gp_snapshots", None)
    with open(os.path.join(dest, os.path.basename(path)), "w") as f:
        json.dump(rep, f, separators=(",", ":"))
        f.write("\n")
