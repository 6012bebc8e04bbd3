#!/usr/bin/env python3
"""Prints what scripts/reproduce/mamba/page-logreg-eval.sh measured: per seed and tuner the chosen arm (step h,
batch) and xi = ||sd_hat - sd|| / ||sd|| of a fresh evaluation chain from the MAP of R and of 10 R gradient
evaluations, then per tuner the median and range of xi over the reporting seeds (1 and up; seed 0, the page's
own, on which the preset's defaults were set, is in the first table only) and on which seeds it has the lowest xi. Usage: page-logreg-eval.py OUT_DIR"""
import glob, json, os, re, statistics, sys

out = sys.argv[1]
rows = {}  # (seed, budget) -> {tuner: (h, batch, xi, ksd)}
for f in sorted(glob.glob(os.path.join(out, "seed*-eval*R.json"))):
    m = re.search(r"seed(\d+)-eval(\d+)R\.json$", f)
    seed, e = int(m.group(1)), int(m.group(2))
    d = json.load(open(f))
    rows[(seed, e)] = {x["name"]: (x["best"]["step"], x["best"]["batch"], x["evaluation"]["xi"], x["evaluation"]["ksd"])
                       for x in d["result"]["entries"] if x.get("best")}
seeds = sorted({s for s, _ in rows})
tuners = ["MAMBA-KSD", "grid (KSD)", "heuristic"]
print("| seed | tuner | h | batch | xi (eval R) | xi (eval 10 R) | KSD (eval R) | KSD (eval 10 R) |")
print("|---|---|---|---|---|---|---|---|")
for s in seeds:
    for t in tuners:
        a, b = rows.get((s, 1), {}).get(t), rows.get((s, 10), {}).get(t)
        if not a and not b:
            continue
        h, batch = (a or b)[0], (a or b)[1]
        f = lambda v, i: f"{v[i]:.4g}" if v else "-"
        print(f"| {s} | {t} | {h:.3g} | {batch} | {f(a, 2)} | {f(b, 2)} | {f(a, 3)} | {f(b, 3)} |")
rep = [s for s in seeds if s >= 1]
print()
print(f"Reporting seeds: {', '.join(map(str, rep))}")
print()
print("| tuner | xi eval R: median [min, max] | xi eval 10 R: median [min, max] | lowest xi at R (seeds) | lowest xi at 10 R (seeds) |")
print("|---|---|---|---|---|")
for t in tuners:
    cells = []
    for e in (1, 10):
        v = [rows[(s, e)][t][2] for s in rep if t in rows.get((s, e), {})]
        cells.append(f"{statistics.median(v):.4f} [{min(v):.4f}, {max(v):.4f}] (n = {len(v)})" if v else "-")
    for e in (1, 10):
        wins = [s for s in rep if rows.get((s, e)) and all(k in rows[(s, e)] for k in tuners)
                and min(tuners, key=lambda k: rows[(s, e)][k][2]) == t]
        cells.append(", ".join(map(str, wins)) or "none")
    print(f"| {t} | " + " | ".join(cells) + " |")
