"""Mean posterior sd per weight of each tuner's chosen arm in the mnist-bnn reports (the measured reason for
the calibration gap in docs/mnist-bnn.md). Usage: python3 scripts/reproduce/mamba/mnist-bnn-spread.py docs/results/mamba/mnist-bnn"""
import json, os, sys

d = sys.argv[1]
print("| sampler | tuner | chosen h | batch | mean posterior sd per parameter | kept samples |")
print("|---|---|---|---|---|---|")
for s in ["sgld", "sgld-cv", "sghmc", "sghmc-cv", "sgnht", "sgnht-cv"]:
    p = os.path.join(d, s + ".json")
    if not os.path.exists(p):
        continue
    for e in json.load(open(p))["result"]["entries"]:
        b = e.get("best")
        if not b:
            continue
        post = b["posterior"]
        avg = post["std_avg"] if "std_avg" in post else sum(post["std"]) / len(post["std"])
        print(f"| {s} | {e['name']} | {b['step']:.2e} | {b['batch']} | {avg:.3f} | {post['n']} |")
