"""Markdown table of the mnist-bnn comparisons written by scripts/mnist-bnn-table.sh (one JSON per sampler)."""
import json, sys, os

d = sys.argv[1]
samplers = ["sgld", "sgld-cv", "sghmc", "sghmc-cv", "sgnht", "sgnht-cv"]
print("| sampler | tuner | chosen h | batch | accuracy | ECE | MCE | KSD (run kernel) | test log-loss | grad evals | wall s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
cfg = None
for s in samplers:
    path = os.path.join(d, s + ".json")
    rep = json.load(open(path))
    cfg = rep["config"]
    for e in rep["result"]["entries"]:
        ev = e["evaluation"]
        b = e.get("best")
        c = ev.get("calibration") or {}
        f = lambda v, p=4: "-" if v is None else f"{v:.{p}f}"
        print(f"| {s} | {e['name']} | {b['step']:.2e} | {b['batch']} | {f(c.get('accuracy'))} | {f(c.get('ece'))} | {f(c.get('mce'))} "
              f"| {f(ev.get('ksd'), 2)} | {f(ev.get('test_log_loss'))} | {ev['total_grad_evals']:.2e} | {e['compute']['wall_seconds']:.1f} |"
              if b else f"| {s} | {e['name']} | - | - | - | - | - | - | - | {ev['total_grad_evals']:.2e} | {e['compute']['wall_seconds']:.1f} |")
