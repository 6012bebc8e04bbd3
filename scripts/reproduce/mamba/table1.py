#!/usr/bin/env python3
"""Aggregates the `tunelab compare` reports that scripts/reproduce/mamba/table1.sh writes (OUT_DIR/SAMPLER-seedK.json).

Prints, as Markdown:
1. Table 1 / Figure 3 of the MAMBA paper: xi = ||sd_hat - sd|| / ||sd|| (Euclidean norms over coordinates; sd
   from the chosen arm's samples, reference sd from the exact MALA run) per sampler and tuner, mean and
   two-sd band over seeds (sd with ddof = 1).
2. The issue-12 acceptance check: MAMBA-KSD's posterior-std error (mean over coordinates of
   |sd_hat - sd| / sd, the error of README's tables) per seed, its median over seeds, pass if <= 7%.
3. MAMBA-KSD's scoring overhead: seconds spent scoring against seconds of sampling summed over arms
   (`compute.scoring_seconds`, `compute.seconds`), and the same in gradient evaluations.
With --chosen SEED, prints instead MAMBA-KSD's chosen arm per sampler at that one seed (the README's seed-0
table: step h, batch, L, its KSD score, posterior-std error against MALA, sampler and scoring gradient
evaluations, wall time of the MAMBA-KSD run).
Usage: scripts/reproduce/mamba/table1.py [--chosen SEED] OUT_DIR
"""
import glob, json, math, os, re, statistics, sys

SAMPLERS = ["sgld", "sgld-cv", "sghmc", "sghmc-cv", "sgnht", "sgnht-cv"]
TUNERS = ["MAMBA-KSD", "MAMBA-FSSD", "grid (KSD)", "grid (log-loss)", "heuristic"]


def find(obj, key):
    """First value under `key` anywhere in a JSON document."""
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        for v in obj.values():
            r = find(v, key)
            if r is not None:
                return r
    elif isinstance(obj, list):
        for v in obj:
            r = find(v, key)
            if r is not None:
                return r
    return None


def main(out):
    xi = {}   # (sampler, tuner) -> [xi per seed]
    err = {}  # sampler -> [(seed, mean rel error of MAMBA-KSD)]
    cost = {}  # sampler -> [(scoring s, sampling s, scoring grad evals, sampling grad evals)]
    seeds = set()
    n_data = None
    for f in sorted(glob.glob(os.path.join(out, "*-seed*.json"))):
        m = re.match(r"(.+)-seed(\d+)\.json$", os.path.basename(f))
        sampler, seed = m.group(1), int(m.group(2))
        doc = json.load(open(f))
        ref = find(doc, "reference")
        entries = find(doc, "entries")
        if ref is None or entries is None:
            print(f"skipping {f}: no reference or entries", file=sys.stderr)
            continue
        seeds.add(seed)
        sd = ref["std"]
        norm = math.sqrt(sum(v * v for v in sd))
        for e in entries:
            best = e.get("best")
            if not best:
                x = float("inf")
                rel = float("inf")
            else:
                s = best["posterior"]["std"]
                x = math.sqrt(sum((a - b) ** 2 for a, b in zip(s, sd))) / norm
                rel = sum(abs(a - b) / b for a, b in zip(s, sd)) / len(sd)
            xi.setdefault((sampler, e["name"]), []).append(x)
            if e["name"] == "MAMBA-KSD":
                err.setdefault(sampler, []).append((seed, rel))
                c = e["compute"]
                cost.setdefault(sampler, []).append((c["scoring_seconds"], c["seconds"], c["scoring_grad_evals"], c["grad_evals"]))
        n_data = n_data or find(doc, "n_data")
    if not seeds:
        sys.exit(f"no reports in {out}")
    ss = sorted(seeds)
    print(f"Seeds {ss[0]}..{ss[-1]} ({len(ss)}), reports in {out}\n")
    print("xi = ||sd_hat - sd|| / ||sd||, mean +- 2 sd over seeds (lower is better)\n")
    print("| sampler | " + " | ".join(TUNERS) + " |")
    print("|---|" + "---|" * len(TUNERS))
    for s in SAMPLERS:
        cells = []
        for t in TUNERS:
            v = xi.get((s, t), [])
            if not v:
                cells.append("–")
                continue
            mean = statistics.fmean(v)
            if not math.isfinite(mean):
                # a tuner chose no arm (every arm diverged) in some seed: say how often
                bad = sum(1 for x in v if not math.isfinite(x))
                cells.append(f"inf ({bad} of n={len(v)} seeds without an arm)")
                continue
            two = 2 * statistics.stdev(v) if len(v) > 1 else float("nan")
            cells.append(f"{mean:.3f} ± {two:.3f} (n={len(v)})")
        print(f"| {s} | " + " | ".join(cells) + " |")
    print("\nAcceptance (issue 12): MAMBA-KSD's chosen arm, posterior-std error (mean over coordinates of "
          "|sd_hat - sd| / sd), median over seeds <= 7%\n")
    print("| sampler | per seed (%) | median (%) | pass |")
    print("|---|---|---|---|")
    ok_all = True
    for s in SAMPLERS:
        v = sorted(err.get(s, []))
        if not v:
            print(f"| {s} | – | – | – |")
            ok_all = False
            continue
        med = statistics.median(r for _, r in v)
        ok = med <= 0.07
        ok_all &= ok
        print(f"| {s} | " + ", ".join(f"{r * 100:.1f}" for _, r in v) + f" | {med * 100:.1f} | {'yes' if ok else 'NO'} |")
    print(f"\nall samplers pass: {'yes' if ok_all else 'NO'}")
    print("\nMAMBA-KSD scoring overhead (per run: scoring s / sampling s summed over arms; range over seeds)\n")
    print("| sampler | scoring s | sampling s | scoring / sampling (time) | scoring / sampling (grad evals) |")
    print("|---|---|---|---|---|")
    for s in SAMPLERS:
        v = cost.get(s, [])
        if not v:
            continue
        rng = lambda xs, f: f"{f(min(xs))}–{f(max(xs))}"
        print(f"| {s} | {rng([a for a, _, _, _ in v], lambda x: f'{x:.2f}')} | {rng([b for _, b, _, _ in v], lambda x: f'{x:.1f}')} | "
              f"{rng([a / b for a, b, _, _ in v], lambda x: f'{100 * x:.0f}%')} | {rng([c / d for _, _, c, d in v], lambda x: f'{100 * x:.0f}%')} |")


def chosen(out, seed):
    print(f"MAMBA-KSD's chosen arm at seed {seed}, reports in {out}\n")
    print("| sampler | chosen h | chosen batch | L | KSD score | posterior std error vs MALA | sampler grad evals "
          "| scoring grad evals | wall s (2 loaded cores) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in SAMPLERS:
        f = os.path.join(out, f"{s}-seed{seed}.json")
        if not os.path.exists(f):
            print(f"| {s} | – | – | – | – | – | – | – | – |")
            continue
        e = next(e for e in find(json.load(open(f)), "entries") if e["name"] == "MAMBA-KSD")
        b, c, ev = e.get("best"), e["compute"], e["evaluation"]
        if not b:
            print(f"| {s} | no arm | – | – | – | – | {c['grad_evals']:.2e} | {c['scoring_grad_evals']:.2e} | {c['wall_seconds']:.1f} |")
            continue
        print(f"| {s} | {b['step']:.1e} | {b['batch']} ({100 * b['batch_fraction']:.1f}%) | {b['leapfrog']} | {b['score']:.3f} | "
              f"{100 * ev['std_rel_error']:.1f}% | {c['grad_evals']:.2e} | {c['scoring_grad_evals']:.2e} | {c['wall_seconds']:.1f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--chosen"] and len(args) == 3:
        chosen(args[2], int(args[1]))
    else:
        main(args[0] if args else "target/table1-1000000")
