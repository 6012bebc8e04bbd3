#!/usr/bin/env python3
"""Aggregates the `tunelab compare` reports that scripts/reproduce/mamba/table1.sh writes.

A report set is one directory of SAMPLER-seedK.json reports made with one Stein kernel and one evaluation (the
script's OUT_DIR/fresh-run, OUT_DIR/fresh-plain, ...; docs/results/mamba/table1/tuning-chain holds the older tuning-chain
reports). Each argument is a set, or a directory whose subdirectories are sets. The set's kernel (`run`, `plain`)
is read from its MAMBA-KSD entries (`kernel.kind`), its evaluation from the entries' `evaluation.fresh_run`
(present: a fresh chain from the MAP; absent: the tuning chain).

Prints, as Markdown:
1. Table 1 / Figure 3 of the MAMBA paper: xi = ||sd_hat - sd|| / ||sd|| (the report's `evaluation.xi`, from the
   evaluated samples' sd against the exact MALA reference's) per sampler and tuner, mean and two-sd band over
   the seeds (sd with ddof = 1). The kernel-dependent tuners (MAMBA-KSD, grid (KSD)) get one column per set;
   the others (MAMBA-FSSD, grid (log-loss), heuristic: their choice and evaluation do not use the kernel) come
   from the first set that ran them, and where two sets ran one of them the script checks they agree.
   Only seeds complete in every set (all six samplers) enter; the others are named.
2. The issue-12 acceptance check per set: MAMBA-KSD's posterior-std error (`evaluation.std_rel_error`, mean over
   coordinates of |sd_hat - sd| / sd) per seed, its median over seeds, pass if <= 7%.
3. MAMBA-KSD's chosen arm per sampler and seed in each set (step h, batch, L).
4. MAMBA-KSD's scoring overhead per set: seconds spent scoring against seconds of sampling summed over arms
   (`compute.scoring_seconds`, `compute.seconds`), and the same in gradient evaluations.
5. The spread of MAMBA-KSD's chosen tuning chain per set: mean over coordinates of its sd (`best.posterior.std`)
   over the MALA reference's sd, per seed (below 1: too narrow; above 1: too wide).
6. Every kernel-independent tuner's chosen step and xi per seed (where a mean is moved by one seed, which).
With --chosen SEED DIR, prints instead MAMBA-KSD's chosen arm per sampler at that one seed (the seed-0 table:
step h, batch, L, its KSD score, posterior-std error against MALA, sampler and scoring gradient evaluations,
wall time of the MAMBA-KSD run).
Usage: scripts/reproduce/mamba/table1.py [--chosen SEED] DIR ...
"""
import glob, json, math, os, re, statistics, sys

SAMPLERS = ["sgld", "sgld-cv", "sghmc", "sghmc-cv", "sgnht", "sgnht-cv"]
KERNEL_TUNERS = ["MAMBA-KSD", "grid (KSD)"]
OTHER_TUNERS = ["MAMBA-FSSD", "grid (log-loss)", "heuristic"]
# order of the kernel columns: the paper's plain kernel first
KERNEL_ORDER = {"plain": 0, "run": 1}


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


def reports(d):
    return sorted(glob.glob(os.path.join(d, "*-seed*.json")))


def load_set(d):
    """{(sampler, seed): {tuner name: entry}}, kernel, evaluation label, n_data of one directory."""
    runs, kernel, evals, n_data = {}, None, set(), None
    for f in reports(d):
        m = re.match(r"(.+)-seed(\d+)\.json$", os.path.basename(f))
        if not m or m.group(1) not in SAMPLERS:
            continue
        doc = json.load(open(f))
        entries = find(doc, "entries")
        if entries is None or find(doc, "reference") is None:
            print(f"skipping {f}: no reference or entries", file=sys.stderr)
            continue
        runs[(m.group(1), int(m.group(2)))] = {e["name"]: e for e in entries} | {"__reference__": find(doc, "reference")}
        for e in entries:
            if e["name"] == "MAMBA-KSD" and e.get("kernel"):
                kernel = e["kernel"]["kind"]
            if e.get("best"):  # a tuner that chose no arm ran no evaluation: it says nothing of the kind
                evals.add("fresh" if e["evaluation"].get("fresh_run") else "tuning-chain")
        n_data = n_data or doc.get("config", {}).get("data", {}).get("n")
    label = f"{'/'.join(sorted(evals))}, {kernel or '?'} kernel"
    return {"dir": d, "runs": runs, "kernel": kernel, "eval": "/".join(sorted(evals)), "label": label, "n_data": n_data}


def xi_of(e):
    """(xi, why) of one entry: why is None, "no arm" (the tuner chose none) or "diverged" (the evaluation chain)."""
    if not e.get("best"):
        return None, "no arm"
    x = e["evaluation"].get("xi")
    if x is None:
        return None, "diverged"
    return x, None


def cell(entries):
    """mean +- 2 sd over the seeds with a value, and how many seeds had none (and why)."""
    vals = [x for x, _ in entries if x is not None]
    why = {}
    for _, w in entries:
        if w:
            why[w] = why.get(w, 0) + 1
    if not vals:
        s = "–"
    else:
        mean = statistics.fmean(vals)
        two = 2 * statistics.stdev(vals) if len(vals) > 1 else float("nan")
        s = f"{mean:.3f} ± {two:.3f}"
    if why:
        s += f" (n={len(vals)}; " + ", ".join(f"{w} in {k}" for w, k in sorted(why.items())) + ")"
    return s


def main(args):
    dirs = []
    for a in args:
        if reports(a):
            dirs.append(a)
        else:
            dirs += sorted(d for d in glob.glob(os.path.join(a, "*")) if os.path.isdir(d) and reports(d))
    if not dirs:
        sys.exit(f"no reports in {', '.join(args)}")
    sets = [load_set(d) for d in dirs]
    sets.sort(key=lambda s: (s["eval"], KERNEL_ORDER.get(s["kernel"], 9)))
    seeds_any = sorted({k for s in sets for (_, k) in s["runs"]})
    complete = [k for k in seeds_any if all((p, k) in s["runs"] for s in sets for p in SAMPLERS)]
    partial = [k for k in seeds_any if k not in complete]
    if not complete:
        sys.exit("no seed has every sampler in every set")
    n = len(complete)
    print(f"Seeds {', '.join(map(str, complete))} ({n} seed{'s' if n != 1 else ''}, complete in every set: six samplers each)"
          + (f"; left out, incomplete: {', '.join(map(str, partial))}" if partial else ""))
    print("Sets: " + "; ".join(f"{s['dir']} ({s['label']})" for s in sets) + f"; N = {sets[0]['n_data']}\n")

    # the kernel-independent tuners: from the first set that ran them; agreement checked across sets
    other_src = {}
    notes = []
    for t in OTHER_TUNERS:
        have = [s for s in sets if all(t in s["runs"][(p, k)] for p in SAMPLERS for k in complete)]
        if not have:
            continue
        other_src[t] = have[0]
        for s in have[1:]:
            same = all(xi_of(s["runs"][(p, k)][t]) == xi_of(have[0]["runs"][(p, k)][t]) for p in SAMPLERS for k in complete)
            notes.append(f"{t}: {s['dir']} and {have[0]['dir']} give the {'same' if same else 'DIFFERENT'} xi for every sampler and seed")
    cols = []  # (header, set, tuner)
    for t in KERNEL_TUNERS:
        for s in sets:
            if all(t in s["runs"][(p, k)] for p in SAMPLERS for k in complete):
                tag = s["kernel"] if len({x["eval"] for x in sets}) == 1 else f"{s['kernel']}, {s['eval']}"
                cols.append((f"{t} ({tag})", s, t))
    for t, s in other_src.items():
        cols.append((t, s, t))
    print(f"xi = ||sd_hat - sd|| / ||sd||, mean ± 2 sd over the {n} seeds (lower is better)\n")
    print("| sampler | " + " | ".join(c[0] for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for p in SAMPLERS:
        print(f"| {p} | " + " | ".join(cell([xi_of(s["runs"][(p, k)][t]) for k in complete]) for _, s, t in cols) + " |")
    for note in notes:
        print(f"\n{note}")

    for s in sets:
        print(f"\nAcceptance (issue 12), {s['label']}: MAMBA-KSD's posterior-std error (mean over coordinates of "
              f"|sd_hat - sd| / sd), median over the {n} seeds <= 7%\n")
        print("| sampler | per seed (%) | median (%) | pass |")
        print("|---|---|---|---|")
        ok_all = True
        for p in SAMPLERS:
            v = []
            for k in complete:
                e = s["runs"][(p, k)]["MAMBA-KSD"]
                r = e["evaluation"].get("std_rel_error") if e.get("best") else None
                v.append(float("inf") if r is None else r)
            med = statistics.median(v)
            ok = med <= 0.07
            ok_all &= ok
            print(f"| {p} | " + ", ".join(f"{r * 100:.1f}" for r in v) + f" | {med * 100:.1f} | {'yes' if ok else 'NO'} |")
        print(f"\nall samplers pass: {'yes' if ok_all else 'NO'}")

    print(f"\nMAMBA-KSD's chosen arm per seed (seeds {', '.join(map(str, complete))}): step h / batch / L\n")
    print("| sampler | " + " | ".join(s["label"] for s in sets) + " |")
    print("|---|" + "---|" * len(sets))
    for p in SAMPLERS:
        cells = []
        for s in sets:
            arms = []
            for k in complete:
                b = s["runs"][(p, k)]["MAMBA-KSD"].get("best")
                arms.append("no arm" if not b else f"{b['step']:.1e}/{b['batch']}" + (f"/{b['leapfrog']}" if b["leapfrog"] > 1 else ""))
            cells.append(", ".join(arms))
        print(f"| {p} | " + " | ".join(cells) + " |")

    for s in sets:
        print(f"\nMAMBA-KSD scoring overhead, {s['label']} (per run: scoring s / sampling s summed over arms; range over seeds)\n")
        print("| sampler | scoring s | sampling s | scoring / sampling (time) | scoring / sampling (grad evals) |")
        print("|---|---|---|---|---|")
        for p in SAMPLERS:
            v = [s["runs"][(p, k)]["MAMBA-KSD"]["compute"] for k in complete]
            v = [(c["scoring_seconds"], c["seconds"], c["scoring_grad_evals"], c["grad_evals"]) for c in v]
            rng = lambda xs, f: f"{f(min(xs))}–{f(max(xs))}"
            print(f"| {p} | {rng([a for a, _, _, _ in v], lambda x: f'{x:.2f}')} | {rng([b for _, b, _, _ in v], lambda x: f'{x:.1f}')} | "
                  f"{rng([a / b for a, b, _, _ in v], lambda x: f'{100 * x:.0f}%')} | {rng([c / d for _, _, c, d in v], lambda x: f'{100 * x:.0f}%')} |")

    for s in sets:
        print(f"\nSpread of MAMBA-KSD's chosen tuning chain, {s['label']}: mean over coordinates of sd_hat / sd (MALA), per seed\n")
        print("| sampler | per seed | median |")
        print("|---|---|---|")
        for p in SAMPLERS:
            v = []
            for k in complete:
                r = s["runs"][(p, k)]
                b = r["MAMBA-KSD"].get("best")
                ref = r["__reference__"]["std"]
                v.append(statistics.fmean(a / c for a, c in zip(b["posterior"]["std"], ref)) if b else float("nan"))
            print(f"| {p} | " + ", ".join(f"{x:.3f}" for x in v) + f" | {statistics.median(v):.3f} |")

    for t, s in other_src.items():
        print(f"\n{t}: chosen step h and xi per seed (seeds {', '.join(map(str, complete))})\n")
        print("| sampler | " + " | ".join(f"seed {k}" for k in complete) + " |")
        print("|---|" + "---|" * len(complete))
        for p in SAMPLERS:
            cells = []
            for k in complete:
                e = s["runs"][(p, k)][t]
                x, why = xi_of(e)
                cells.append(why if why and not e.get("best") else f"{e['best']['step']:.1e}: " + (f"{x:.3f}" if x is not None else why))
            print(f"| {p} | " + " | ".join(cells) + " |")


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
        err = "diverged" if ev.get("std_rel_error") is None else f"{100 * ev['std_rel_error']:.1f}%"
        print(f"| {s} | {b['step']:.1e} | {b['batch']} ({100 * b['batch_fraction']:.1f}%) | {b['leapfrog']} | {b['score']:.3f} | "
              f"{err} | {c['grad_evals']:.2e} | {c['scoring_grad_evals']:.2e} | {c['wall_seconds']:.1f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--chosen"] and len(args) == 3:
        chosen(args[2], int(args[1]))
    elif args:
        main(args)
    else:
        sys.exit(__doc__)
