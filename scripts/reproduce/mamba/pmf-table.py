"""Markdown table of the pmf comparisons written by scripts/reproduce/mamba/pmf-table.sh (one JSON per sampler; peak RSS and
wall time of each sampler's process from its .time file, `/usr/bin/time -f "%M %e"`)."""
import json, sys, os

d = sys.argv[1]
# the Stein kernel of the reports' scores (metric.kernel; unset is the run kernel)
kernels = {(json.load(open(os.path.join(d, f)))["config"].get("metric") or {}).get("kernel") or "run"
           for f in os.listdir(d) if f.endswith(".json")}
print(f"| sampler | tuner | chosen h | batch | test RMSE | KSD ({' / '.join(sorted(kernels)) or 'run'} kernel) | grad evals | wall s |")
print("|---|---|---|---|---|---|---|---|")
procs = []
missing = []
for s in ["sgld", "sgld-cv", "sghmc", "sghmc-cv", "sgnht", "sgnht-cv"]:
    if not os.path.exists(os.path.join(d, s + ".json")):
        missing.append(s)
        continue
    rep = json.load(open(os.path.join(d, s + ".json")))
    for e in rep["result"]["entries"]:
        ev, b = e["evaluation"], e.get("best")
        f = lambda v, p=4: "-" if v is None else f"{v:.{p}f}"
        h = f"{b['step']:.2e}" if b else "-"
        n = b["batch"] if b else "-"
        print(f"| {s} | {e['name']} | {h} | {n} | {f(ev.get('test_rmse'))} | {f(ev.get('ksd'), 3)} | {ev['total_grad_evals']:.2e} | {e['compute']['wall_seconds']:.1f} |")
    t = os.path.join(d, s + ".time")
    if os.path.exists(t):
        kb, sec = open(t).read().split()[-2:]
        procs.append((s, int(kb) / 1024, float(sec)))
if missing:
    print()
    print("Not run: " + ", ".join(missing) + ".")
if procs:
    print()
    print("| sampler | process peak RSS (MB) | process wall s |")
    print("|---|---|---|")
    for s, mb, sec in procs:
        print(f"| {s} | {mb:.0f} | {sec:.0f} |")
