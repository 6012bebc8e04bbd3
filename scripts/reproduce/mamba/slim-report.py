"""Shrinks compare reports for committing: drops each entry's report samples and replaces the chosen arm's
per-parameter posterior mean and sd (d values each) by their averages (`mean_avg`, `std_avg`).
With --table1 (the logistic-regression Table 1, scripts/reproduce/mamba/table1.sh): keeps the chosen arm's per-parameter mean
and sd (of its tuning chain; scripts/reproduce/mamba/table1.py reads xi from each entry's `evaluation`) and drops instead each entry's per-arm and per-round records
(FSSD-opt's locations), its copy of the config and the kernel's preconditioner, written without indentation
(about 8.4 KB a report at d = 10).
Usage: python3 scripts/reproduce/mamba/slim-report.py [--table1] FILE.json ... (rewrites each file in place)."""
import json, sys

table1 = "--table1" in sys.argv[1:]
for path in [a for a in sys.argv[1:] if a != "--table1"]:
    rep = json.load(open(path))
    for e in rep["result"]["entries"]:
        b = e.get("best")
        if b:
            b.pop("samples", None)
            post = b["posterior"]
            for k in ("mean", "std"):
                if table1:
                    break
                v = post.pop(k, None)
                if isinstance(v, list) and v:
                    post[k + "_avg"] = sum(v) / len(v)
        k = e.get("kernel")
        if k and isinstance(k.get("precond_sd"), list):
            k["precond_sd"] = []
        if table1:
            e.pop("arms", None)
            e.pop("rounds", None)
            e.pop("config", None)
    if table1:
        json.dump(rep, open(path, "w"), separators=(",", ":"))
    else:
        json.dump(rep, open(path, "w"), indent=1)
