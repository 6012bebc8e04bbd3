"""Shrinks compare reports for committing: drops each entry's report samples and replaces the chosen arm's
per-parameter posterior mean and sd (d values each) by their averages (`mean_avg`, `std_avg`).
Usage: python3 scripts/slim-report.py FILE.json ... (rewrites each file in place)."""
import json, sys

for path in sys.argv[1:]:
    rep = json.load(open(path))
    for e in rep["result"]["entries"]:
        b = e.get("best")
        if b:
            b.pop("samples", None)
            post = b["posterior"]
            for k in ("mean", "std"):
                v = post.pop(k, None)
                if isinstance(v, list) and v:
                    post[k + "_avg"] = sum(v) / len(v)
        k = e.get("kernel")
        if k and isinstance(k.get("precond_sd"), list):
            k["precond_sd"] = []
    json.dump(rep, open(path, "w"), indent=1)
