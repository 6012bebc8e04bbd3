"""Generates the docs' result tables from the committed raw reports, and checks that the docs hold exactly them.

A doc holds a generated block between the lines
    <!-- BEGIN generated KEY: scripts/reproduce/doc_tables.py -->
    <!-- END generated KEY -->
and KEY names the generator and its committed raw report(s):
    bandit:SLUG   docs/results/bandit/reports/SLUG.json   (examples/bandit_tables.rs: one comparison, per-repeat finals)
    hoag:SETTING  docs/results/hoag/SETTING.json   (examples/hoag_bench.rs: one slim report per seed)
    hoag-summary:all  every docs/results/hoag/*.json: passes to the target per setting and method
    mamba-speedup:SET  MAMBA-KSD's compute against both grid searches, from the committed `tunelab compare` reports
                  of SET: `logreg` (docs/results/mamba/table1/fresh-run and fresh-plain-ksd, seeds 1-10), or one
                  of docs/results/mamba/{pmf-paper,pmf-paper-seed3,pmf,mnist-bnn-softmax,mnist-bnn}/SAMPLER.json
    pmf-kernels:NAME  docs/results/mamba/NAME/ and NAME-plain/ (scripts/reproduce/mamba/pmf-table.sh with PAPER=1, and
                  KERNEL=plain): MAMBA-KSD's choice and RMSE under both Stein kernels beside the kernel-free tuners
    bnn-kernels:NAME  docs/results/mamba/NAME/ and NAME-plain/ (scripts/reproduce/mamba/mnist-bnn-table.sh, and with
                  KERNEL=plain TUNERS=MAMBA-KSD): MAMBA-KSD's choice under both Stein kernels beside the kernel-free tuners
    pmf-probe:NAME  docs/results/mamba/page/NAME.json   (examples/pmf_page_probe.rs: tuners' chains and exact draws)
    tvo:NAME      docs/results/tvo/NAME/d*.report.json   (scripts/reproduce/tvo/figure4.sh; the table is
                  scripts/reproduce/tvo/table.mjs's, run here on the committed reports)
    tvo-long:NAME  docs/results/tvo/NAME/*.report.json   (one report: scripts/reproduce/tvo/long-d10.sh)
    tvo-one:NAME  docs/results/tvo/NAME.report.json   (one report, scripts/reproduce/tvo/mnist-table.mjs's table:
                  scripts/reproduce/tvo/mnist-paper.sh, mnist.sh)
    tvo-seeds:mnist-paper  the per-seed tables above of scripts/reproduce/tvo/mnist-paper.sh, summarised by
                  scripts/reproduce/tvo/mnist-paper-seeds.mjs
    tvo-box:NAME  docs/results/tvo/NAME/*.report.json   (scripts/reproduce/tvo/mnist-paper-box.sh: GP-UCB with a
                  wider beta box, one report per seed; the table is scripts/reproduce/tvo/mnist-paper-box.mjs's)
    lr:numbers    docs/results/lr-schedule/numbers/PRESET-SEED.json   (scripts/reproduce/lr-schedule/numbers.sh)
    lr:multitask  docs/results/lr-schedule/multitask/mt-SEED.json    (scripts/reproduce/lr-schedule/multitask.sh)
    gpucb:all     docs/results/bandit/gpucb/*.json   (scripts/reproduce/bandit/gpucb-numbers.sh: GP-UCB and its
                  ablations on branin, tvo-schedule and three drifting functions; slim `tunelab bandit` reports)
    gpucb:matern  docs/results/bandit/gpucb-matern/*.json   (the same with GPUCB_SETTINGS=matern: Matern-5/2 kernel,
                  constant kappa 2)
    step-size:NAME  docs/results/step-size/NAME.json   (scripts/reproduce/bandit/step-size.sh: one slim
                  `tunelab step-size` report)
Nothing is re-run: every number of a block is computed here from the per-seed values of its report.
Whole generated files (FILES: www/panels/tune/measured.js and www/panels/lr-schedule/measured.js, the measured facts
the tune and learning-rate readings quote) are
written and checked the same way when no doc is named, and so are figures quoted in prose (QUOTES: each sentence
recomputed from the committed reports must appear in its doc; they are checked, not rewritten).

Usage: python3 scripts/reproduce/doc_tables.py [--check | --self-test] [DOC.md ...]
       python3 scripts/reproduce/doc_tables.py --block KEY DOC.md   (DOC.md made to hold block KEY, then written)
(default: every .md file under docs/ and README.md; --write is the default, --check writes nothing and exits 1,
naming each block, when a doc differs from what its report gives; --self-test checks that --check catches one
changed digit in a generated table and in a quoted figure, and writes nothing).
"""
import functools
import json
import math
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BLOCK = re.compile(
    r"(<!-- BEGIN generated (?P<key>[^:\s]+:[^\s]+): scripts/reproduce/doc_tables.py -->\n)(?P<body>.*?)(<!-- END generated (?P=key) -->)",
    re.S,
)


def g4(v):
    """Three significant digits as examples/bandit_tables.rs's g4 (fixed for 1e-3 <= |v| < 1e4, else 2-digit
    exponent)."""
    if v == 0:
        return "0"
    e = math.floor(math.log10(abs(v)))
    if -3 <= e < 4:
        dec = int(max(2 - e, 0))
        return f"{v:.{dec}f}"
    s = f"{v:.2e}"
    m, x = s.split("e")
    return f"{m}e{int(x)}"


def summarize(values, band):
    """Mean and band over repeats as src/experiments/bandit/report.rs `summarize`: mean +- band x s.e., clipped to
    the values' range."""
    n = len(values)
    mean = sum(values) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / math.sqrt(n) if n > 1 else 0.0
    return mean, max(mean - band * se, min(values)), min(mean + band * se, max(values))


def separated(a, b):
    """Whether two bands [lo, hi] do not overlap."""
    return a[2] < b[1] or b[2] < a[1]


def lowest_and_split(rows):
    """The row with the lowest mean (rows: (name, (mean, lo, hi))), and the other rows' names split into those whose
    band separates from it and those whose band overlaps it."""
    best = min(rows, key=lambda r: r[1][0])
    sep = [r[0] for r in rows if r is not best and separated(best[1], r[1])]
    tie = [r[0] for r in rows if r is not best and not separated(best[1], r[1])]
    return best, sep, tie


def bandit_block(slug):
    rep = json.load(open(os.path.join(ROOT, "docs", "results", "bandit", "reports", slug + ".json")))
    band = rep["band"]
    out = [f"**{rep['section']}** ({rep['rounds']} pulls, {rep['repeats']} repeats, seed {rep['seed']}; raw report "
           f"`docs/results/bandit/reports/{slug}.json`)", "", rep["problem"], ""]
    if rep.get("note"):
        out += [rep["note"], ""]
    out += ["| method | simple regret | recommended true value | cumulative regret | distinct arms |",
            "|---|---|---|---|---|"]
    rows = []
    for a in rep["algorithms"]:
        simple = summarize(a["simple"], band)
        value = summarize(a["value"], band)
        cum = sum(a["cumulative"]) / len(a["cumulative"])
        dist = summarize(a["distinct"], band)
        rows.append((a["name"], simple))
        out.append(f"| {a['name']} | {g4(simple[0])} [{g4(simple[1])}, {g4(simple[2])}] | {g4(value[0])} "
                   f"[{g4(value[1])}, {g4(value[2])}] | {g4(cum)} | {dist[0]:.0f} [{dist[1]:.0f}, {dist[2]:.0f}] |")
    # which differences in simple regret are separated (95% bands do not overlap)
    best, sep, tie = lowest_and_split(rows)
    out += ["", f"Lowest mean simple regret: {best[0]}; its band separates from "
            + (", ".join(sep) if sep else "no other method")
            + ("; it overlaps " + ", ".join(tie) + " (no difference shown)" if tie else "") + "."]
    return "\n".join(out) + "\n"


def _bandit_simple(slug):
    """The beta-reservoir figures docs/bandit.md quotes from one bandit_tables report, as its table prints them:
    D-TTTS's and TTTS's final simple regret with band, the others' means."""
    rep = json.load(open(os.path.join(ROOT, "docs", "results", "bandit", "reports", slug + ".json")))
    s = {a["name"]: summarize(a["simple"], rep["band"]) for a in rep["algorithms"]}
    d = s["d-ttts"]
    return (g4(d[0]), g4(d[1]), g4(d[2]), g4(s["d-ttts (most pulled)"][0]), *map(g4, s["ttts"]),
            g4(s["successive-halving"][0]), g4(s["hyperband"][0]), g4(s["uniform"][0]), g4(s["random search"][0]))


def quantiles(v):
    v = sorted(v)
    n = len(v)
    med = v[n // 2] if n % 2 == 1 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    return med, v[0], v[-1]


def show(x, digits):
    return f"{x:.{digits}f}" if math.isfinite(x) else "never"


def sci(x):
    """Rust's `{:.1e}`: one decimal, exponent without sign padding (3.0e-8, 1.2e0)."""
    if not math.isfinite(x):
        return "NaN" if x != x else ("inf" if x > 0 else "-inf")
    m, e = f"{x:.1e}".split("e")
    return f"{m}e{int(e)}"


def hoag_block(setting):
    path = os.path.join("docs", "results", "hoag", setting + ".json")
    rep = json.load(open(os.path.join(ROOT, path)))
    target = rep["target"]
    seeds = rep["seeds"]
    names = [m["name"] for m in seeds[0]["methods"]]
    rows = {n: [] for n in names}
    val_rows = {n: [] for n in names}
    for s in seeds:
        r = abs(s["reference_optimum"])
        for m in s["methods"]:
            sub = [b - s["reference_optimum"] for b in m["best_outer_loss"]]
            hit = next((i for i, v in enumerate(sub) if v / r <= target), None)
            c, t = (m["cost"][hit], m["seconds"][hit]) if hit is not None else (math.inf, math.inf)
            rows[m["name"]].append((c, t, sub[-1] / r, m["rejected_steps"]))
            # a loss that is not finite is stored as null in JSON: it sorts last and prints as "not finite"
            fv = m["final_validation_loss"]
            val_rows[m["name"]].append((math.inf if fv is None else fv, m["seconds"][-1], m["cost"][-1]))
    first, last = seeds[0]["seed"], seeds[-1]["seed"]
    s0 = seeds[0]
    gap = [(s["reference_hoag_runs"] - s["reference_optimum"]) / abs(s["reference_optimum"])
           for s in seeds if s.get("reference_hoag_runs") is not None]
    out = [f"HOAG benchmark `{setting}`, seeds {first}..={last}, n_train {s0['n_train']} n_test {s0['n_test']} "
           f"n_validation {s0['n_validation']} features {s0['n_features']} hyperparameters {s0['n_hyper']}; "
           f"inner cap {rep['max_inner_iter']} iterations for every method, step rule `{rep['step_rule']}`"
           + ("; the paper's summed losses (eq. 4-5, `loss_scale: sum`: λ on the paper's scale, the validation loss "
              "still a mean)" if rep["config_first_seed"].get("loss_scale") == "sum" else "")
           + f"; raw report `{path}`",
           f"target: relative suboptimality {target:.0e} of the outer loss (accurate inner solutions, off the clock) "
           f"against the reference optimum: the lowest final loss of {rep['reference_runs']} randomly initialised "
           f"HOAG (exponential) runs, lowered to any lower accurate loss of the run"
           + (f" (it was lowered in {sum(1 for g in gap if g > 0)} of {len(gap)} seeds, by at most a relative "
              f"{sci(max(gap))})" if gap else ""),
           "",
           "| method | reached | passes to target, median [min, max] | seconds to target, median [min, max] | "
           "final rel. suboptimality, median [min, max] | rejected steps (total) |",
           "|---|---|---|---|---|---|"]
    for n in names:
        row = rows[n]
        reached = sum(1 for x in row if math.isfinite(x[0]))
        cm, c0, c1 = quantiles([x[0] for x in row])
        sm, t0, t1 = quantiles([x[1] for x in row])
        fm, f0, f1 = quantiles([x[2] for x in row])
        rej = sum(x[3] for x in row)
        out.append(f"| {n} | {reached}/{len(row)} | {show(cm, 0)} [{show(c0, 0)}, {show(c1, 0)}] | {show(sm, 3)} "
                   f"[{show(t0, 3)}, {show(t1, 3)}] | {sci(fm)} [{sci(f0)}, {sci(f1)}] | {rej} |")
    out += ["", "Validation loss (the third set, Sec. 3.2's lower row) at the end of each method's budget, with the "
            "seconds and passes it took, median [min, max] over the seeds:", "",
            "| method | final validation loss | seconds | passes |", "|---|---|---|---|"]
    for n in names:
        v = val_rows[n]
        vm, v0, v1 = quantiles([x[0] for x in v])
        sm, t0, t1 = quantiles([x[1] for x in v])
        cm, c0, c1 = quantiles([x[2] for x in v])
        fin5 = lambda x: f"{x:.5f}" if math.isfinite(x) else "not finite"
        out.append(f"| {n} | {fin5(vm)} [{fin5(v0)}, {fin5(v1)}] | {sm:.3f} [{t0:.3f}, {t1:.3f}] | "
                   f"{cm:.0f} [{c0:.0f}, {c1:.0f}] |")
    out += ["", "Validation loss against time, median over the seeds of each method's validation loss at its last "
            "iterate up to t seconds (the paper's Figure 3, lower row; wall seconds on a shared 2-core machine, so "
            "only their order of magnitude carries over; \"-\": no iterate yet):", ""]
    # Decades and half-decades of seconds up to the first one past every method's last trace point.
    last = max(sec for s in seeds for m in s["methods"] for sec in m["seconds"][-1:])
    steps = [a * 10.0 ** e for e in range(-4, 3) for a in (1, 3)]
    grid = [t for t in steps if t < last] + [next(t for t in steps if t >= last)]
    out += ["| method | " + " | ".join(f"{t:g} s" for t in grid) + " |", "|---|" + "---|" * len(grid)]
    for n in names:
        cells = []
        for t in grid:
            vals = []
            for s in seeds:
                m = next(m for m in s["methods"] if m["name"] == n)
                upto = [math.inf if v is None else v for v, sec in zip(m["validation_loss"], m["seconds"]) if sec <= t]
                vals.append(upto[-1] if upto else math.inf)
            med = quantiles(vals)[0]
            cells.append(f"{med:.5f}" if math.isfinite(med) else "-")
        out.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


MAMBA = os.path.join("docs", "results", "mamba")
SAMPLERS = ["sgld", "sgld-cv", "sghmc", "sghmc-cv", "sgnht", "sgnht-cv"]


def entries(path):
    """{tuner name: evaluation} of one committed compare report."""
    rep = json.load(open(os.path.join(ROOT, path)))
    return {e["name"]: e["evaluation"] for e in rep["result"]["entries"]}


def quality(ev):
    """The problem's quality measure of one evaluation and its name: the paper's xi (logistic regression, Sec.
    4.1), test RMSE (PMF, Sec. 4.2), test log-loss (BNN)."""
    for key, name in (("xi", "ξ"), ("test_rmse", "test RMSE"), ("test_log_loss", "test log-loss")):
        if ev.get(key) is not None:
            return ev[key], name
    return math.nan, "-"


def mamba_speedup_block(name):
    """Speed-up = a grid search's gradient evaluations (sampling and scoring) / MAMBA-KSD's, per sampler, against
    grid search by log-loss (the paper's baseline, Coullon, South & Nemeth 2023, Sec. 4.1-4.2) and by KSD
    (tunelab's: the same metric on the same grid). Below 1: that grid costs less than MAMBA-KSD."""
    rows, cheaper = [], []
    if name == "logreg":
        sets = [("run", "table1/fresh-run"), ("plain", "table1/fresh-plain-ksd")]
        src = ", ".join(f"`{os.path.join(MAMBA, d)}/SAMPLER-seedK.json`" for _, d in sets)
        head = (f"**Logistic regression, N = 10^4, seeds 1-10** (reports {src}; grid (log-loss) from the run-kernel "
                "set: its choice does not use a Stein kernel). Median [min, max] over the seeds; quality = mean ξ over "
                "the seeds (lower is better).")
        for s in SAMPLERS:
            for kern, d in sets:
                per = []
                for k in range(1, 11):
                    own = entries(os.path.join(MAMBA, d, f"{s}-seed{k}.json"))
                    ll = entries(os.path.join(MAMBA, "table1/fresh-run", f"{s}-seed{k}.json"))["grid (log-loss)"]
                    m = own["MAMBA-KSD"]
                    per.append((m["total_grad_evals"], ll["total_grad_evals"], own["grid (KSD)"]["total_grad_evals"],
                                quality(m)[0], quality(ll)[0]))
                rows.append((f"{s}, {kern} kernel", per))
    else:
        d = os.path.join(MAMBA, name)
        head = f"**`{name}`** (reports `{d}/SAMPLER.json`, one seed each)."
        for s in SAMPLERS:
            f = os.path.join(d, s + ".json")
            if not os.path.exists(os.path.join(ROOT, f)):
                continue
            own = entries(f)
            m, ll, gk = own["MAMBA-KSD"], own.get("grid (log-loss)"), own.get("grid (KSD)")
            rows.append((s, [(m["total_grad_evals"], ll and ll["total_grad_evals"], gk and gk["total_grad_evals"],
                              quality(m)[0], ll and quality(ll)[0])]))
    qname = quality(entries(os.path.join(MAMBA, "table1/fresh-run/sgld-seed1.json") if name == "logreg"
                            else os.path.join(MAMBA, name, rows[0][0] + ".json"))["MAMBA-KSD"])[1]
    out = [head, "",
           f"| sampler | MAMBA-KSD grad evals | grid (log-loss) grad evals | speed-up vs grid (log-loss) (the paper's) "
           f"| grid (KSD) grad evals | speed-up vs grid (KSD) | {qname}: MAMBA-KSD / grid (log-loss) |",
           "|---|---|---|---|---|---|---|"]

    def col(vals, fmt):
        vals = [v for v in vals if v is not None]
        if not vals:
            return "-"
        med, lo, hi = quantiles(vals)
        return fmt(med) if lo == hi else f"{fmt(med)} [{fmt(lo)}, {fmt(hi)}]"

    def speed(v):
        return f"{v:.2f}" if v < 10 else f"{v:.1f}"

    def fin(v):
        return f"{v:.4f}" if math.isfinite(v) else "not finite"

    for label, per in rows:
        ll_speed = [p[1] / max(p[0], 1) for p in per if p[1] is not None]
        k_speed = [p[2] / max(p[0], 1) for p in per if p[2] is not None]
        if ll_speed and quantiles(ll_speed)[0] < 1:
            cheaper.append(f"{label} ({speed(quantiles(ll_speed)[0])})")
        qm = sum(p[3] for p in per) / len(per)
        ql = [p[4] for p in per if p[4] is not None]
        out.append(f"| {label} | {col([p[0] for p in per], lambda v: f'{v:.3g}')} | "
                   f"{col([p[1] for p in per], lambda v: f'{v:.3g}')} | {col(ll_speed, speed)} | "
                   f"{col([p[2] for p in per], lambda v: f'{v:.3g}')} | {col(k_speed, speed)} | "
                   f"{fin(qm)} / " + (fin(sum(ql) / len(ql)) if ql else "-") + " |")
    out += ["", "Grid (log-loss) costs less than MAMBA-KSD (median speed-up below 1) for: "
            + ("; ".join(cheaper) if cheaper else "none of these samplers") + "."]
    return "\n".join(out) + "\n"


def hoag_rows(rep):
    """Per method name: [(passes to target or inf, final relative suboptimality)] over the report's seeds."""
    target = rep["target"]
    rows = {}
    for s in rep["seeds"]:
        ref = s["reference_optimum"]
        for m in s["methods"]:
            sub = [(b - ref) / abs(ref) for b in m["best_outer_loss"]]
            hit = next((i for i, v in enumerate(sub) if v <= target), None)
            rows.setdefault(m["name"], []).append((m["cost"][hit] if hit is not None else math.inf, sub[-1]))
    return rows


def hoag_summary_block(_):
    d = os.path.join("docs", "results", "hoag")
    names = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".json"))
    order = ["logreg", "logreg-cap1000", "logreg-authors-step", "lesson", "mnist", "mnist-per-feature", "diabetes",
             "kernel-ridge"]
    names.sort(key=lambda n: (order.index(n) if n in order else len(order), n))
    cols = ["HOAG (exponential)", "HOAG (quadratic)", "HOAG (cubic)", "HOAG (exact)", "Bayesian optimisation (EI)",
            "random search", "grid search", "iterative differentiation"]
    short = ["HOAG exponential", "HOAG quadratic", "HOAG cubic", "HOAG exact", "GP-BO (EI)", "random", "grid",
             "iterative diff."]
    out = [f"Passes over the train data to a relative suboptimality of 1e-3, median [min, max] over the seeds "
           f"(\"never\" when half or more did not reach it), reached / seeds; then the median final relative "
           f"suboptimality. Generated from every raw report in `{d}/` (each setting's page has the full tables).", "",
           "| setting (seeds, inner cap, step rule) | " + " | ".join(short) + " |", "|---|" + "---|" * len(cols)]
    for n in names:
        rep = json.load(open(os.path.join(ROOT, d, n + ".json")))
        rows = hoag_rows(rep)
        seeds = [s["seed"] for s in rep["seeds"]]
        cells = []
        for c in cols:
            r = rows.get(c)
            if not r:
                cells.append("-")
                continue
            med, lo, hi = quantiles([x[0] for x in r])
            reached = sum(1 for x in r if math.isfinite(x[0]))
            span = "" if reached == 0 else f" [{show(lo, 0)}, {show(hi, 0)}]"
            cells.append(f"{show(med, 0)}{span}, {reached}/{len(r)}; {sci(quantiles([x[1] for x in r])[0])}")
        out.append(f"| `{n}` ({seeds[0]}-{seeds[-1]}, {rep['max_inner_iter']}, {rep['step_rule']}) | "
                   + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def pmf_probe_block(name):
    path = os.path.join(MAMBA, "page", name + ".json")
    p = json.load(open(os.path.join(ROOT, path)))
    out = [f"`{p['preset']}`, seed {p['seed']}, d = {p['d']} (raw report `{path}`); test RMSE of the mean rating alone "
           f"{p['test_rmse_mean_predictor']:.4f}, of the MAP {p['test_rmse_map']:.4f}:", "",
           "| samples | h | batch | test RMSE | KSD | mean sd, best- / worst-identified quarter | sd / exact sd | xi | "
           "mean - MAP (Laplace sds) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in p["rows"]:
        label = r["name"] + (f", {p['reference_draws']:,} draws" if r["step"] == "-" else "")
        out.append(f"| {label} | {r['step']} | {r['batch']} | {r['test_rmse']:.4f} | {r['ksd']:.2f} | "
                   f"{r['sd_strong']:.4f} / {r['sd_weak']:.4f} | {r['sd_ratio_strong']:.2f} / {r['sd_ratio_weak']:.2f} | "
                   f"{r['xi']:.3f} | {r['mean_from_map']:.2f} |")
    return "\n".join(out) + "\n"


def _lowest(cand, key):
    """Each candidate tuner's evaluation value `key` (None when absent) and the names of those with the lowest, joined
    by " = " (a tie names all)."""
    vals = {k: e["evaluation"].get(key) for k, e in cand.items()}
    low = min(v for v in vals.values() if v is not None)
    return vals, " = ".join(k for k, v in vals.items() if v == low)


def pmf_kernels_block(name):
    """The paper's PMF (App. B.2) with both Stein kernels: per sampler MAMBA-KSD's choice and its fresh-evaluation test
    RMSE and posterior sd under the run kernel (docs/results/mamba/NAME/) and the paper's plain kernel
    (docs/results/mamba/NAME-plain/), beside grid (log-loss) and the heuristic of the run-kernel reports (they use
    no Stein kernel: the same runs), and which tuner has the lowest RMSE."""
    cfgs = [json.load(open(os.path.join(ROOT, MAMBA, d, SAMPLERS[0] + ".json")))["config"] for d in (name, name + "-plain")]
    seeds = {(c["seed"], c["data"]["seed"]) for c in cfgs}
    if len(seeds) != 1:
        raise ValueError(f"{name} and {name}-plain were run on different seeds: {sorted(seeds)}")
    run_seed, data_seed = seeds.pop()
    seed_text = (f"run and data seed {run_seed}" if run_seed == data_seed
                 else f"run seed {run_seed}, data seed {data_seed}")
    out = [f"The paper's PMF, {seed_text} (reports `{MAMBA}/{name}/SAMPLER.json`, run kernel, and "
           f"`{MAMBA}/{name}-plain/SAMPLER.json`, the paper's plain kernel; grid (log-loss) and the heuristic from the "
           "first, they use no Stein kernel). Test RMSE of a fresh chain from the MAP; sd = the chosen arm's posterior "
           "sd averaged over the coordinates (its tuning chain); \"-\": no finite RMSE.", "",
           "| sampler | MAMBA-KSD, run kernel: h, batch, sd, RMSE | MAMBA-KSD, plain kernel: h, batch, sd, RMSE | "
           "grid (KSD), plain: RMSE | grid (log-loss) RMSE | heuristic RMSE | lowest RMSE |",
           "|---|---|---|---|---|---|---|"]
    f4 = lambda v: "-" if v is None else f"{v:.4f}"
    for smp in SAMPLERS:
        if not os.path.exists(os.path.join(ROOT, MAMBA, name + "-plain", smp + ".json")):
            out.append(f"| {smp} | not run with the plain kernel | | | | | |")
            continue
        run, plain = ({e["name"]: e for e in json.load(open(os.path.join(ROOT, MAMBA, d, smp + ".json")))["result"]["entries"]}
                      for d in (name, name + "-plain"))
        arm = lambda e: (f"{e['best']['step']:.2e}, {e['best']['batch']}, {e['best']['posterior']['std_avg']:.3f}, "
                         f"{f4(e['evaluation'].get('test_rmse'))}")
        cand = {"MAMBA-KSD (run)": run["MAMBA-KSD"], "MAMBA-KSD (plain)": plain["MAMBA-KSD"],
                "grid (KSD) (plain)": plain["grid (KSD)"], "grid (log-loss)": run["grid (log-loss)"],
                "heuristic": run["heuristic"]}
        rm, best = _lowest(cand, "test_rmse")
        out.append(f"| {smp} | {arm(run['MAMBA-KSD'])} | {arm(plain['MAMBA-KSD'])} | {f4(rm['grid (KSD) (plain)'])} | "
                   f"{f4(rm['grid (log-loss)'])} | {f4(rm['heuristic'])} | {best} |")
    return "\n".join(out) + "\n"


def bnn_kernels_block(name):
    """The BNN comparison with both Stein kernels: per sampler MAMBA-KSD's choice and its fresh-evaluation accuracy,
    ECE and test log-loss under the run kernel (docs/results/mamba/NAME/) and the paper's plain kernel
    (docs/results/mamba/NAME-plain/, MAMBA-KSD only: scripts/reproduce/mamba/mnist-bnn-table.sh with KERNEL=plain),
    beside grid (log-loss) and the heuristic of the run-kernel reports (they use no Stein kernel: the same runs), and
    which choice has the lowest test log-loss. Only kernel-free quantities are compared: a KSD under one kernel is
    not comparable with one under the other."""
    plain_dir = os.path.join(ROOT, MAMBA, name + "-plain")
    ran = [smp for smp in SAMPLERS if os.path.exists(os.path.join(plain_dir, smp + ".json"))]
    reps = {d: {smp: json.load(open(os.path.join(ROOT, MAMBA, d, smp + ".json"))) for smp in ran}
            for d in (name, name + "-plain")}
    keys = {(r["config"]["seed"], json.dumps(r["config"]["evaluation"], sort_keys=True), json.dumps(r["config"]["model"], sort_keys=True))
            for by in reps.values() for r in by.values()}
    if len(keys) != 1:
        raise ValueError(f"{name} and {name}-plain differ in seed, evaluation or model")
    kernels = {e["kernel"]["kind"] for r in reps[name + "-plain"].values() for e in r["result"]["entries"] if e["name"] == "MAMBA-KSD"}
    if kernels != {"plain"}:
        raise ValueError(f"{name}-plain: MAMBA-KSD ran with kernel(s) {sorted(kernels)}, expected plain")
    out = [f"Reports `{MAMBA}/{name}/SAMPLER.json` (run kernel; grid (log-loss) and the heuristic, which use no Stein "
           f"kernel) and `{MAMBA}/{name}-plain/SAMPLER.json` (MAMBA-KSD with the paper's plain kernel), the same seed, "
           "data and fresh evaluation chain length. sd = the chosen arm's posterior sd averaged over the weights (its "
           "tuning chain); accuracy (acc), ECE and test log-loss of the chosen arm's fresh chain on the held-out digits.", "",
           "| sampler | MAMBA-KSD, run kernel: h, batch, sd; acc, ECE, log-loss | MAMBA-KSD, plain kernel: h, batch, sd; "
           "acc, ECE, log-loss | grid (log-loss): sd; acc, ECE, log-loss | heuristic: sd; acc, ECE, log-loss | "
           "lowest test log-loss |",
           "|---|---|---|---|---|---|"]
    f4 = lambda v: "-" if v is None else f"{v:.4f}"
    for smp in SAMPLERS:
        if smp not in ran:
            out.append(f"| {smp} | not run with the plain kernel | | | | |")
            continue
        run, plain = ({e["name"]: e for e in reps[d][smp]["result"]["entries"]} for d in (name, name + "-plain"))
        cal = lambda e: e["evaluation"].get("calibration") or {}
        sd = lambda e: f"{e['best']['posterior']['std_avg']:.3f}"
        full = lambda e: (f"{e['best']['step']:.2e}, {e['best']['batch']}, {sd(e)}; {f4(cal(e).get('accuracy'))}, "
                          f"{f4(cal(e).get('ece'))}, {f4(e['evaluation'].get('test_log_loss'))}")
        short = lambda e: (f"{sd(e)}; {f4(cal(e).get('accuracy'))}, {f4(cal(e).get('ece'))}, "
                           f"{f4(e['evaluation'].get('test_log_loss'))}")
        cand = {"MAMBA-KSD (run)": run["MAMBA-KSD"], "MAMBA-KSD (plain)": plain["MAMBA-KSD"],
                "grid (log-loss)": run["grid (log-loss)"], "heuristic": run["heuristic"]}
        _, best = _lowest(cand, "test_log_loss")
        out.append(f"| {smp} | {full(run['MAMBA-KSD'])} | {full(plain['MAMBA-KSD'])} | {short(run['grid (log-loss)'])} | "
                   f"{short(run['heuristic'])} | {best} |")
    return "\n".join(out) + "\n"


def tvo_block(name):
    """The TVO table of scripts/reproduce/tvo/table.mjs (the script the run wrote it with), run on the committed
    reports in docs/results/tvo/NAME/."""
    import subprocess
    d = os.path.join("docs", "results", "tvo", name)
    out = subprocess.run(["node", os.path.join(ROOT, "scripts", "reproduce", "tvo", "table.mjs"), os.path.join(ROOT, d)],
                         capture_output=True, text=True, check=True).stdout
    return f"Raw reports: `{d}/`.\n\n" + out.rstrip("\n") + "\n"


def _tvo_report(name):
    """The one committed TVO report of docs/results/tvo/NAME/ (or docs/results/tvo/NAME.report.json)."""
    d = os.path.join(ROOT, "docs", "results", "tvo", name)
    if os.path.isdir(d):
        fs = sorted(f for f in os.listdir(d) if f.endswith(".report.json"))
        if len(fs) != 1:
            raise SystemExit(f"doc_tables: docs/results/tvo/{name}/ holds {len(fs)} reports, expected 1")
        return os.path.join("docs", "results", "tvo", name, fs[0]), json.load(open(os.path.join(d, fs[0])))
    rel = os.path.join("docs", "results", "tvo", name + ".report.json")
    return rel, json.load(open(os.path.join(ROOT, rel)))


def _mean_sd(v):
    m = sum(v) / len(v)
    return m, (math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else float("nan"))


def tvo_long_block(name):
    """A TVO run of few methods over seeds (scripts/reproduce/tvo/long-d10.sh): windows and GP choices per run (the
    GP chooses after its d random initial schedules: `gp.init` unset is the free points + 1 = d), test log p(x) and
    KL per seed with mean ± sd, and the paired differences GP-UCB minus each method."""
    rel, rep = _tvo_report(name)
    c, r = rep["config"], rep["result"]
    d = r["d"]
    init = (c.get("gp") or {}).get("init") or d
    seeds = [c["seed"] + k for k in range(c["repeats"])]
    by = {}
    for run in r["runs"]:
        by.setdefault(run["method"], {})[run["repeat"]] = run
    win = c["window"]
    wtxt = (f"fixed windows of {win} epochs" if isinstance(win, (int, float)) else
            f"the paper's windows (w = {win['initial']}, one more every {win['grow_every']} rounds, early update on a "
            f"drop of {win['early_drop']})")
    out = [f"Raw report: `{rel}`. {c['data']['source']}, d = {d}, {c['epochs']} epochs, {wtxt}, beta in "
           f"[{c['beta_box'][0]}, {c['beta_box'][1]}], test log p(x) by IWAE with K = {r['iwae_k']}; seeds "
           f"{', '.join(map(str, seeds))}; wall time {rep['compute']['wall_seconds']:.0f} s on "
           f"{rep['compute']['threads']} thread(s).", "",
           "| method | windows per run | GP choices per run | test log p(x) per seed | mean ± sd | test KL, mean ± sd |",
           "|---|---:|---:|---:|---:|---:|"]
    for m, runs in by.items():
        ws = sorted({len(x["windows"]) for x in runs.values()})
        gp = sorted({max(0, len(x["windows"]) - init) for x in runs.values()}) if m.startswith("gp-ucb") else None
        lp = [runs[k]["final_metrics"]["log_px"] for k in sorted(runs)]
        kl = [runs[k]["final_metrics"]["kl"] for k in sorted(runs)]
        rng = lambda v: "-".join(map(str, sorted({v[0], v[-1]})))
        out.append(f"| {m} | {rng(ws)} | {rng(gp) if gp else '-'} | {', '.join(f'{x:.3f}' for x in lp)} | "
                   "{:.3f} ± {:.3f} | ".format(*_mean_sd(lp)) + "{:.3f} ± {:.3f} |".format(*_mean_sd(kl)))
    out += ["", "Paired difference of test log p(x), GP-UCB minus each method (positive = GP-UCB better):", "",
            "| method | mean ± sd | per seed |", "|---|---:|---:|"]
    g = by["gp-ucb"]
    for m, runs in by.items():
        if m == "gp-ucb":
            continue
        diff = [g[k]["final_metrics"]["log_px"] - runs[k]["final_metrics"]["log_px"] for k in sorted(runs)]
        out.append("| {} | {:+.3f} ± {:.3f} | ".format(m, *_mean_sd(diff)) + ", ".join(f"{x:+.3f}" for x in diff) + " |")
    return "\n".join(out) + "\n"


def tvo_one_block(name):
    """The table of one TVO report (scripts/reproduce/tvo/mnist-table.mjs, the script the run wrote it with), run on
    the committed report docs/results/tvo/NAME.report.json."""
    import subprocess
    rel = os.path.join("docs", "results", "tvo", name + ".report.json")
    out = subprocess.run(["node", os.path.join(ROOT, "scripts", "reproduce", "tvo", "mnist-table.mjs"),
                          os.path.join(ROOT, rel)], capture_output=True, text=True, check=True).stdout
    return f"Raw report: `{rel}`.\n\n" + out.rstrip("\n") + "\n"


def tvo_seeds_block(name):
    """The paper's VAE and data over its seeds (scripts/reproduce/tvo/mnist-paper-seeds.mjs): per method the test
    log p(x) of each seed, mean ± sd, paired differences and ranks, read from the per-seed tables (each itself a
    generated block `tvo-one:NAME/NAME-SEED` of its committed report, checked on its own)."""
    import subprocess
    if name != "mnist-paper":
        raise SystemExit(f"doc_tables: tvo-seeds:{name}: only mnist-paper has per-seed tables")
    out = subprocess.run(["node", os.path.join(ROOT, "scripts", "reproduce", "tvo", "mnist-paper-seeds.mjs")],
                         capture_output=True, text=True, check=True).stdout
    return out.rstrip("\n") + "\n"


def tvo_box_block(name):
    """GP-UCB with a wider beta box against the per-seed tables of the paper's box
    (scripts/reproduce/tvo/mnist-paper-box.mjs, the script the run wrote it with), run on the committed reports in
    docs/results/tvo/NAME/ (one per seed, seed order)."""
    import subprocess
    d = os.path.join("docs", "results", "tvo", name)
    reps = sorted((f for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".report.json")),
                  key=lambda f: json.load(open(os.path.join(ROOT, d, f)))["config"]["seed"])
    out = subprocess.run(["node", os.path.join(ROOT, "scripts", "reproduce", "tvo", "mnist-paper-box.mjs"),
                          *(os.path.join(ROOT, d, f) for f in reps)], capture_output=True, text=True, check=True).stdout
    return f"Raw reports: `{d}/`.\n\n" + out.rstrip("\n") + "\n"


GPUCB = os.path.join("docs", "results", "bandit", "gpucb")
GPUCB_RUNS = ["branin", "tvo-schedule", "wave1d-drift", "branin-drift", "hartmann3-drift"]


GPUCB_DIRS = {"all": GPUCB, "matern": GPUCB + "-matern"}


@functools.lru_cache(maxsize=None)
def _gpucb_report(name, which="all"):
    """One committed GP-UCB report, read once per run of this script (the table and the quotes read each often)."""
    return json.load(open(os.path.join(ROOT, GPUCB_DIRS[which], name + ".json")))


def _gpucb_simple(alg, band):
    """(mean, lo, hi) of an algorithm's final simple regret from its per-repeat recommendations (optimum at the last
    round minus the recommended arm's true value), checked against the report's own summary."""
    vals = [r["optimum"] - r["value"] for r in alg["recommended"]]
    s = summarize(vals, band)
    own = alg["final_simple_regret"]
    if any(abs(a - b) > 1e-9 * max(1.0, abs(b)) for a, b in zip(s, (own["mean"], own["lo"], own["hi"]))):
        raise ValueError(f"{alg['name']}: per-repeat simple regrets do not give the report's summary")
    return s


def _gpucb(name, alg_name, which, settings="all"):
    """(mean, lo, hi) of `which` ('simple' or 'cumulative') final regret of one algorithm in a committed GP-UCB
    report docs/results/bandit/gpucb/NAME.json (settings "matern": gpucb-matern/NAME.json)."""
    rep = _gpucb_report(name, settings)
    a = next(a for a in rep["result"]["algorithms"] if a["name"] == alg_name)
    if which == "simple":
        return _gpucb_simple(a, rep["config"]["band"])
    c = a["final_cumulative_regret"]
    return c["mean"], c["lo"], c["hi"]


def _gpucb_problem(cfg):
    p = cfg["problem"]
    if p["kind"] == "function":
        what = p["function"] + (f" drifting by {p['drift']:g} with period {p['period']:g} rounds" if p.get("drift") else "")
        return f"{what}, noise sd {p['noise_sd']:g}"
    return p["kind"] + " (" + ", ".join(f"{k} {v:g}" for k, v in p.items() if k != "kind" and v is not None) + ")"


def gpucb_block(settings):
    """GP-UCB and its ablations on the test problems of scripts/reproduce/bandit/gpucb-numbers.sh, from the committed
    slim reports docs/results/bandit/gpucb/*.json (`all`, the paper's settings) or gpucb-matern/*.json (`matern`,
    GPUCB_SETTINGS=matern): final simple regret (from the per-repeat recommendations) and cumulative regret (the
    report's summary; the report keeps no per-repeat cumulative regret), mean [band]."""
    if settings not in GPUCB_DIRS:
        raise SystemExit(f"doc_tables: gpucb:{settings}: expected one of {sorted(GPUCB_DIRS)}")
    out = ["| problem | rounds x repeats | algorithm | final simple regret | cumulative regret |",
           "|---|---|---|---|---|"]
    notes, problems, gps = [], [], set()
    for name in GPUCB_RUNS:
        rep = _gpucb_report(name, settings)
        cfg = rep["config"]
        problems.append(f"`{name}` = {_gpucb_problem(cfg)}")
        rows = []
        for a, ac in zip(rep["result"]["algorithms"], cfg["algorithms"]):
            if ac.get("kernel"):
                k = ac["kappa"]
                gps.add(f"{ac['kernel']} kernel, kappa_t " + (f"of Theorem 1 (delta {k['delta']:g})"
                                                             if k["type"] == "theorem" else f"{k['type']} {k.get('value')}"))
            s = _gpucb_simple(a, cfg["band"])
            c = _gpucb(name, a["name"], "cumulative", settings)
            rows.append((a["name"], c))
            out.append(f"| `{name}` | {rep['result']['last_round']} x {cfg['repeats']} | {a['name']} | "
                       f"{g4(s[0])} [{g4(s[1])}, {g4(s[2])}] | {g4(c[0])} [{g4(c[1])}, {g4(c[2])}] |")
        best, sep, tie = lowest_and_split(rows)
        notes.append(f"`{name}`: lowest cumulative regret {best[0]}"
                     + (", separated from " + ", ".join(sep) if sep else "")
                     + ("; inside the band of " + ", ".join(tie) if tie else "") + ".")
    head = (f"Seed 1, band = mean ± {_gpucb_report(GPUCB_RUNS[0], settings)['config']['band']:g} s.e. over repeats (clipped to "
            "the repeats' range); every GP-UCB variant with the " + "; ".join(sorted(gps)) + ". Problems: "
            + "; ".join(problems) + f". Raw reports `{GPUCB_DIRS[settings]}/*.json` (`"
            + ("GPUCB_SETTINGS=matern " if settings == "matern" else "") + "bash "
            "scripts/reproduce/bandit/gpucb-numbers.sh`); simple regret is recomputed from each repeat's recommended "
            "arm, cumulative regret is the report's summary (no per-repeat value is kept).")
    return head + "\n\n" + "\n".join(out) + "\n\n" + " ".join(notes) + "\n"


STEP = os.path.join("docs", "results", "step-size")


def _step_report(name):
    return json.load(open(os.path.join(ROOT, STEP, name + ".json")))


def _upper_median(v):
    """The median the CLI's step-size table prints (the upper middle value of an even count)."""
    return sorted(v)[len(v) // 2]


def _step_rows(name):
    res = _step_report(name)["result"]
    return [res["gp_ucb"]] + res["fixed"]


def step_size_block(name):
    """GP-UCB choosing an SG-MCMC step size window by window against fixed steps (one run each, the same streams),
    from the committed slim report docs/results/step-size/NAME.json (scripts/reproduce/bandit/step-size.sh)."""
    rep = _step_report(name)
    cfg = rep["config"]
    gp = cfg["gp"]
    kappa = (f"constant kappa {gp['kappa']['value']:g}" if gp["kappa"]["type"] == "constant"
             else f"kappa {gp['kappa']['type']}")
    out = [f"Preset `{name}`, seed {cfg['seed']}: {cfg['model']['kind']} regression (N = {cfg['data']['n']}, d = "
           f"{cfg['data']['d']}), {cfg['sampler']['kind'].upper()} with batch {cfg['sampler']['batch']:g} from the "
           f"{'origin' if cfg['start'] == 'zero' else cfg['start']}, {cfg['windows']} windows of {cfg['window_iters']} iterations; GP-UCB over log10 h in "
           f"[{cfg['log10_step'][0]:g}, {cfg['log10_step'][1]:g}] ({gp['kernel']}, {kappa}, temporal kernel); tail "
           f"KSD = the KSD of the pooled last {cfg['tail']:.0%} of windows. One run each, no repeats. Raw report "
           f"`docs/results/step-size/{name}.json`.", "",
           "| run | tail KSD | median h over windows | diverged windows | gradient evaluations |", "|---|---|---|---|---|"]
    rows = _step_rows(name)
    for r in rows:
        out.append(f"| {r['name']} | {r['tail_ksd']:.2f} | {_upper_median(r['steps']):.3e} | {r['diverged_windows']} | "
                   f"{r['grad_evals']:,} |")
    gpr, fixed = rows[0], rows[1:]
    beaten = [f for f in fixed if gpr["tail_ksd"] < f["tail_ksd"]]
    best = min(fixed, key=lambda f: f["tail_ksd"])
    out += ["", f"GP-UCB's tail KSD is below {len(beaten)} of the {len(fixed)} fixed steps; the best fixed step is "
            f"{best['name']} ({best['tail_ksd']:.2f}"
            + (", below GP-UCB's" if best["tail_ksd"] < gpr["tail_ksd"] else ", above GP-UCB's") + ")."]
    return "\n".join(out) + "\n"


GENERATORS = {"bandit": bandit_block, "hoag": hoag_block, "hoag-summary": hoag_summary_block, "pmf-probe": pmf_probe_block, "tvo": tvo_block, "pmf-kernels": pmf_kernels_block, "bnn-kernels": bnn_kernels_block, "tvo-long": tvo_long_block, "tvo-one": tvo_one_block, "tvo-seeds": tvo_seeds_block, "tvo-box": tvo_box_block, "mamba-speedup": mamba_speedup_block,
              "gpucb": gpucb_block, "step-size": step_size_block,
              "lr": lambda arg: {"numbers": lr_numbers_block, "multitask": lr_multitask_block}[arg](arg)}


LR = os.path.join("docs", "results", "lr-schedule")


def lr_reports(sub):
    """{name without .json: result} of the committed learning-rate reports in LR/sub."""
    d = os.path.join(ROOT, LR, sub)
    return {f[:-5]: json.load(open(os.path.join(d, f)))["result"] for f in sorted(os.listdir(d)) if f.endswith(".json")}


def lr_numbers_block(_):
    reps = lr_reports("numbers")
    presets = []
    for name in reps:
        p = name.rsplit("-", 1)[0]
        if p not in presets:
            presets.append(p)
    order = ["noisy-quadratic", "digits-logreg", "digits", "mnist"]
    presets.sort(key=lambda p: order.index(p) if p in order else len(order))
    f4 = lambda v: f"{v:.4f}"
    out = [f"Final training loss, median [min, max] over the seeds (raw reports `{LR}/numbers/PRESET-SEED.json`). "
           "\"best of 6\": every schedule of the family run 6 times (the tuner's Q = 6 copies' compute) and the best "
           "run of the best schedule kept, tunelab's matched-compute comparison; \"rank, each run once\": the "
           "tuner's final loss among the family's schedules run once each (their first run), as the paper "
           "compares (Picheny et al. 2020, Sec. 3.2), 1 = below every schedule.", "",
           "| preset | seeds | best constant (best of 6) | best exp. decay (best of 6) | dynamic GP (Q = 6) | "
           "dynamic below both | rank among the 5 constants, each run once, per seed | rank among the 12 decays, "
           "each run once, per seed | per seed (constant / decay / dynamic) |",
           "|---|---|---|---|---|---|---|---|---|"]
    totals = {"constant": [], "exponential-decay": []}
    for p in presets:
        rows = sorted(((int(k.rsplit("-", 1)[1]), r) for k, r in reps.items() if k.rsplit("-", 1)[0] == p))
        vals = []
        ranks = {"constant": [], "exponential-decay": []}
        sizes = {}
        for _, r in rows:
            dyn = next(m for m in r["methods"] if m["family"] == "dynamic")
            vals.append((r["best_constant"]["final_loss"], r["best_decay"]["final_loss"], dyn["final_loss"]))
            for fam in r["per_schedule"]:
                ranks[fam["family"]].append(fam["rank"])
                totals[fam["family"]].append(fam["rank"])
                sizes[fam["family"]] = fam["schedules"]

        def col(i):
            med, lo, hi = quantiles([v[i] for v in vals])
            return f"{f4(med)} [{f4(lo)}, {f4(hi)}]"
        wins = sum(1 for c, d, y in vals if y < min(c, d))
        rk = lambda fam: ", ".join(map(str, ranks[fam])) + f" (of {sizes.get(fam, 0) + 1})"
        per = "; ".join(f"{f4(c)} / {f4(d)} / {f4(y)}" for c, d, y in vals)
        out.append(f"| {p} | {', '.join(str(s) for s, _ in rows)} | {col(0)} | {col(1)} | {col(2)} | "
                   f"{wins} of {len(vals)} | {rk('constant')} | {rk('exponential-decay')} | {per} |")
    n = len(totals["exponential-decay"])
    dec, con = totals["exponential-decay"], totals["constant"]
    out += ["", f"Each schedule run once, as the paper: the tuner is below every decay in "
            f"{sum(1 for r in dec if r == 1)} of {n} preset-seed runs and below all but one in "
            f"{sum(1 for r in dec if r == 2)} (the paper's CIFAR outcome, \"outperforms all exponential decay schedules "
            f"but one\"); its rank among the 12 decays has median {quantiles(dec)[0]:g} [{min(dec)}, {max(dec)}] of 13. "
            f"Among the 5 constants: below every one in {sum(1 for r in con if r == 1)} of {len(con)}, median rank "
            f"{quantiles(con)[0]:g} [{min(con)}, {max(con)}] of 6."]
    return "\n".join(out) + "\n"


def lr_multitask_block(_):
    reps = lr_reports("multitask")
    rows = sorted(((int(k.split("-")[1]), r) for k, r in reps.items()), key=lambda x: x[0])
    K = [("universal", "warm: universal"), ("learn_location", "warm: learn location"), ("cold", "cold Algorithm 2"),
         ("random", "random search")]
    f5 = lambda v: f"{v:.5f}"
    table, eq, ranks = [], [], {k: [] for k, _ in K}
    for seed, r in rows:
        mt = r["multitask"]
        best = [mt[k]["best_so_far"][-1] for k, _ in K]
        once = lambda fam: sorted(m["repeat_finals"][0] for m in r["methods"] if m["family"] == fam)
        dec = once("exponential-decay")
        # expected best of 6 decays drawn without replacement from the 12, each run once: the k-th smallest is the
        # minimum of a random 6-subset with probability C(12 - k, 5) / C(12, 6)
        n, q = len(dec), 6
        e6 = sum(v * math.comb(n - k, q - 1) for k, v in enumerate(dec, 1)) / math.comb(n, q) if n >= q else math.nan
        grid = mt["target_grid"]
        for (k, _), b in zip(K, best):
            ranks[k].append(1 + sum(1 for v in grid if v < b))
        table.append((seed, best, min(once("constant")), min(dec), e6, min(grid)))
    out = [f"Final training loss on the new task, per seed (raw reports `{LR}/multitask/mt-SEED.json`). Each tuner "
           "has 6 runs (its best kept); every constant and decay is run once, so \"best of 12 decays\" spends 12 runs "
           "and \"best of 6 decays\" (equal compute: the expected best of 6 decays drawn at random from the 12, "
           "exactly over all 924 draws) 6; \"all 33\" is the best of the 33 candidates, each run once.", "",
           "| seed | " + " | ".join(f"{n} (6 runs)" for _, n in K)
           + " | best of 5 constants (5 runs) | best of 12 decays (12 runs) | best of 6 decays (6 runs, expected) | "
           "all 33 candidates (33 runs) |",
           "|---|" + "---|" * 8]
    for seed, best, c, d, e6, g in table:
        out.append(f"| {seed} | " + " | ".join(f5(b) for b in best) + f" | {f5(c)} | {f5(d)} | {f5(e6)} | {f5(g)} |")
    cols = [[t[1][i] for t in table] for i in range(4)] + [[t[j] for t in table] for j in (2, 3, 4, 5)]
    out.append("| median [min, max] | " + " | ".join(
        f"{f5(quantiles(c)[0])} [{f5(min(c))}, {f5(max(c))}]" for c in cols) + " |")
    nn = len(table)
    out += ["", "At equal compute (6 runs each): " + "; ".join(
        f"{name} below the expected best of 6 decays in {sum(1 for t in table if t[1][i] < t[4])} of {nn} seeds, "
        f"below the best of 12 decays in {sum(1 for t in table if t[1][i] < t[3])}" for i, (_, name) in enumerate(K))
        + ". Rank of each tuner's best run among the 33 candidates run once (1 = below all), median [min, max]: "
        + "; ".join(f"{name} {quantiles(ranks[k])[0]:g} [{min(ranks[k])}, {max(ranks[k])}]" for k, name in K) + "."]
    return "\n".join(out) + "\n"


def _speedups(set_dir, sampler, grid):
    """Median over seeds 1-10 of grid / MAMBA-KSD gradient evaluations on logistic regression (grid (log-loss) from
    the run-kernel set, whose choice uses no Stein kernel)."""
    v = []
    for k in range(1, 11):
        own = entries(os.path.join(MAMBA, "table1", set_dir, f"{sampler}-seed{k}.json"))
        g = (entries(os.path.join(MAMBA, "table1", "fresh-run", f"{sampler}-seed{k}.json"))["grid (log-loss)"]
             if grid == "grid (log-loss)" else own[grid])
        v.append(g["total_grad_evals"] / own["MAMBA-KSD"]["total_grad_evals"])
    return quantiles(v)[0]


def _one_speedup(name, sampler):
    e = entries(os.path.join(MAMBA, name, sampler + ".json"))
    return e["grid (log-loss)"]["total_grad_evals"] / e["MAMBA-KSD"]["total_grad_evals"]


def _lr_decay_ranks():
    return [fam["rank"] for r in lr_reports("numbers").values() for fam in r["per_schedule"]
            if fam["family"] == "exponential-decay"]


def _expected_best6_median():
    vals = []
    for r in lr_reports("multitask").values():
        dec = sorted(m["repeat_finals"][0] for m in r["methods"] if m["family"] == "exponential-decay")
        vals.append(sum(v * math.comb(len(dec) - k, 5) for k, v in enumerate(dec, 1)) / math.comb(len(dec), 6))
    return quantiles(vals)[0]


def _hoag_final(setting, method):
    return quantiles([x[1] for x in hoag_rows(json.load(open(os.path.join(ROOT, "docs", "results", "hoag",
                                                                          setting + ".json"))))[method]])[0]


def _tvo_paired(name, method, others):
    """Mean and sd over seeds of the paired test log p(x) difference `method` minus each of `others` (flattened)."""
    runs = {}
    for run in _tvo_report(name)[1]["result"]["runs"]:
        runs.setdefault(run["method"], {})[run["repeat"]] = run["final_metrics"]["log_px"]
    out = []
    for o in others:
        out += _mean_sd([runs[method][k] - runs[o][k] for k in sorted(runs[o])])
    return out


def _pmf_rmse(name, sampler, tuner):
    """A tuner's fresh-evaluation test RMSE in a committed compare report docs/results/mamba/NAME/SAMPLER.json."""
    return entries(os.path.join(MAMBA, name, sampler + ".json"))[tuner]["test_rmse"]


def _bandit(slug, name):
    """(mean, lo, hi) of one method's final simple regret in a committed bandit report (as its table gives it)."""
    rep = json.load(open(os.path.join(ROOT, "docs", "results", "bandit", "reports", slug + ".json")))
    return summarize(next(a["simple"] for a in rep["algorithms"] if a["name"] == name), rep["band"])


def _hoag_at_edge(setting, method="HOAG (exponential)"):
    """Seeds whose final hyperparameter lies within 1 of the box's lower edge (a committed HOAG report)."""
    rep = json.load(open(os.path.join(ROOT, "docs", "results", "hoag", setting + ".json")))
    lo = rep["config_first_seed"]["bounds"][0]
    return sum(1 for s in rep["seeds"] for m in s["methods"] if m["name"] == method and m["final_hyper"][0] < lo + 1)


def _gb(name, alg, which, settings="all"):
    """One GP-UCB figure as the gpucb:SETTINGS table prints it: "mean [lo, hi]"."""
    m, lo, hi = _gpucb(name, alg, which, settings)
    return f"{g4(m)} [{g4(lo)}, {g4(hi)}]"


def _step_ksd(name):
    """(GP-UCB's tail KSD, the best fixed step's, the other fixed steps' lowest and highest) of a step-size report."""
    rows = _step_rows(name)
    fixed = sorted(r["tail_ksd"] for r in rows[1:])
    return rows[0]["tail_ksd"], fixed[0], fixed[1], fixed[-1]


def _pmf_sd(name, sampler, tuner):
    """The chosen arm's posterior sd averaged over coordinates in a committed (slim) compare report."""
    rep = json.load(open(os.path.join(ROOT, MAMBA, name, sampler + ".json")))
    return next(e for e in rep["result"]["entries"] if e["name"] == tuner)["best"]["posterior"]["std_avg"]


def _plain_beats_baselines(name):
    """Samplers where the plain-kernel MAMBA-KSD's RMSE is below both of the paper's baselines (grid (log-loss), the
    heuristic; a baseline without a finite RMSE counts as beaten)."""
    n = 0
    for smp in SAMPLERS:
        m = _pmf_rmse(name + "-plain", smp, "MAMBA-KSD")
        base = [entries(os.path.join(MAMBA, name, smp + ".json"))[t].get("test_rmse")
                for t in ("grid (log-loss)", "heuristic")]
        n += all(b is None or m < b for b in base)
    return n


# Figures quoted in prose, each recomputed from the committed reports: (doc, text with {} for the figures, a
# function giving the figures). --check fails when the doc no longer holds the text the reports give.
QUOTES = [
    ("docs/papers/mamba.md", "Against grid (log-loss) SGHMC's speed-up is {:.2f} (logistic regression, run kernel, "
     "median of seeds 1-10; {:.2f} with the plain kernel), {:.1f} and {:.1f} (the paper's PMF, two seeds)",
     lambda: (_speedups("fresh-run", "sghmc", "grid (log-loss)"), _speedups("fresh-plain-ksd", "sghmc", "grid (log-loss)"),
              _one_speedup("pmf-paper", "sghmc"), _one_speedup("pmf-paper-seed3", "sghmc"))),
    ("docs/paper-mamba.md", "search by log-loss is the cheaper tuner on logistic regression** (speed-up {:.2f}-{:.2f} with "
     "either kernel", lambda: (min(_speedups(d, s, "grid (log-loss)") for d in ("fresh-run", "fresh-plain-ksd")
                                  for s in ("sgld", "sgld-cv", "sgnht", "sgnht-cv")),
                              max(_speedups(d, s, "grid (log-loss)") for d in ("fresh-run", "fresh-plain-ksd")
                                  for s in ("sgld", "sgld-cv", "sgnht", "sgnht-cv")))),
    ("docs/HOAG-LRSCHED.md", "it ranks {:g}th of 13 among the\ndecays at the median",
     lambda: (quantiles(_lr_decay_ranks())[0],)),
    ("docs/paper-lr-schedule.md", "of 6 decays drawn from the 12 is {:.5f}", lambda: (_expected_best6_median(),)),
    ("docs/paper-mamba.md", "(SGLD {:.3f}, SGLD-CV {:.3f}, SGHMC {:.3f} against\n  {:.3f}-{:.3f}) and better on SGNHT and "
     "SGNHT-CV ({:.3f} and {:.3f} against {:.3f} and {:.3f}), where it now has the\n  lowest RMSE of every tuner (the "
     "heuristic {:.3f} and {:.3f})",
     lambda: (*[_pmf_rmse("pmf-paper-plain", s, "MAMBA-KSD") for s in ("sgld", "sgld-cv", "sghmc")],
              min(_pmf_rmse("pmf-paper", s, "MAMBA-KSD") for s in ("sgld", "sgld-cv", "sghmc", "sghmc-cv")),
              max(_pmf_rmse("pmf-paper", s, "MAMBA-KSD") for s in ("sgld", "sgld-cv", "sghmc", "sghmc-cv")),
              *[_pmf_rmse("pmf-paper-plain", s, "MAMBA-KSD") for s in ("sgnht", "sgnht-cv")],
              *[_pmf_rmse("pmf-paper", s, "MAMBA-KSD") for s in ("sgnht", "sgnht-cv")],
              *[_pmf_rmse("pmf-paper", s, "heuristic") for s in ("sgnht", "sgnht-cv")])),
    ("docs/paper-dttts.md", "final simple regret {:.3f} [{:.3f}, {:.3f}]",
     lambda: _bandit("reservoir-beta-1-3-", "d-ttts")),
    ("docs/bandit.md", "Beta(1, 1) {:.3f} [{:.3f}, {:.3f}] vs TTTS {:.3f} [{:.3f}, {:.3f}]; Beta(3, 1) {:.3f} [{:.3f},\n"
     "  {:.3f}] vs SH {:.3f} [{:.3f}, {:.3f}]; 0.25 + 0.5 Beta(1, 1) {:.3f} [{:.3f}, {:.3f}] vs SH {:.3f} [{:.3f}, {:.3f}]",
     lambda: (*_bandit("reservoir-beta-1-1-", "d-ttts"), *_bandit("reservoir-beta-1-1-", "ttts"),
              *_bandit("reservoir-beta-3-1-", "d-ttts"), *_bandit("reservoir-beta-3-1-", "successive-halving"),
              *_bandit("reservoir-0-25-0-5-beta-1-1-", "d-ttts"),
              *_bandit("reservoir-0-25-0-5-beta-1-1-", "successive-halving"))),
    ("docs/tvo.md", "Paired, GP-UCB minus random schedules (uniform in the same box,\nno GP) is {:+.3f} ± {:.3f} (ahead "
     "on two of three seeds, within the spread), minus log-uniform {:+.3f} ± {:.3f} (behind\non all three)",
     lambda: _tvo_paired("long-d10", "gp-ucb", ("random", "log-uniform"))),
    ("docs/hoag-bench/logreg.md", "iterate is {} above the optimum at the median",
     lambda: (sci(_hoag_final("logreg", "HOAG (exponential)")),)),
    ("docs/hoag-bench/logreg.md", "HOAG (exponential) ends {} above the optimum at the median instead of\n{}, and at "
     "the box's lower edge in {} of 10 seeds instead of {}",
     lambda: (sci(_hoag_final("logreg-sum-loss", "HOAG (exponential)")), sci(_hoag_final("logreg", "HOAG (exponential)")),
              _hoag_at_edge("logreg-sum-loss"), _hoag_at_edge("logreg"))),
    ("docs/paper-hoag.md", "the same seeds) it ends {} above the optimum at the median and at the edge in {} of 10\n  seeds",
     lambda: (sci(_hoag_final("logreg-sum-loss", "HOAG (exponential)")), _hoag_at_edge("logreg-sum-loss"))),
    ("docs/hoag-bench/lesson.md", "HOAG (exponential) ends {} above the optimum at the median, at the box's lower edge in "
     "{} of 10 seeds", lambda: (sci(_hoag_final("lesson-sum-loss", "HOAG (exponential)")), _hoag_at_edge("lesson-sum-loss"))),
    ("docs/hoag-bench/mnist.md", "touches the target in 4 of 10 seeds and ends\n{:.1f} above the optimum",
     lambda: (_hoag_final("mnist", "HOAG (exponential)"),)),
    ("docs/paper-tvo-gpucb.md", "the final simple regret is {} (stationary GP-UCB),\n  {} (time-varying GP-UCB), {} "
     "(random)", lambda: (_gb("branin", "gp-ucb-stationary", "simple"), _gb("branin", "gp-ucb", "simple"),
                          _gb("branin", "random", "simple"))),
    ("docs/paper-tvo-gpucb.md", "lowers cumulative regret ({} against {} for the non-invariant kernel), but\n  the "
     "stationary GP ({}) and even random search ({}) do as well",
     lambda: tuple(_gb("tvo-schedule", a, "cumulative") for a in ("gp-ucb", "gp-ucb-noninvariant", "gp-ucb-stationary",
                                                                   "random"))),
    ("docs/bandit.md", "final simple regret {} [{}, {}]\nfor D-TTTS with the poster's recommendation ({} recommending its most "
     "pulled arm) against {} [{},\n{}] for TTTS on 32 arms, {} for successive halving, {} for Hyperband, {} for uniform and {} "
     "for\nrandom search",
     lambda: _bandit_simple("reservoir-beta-1-1-")),
    ("docs/paper-tvo-gpucb.md", "the invariant GP-UCB's cumulative regret on `tvo-schedule` is\n  {}, below random "
     "search's {} (bands separated), and the temporal kernel's on the drifting\n  1-D function {} against {} for the "
     "stationary GP (separated)",
     lambda: (_gb("tvo-schedule", "gp-ucb", "cumulative", "matern"), g4(_gpucb("tvo-schedule", "random", "cumulative", "matern")[0]),
              _gb("wave1d-drift", "gp-ucb", "cumulative", "matern"), _gb("wave1d-drift", "gp-ucb-stationary", "cumulative", "matern"))),
    ("docs/paper-tvo-gpucb.md", "cumulative regret {} against {} for the stationary GP on a\n  drifting 1-D function "
     "(worse, bands separated), {} against {} on drifting Branin\n  and {} against {} on drifting Hartmann-3 (inside "
     "the bands)", lambda: tuple(_gb(n, a, "cumulative") for n in ("wave1d-drift", "branin-drift", "hartmann3-drift")
                                 for a in ("gp-ucb", "gp-ucb-stationary"))),
    ("docs/paper-tvo-gpucb.md", "tail KSD of {:.2f}, against {:.2f} for the best fixed step (h = 1e-3) and {:.2f}–{:.2f} "
     "for the other four", lambda: _step_ksd("sgld-step")),
    ("docs/paper-mamba.md", "whose chains spread (sd {:.3f}-{:.3f})",
     lambda: (min(_pmf_sd("pmf-paper-seed3-plain", s, "MAMBA-KSD") for s in ("sgld", "sgld-cv", "sghmc", "sgnht", "sgnht-cv")),
              max(_pmf_sd("pmf-paper-seed3-plain", s, "MAMBA-KSD") for s in ("sgld", "sgld-cv", "sghmc", "sgnht", "sgnht-cv")))),
    ("docs/paper-mamba.md", "lowest of every tuner for SGNHT and SGNHT-CV ({:.4f} and {:.4f} against the heuristic's {:.4f} and "
     "{:.4f}).\n  Against the paper's baselines alone it now has the lower RMSE for {} of six samplers ({} on seed 2) and "
     "is\n  behind the heuristic for SGHMC only ({:.4f} against {:.4f}; on seed 2",
     lambda: (*[_pmf_rmse("pmf-paper-seed3-plain", s, "MAMBA-KSD") for s in ("sgnht", "sgnht-cv")],
              *[_pmf_rmse("pmf-paper-seed3", s, "heuristic") for s in ("sgnht", "sgnht-cv")],
              {4: "four", 5: "five", 6: "six"}.get(_plain_beats_baselines("pmf-paper-seed3"), "?"),
              {4: "four", 5: "five", 6: "six"}.get(_plain_beats_baselines("pmf-paper"), "?"),
              _pmf_rmse("pmf-paper-seed3-plain", "sghmc", "MAMBA-KSD"), _pmf_rmse("pmf-paper-seed3", "sghmc", "heuristic"))),
    ("docs/papers/mamba.md", "(sd 0.06-0.19 on\n  seed 2, {:.2f}-{:.2f} on seed 3)",
     lambda: (min(_pmf_sd("pmf-paper-seed3-plain", s, "MAMBA-KSD") for s in ("sgld", "sgld-cv", "sghmc", "sgnht", "sgnht-cv")),
              max(_pmf_sd("pmf-paper-seed3-plain", s, "MAMBA-KSD") for s in ("sgld", "sgld-cv", "sghmc", "sgnht", "sgnht-cv")))),
]


def check_quotes(texts=None):
    """The QUOTES texts the committed reports give that their docs do not hold (`texts`: {doc: text} read instead
    of the files)."""
    missing = []
    for doc, text, figures in QUOTES:
        want = text.format(*figures())
        held = (texts or {}).get(doc)
        if want not in (held if held is not None else open(os.path.join(ROOT, doc)).read()):
            missing.append(f"{doc}: quoted figure \"{want}\"")
    return missing


def stale_blocks(text):
    """Keys of the generated blocks of a doc's text that differ from what their committed reports give."""
    return [m.group("key") for m in BLOCK.finditer(text) if render(m.group("key")) != m.group("body")]


def _bump_digit(text, start=0):
    """`text` with its first digit at or after `start` changed (9 -> 0, else + 1)."""
    i = next(k for k in range(start, len(text)) if text[k].isdigit())
    return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:]


def self_test():
    """--self-test: the check itself can fail. One digit changed in a generated table and in a quoted figure must
    each be reported, and the unchanged docs must not be."""
    failures = []
    doc = "docs/bandit-tables.md"
    text = open(os.path.join(ROOT, doc)).read()
    m = BLOCK.search(text)
    table = m.start("body") + m.group("body").index("\n|")  # a digit inside the table, not the header
    if stale_blocks(text):
        failures.append(f"{doc} is already stale")
    if stale_blocks(_bump_digit(text, table)) != [m.group("key")]:
        failures.append(f"a changed number in {doc}'s block {m.group('key')} was not caught")
    qdoc, qtext, figures = QUOTES[0]
    want = qtext.format(*figures())
    src = open(os.path.join(ROOT, qdoc)).read()
    if check_quotes({qdoc: src}):
        failures.append(f"{qdoc} does not hold its quoted figure")
    if not check_quotes({qdoc: src.replace(want, _bump_digit(want))}):
        failures.append(f"a changed quoted figure in {qdoc} was not caught")
    for f in failures:
        print(f"doc_tables --self-test: {f}", file=sys.stderr)
    print("doc_tables --self-test: a changed digit in a generated table and in a quoted figure are both caught"
          if not failures else f"doc_tables --self-test: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


def measured_js():
    """www/panels/tune/measured.js: the measured facts the tune panel's reading quotes, from committed reports."""
    probe_path = os.path.join(MAMBA, "page", "pmf-page-probe-seed0.json")
    probe = json.load(open(os.path.join(ROOT, probe_path)))
    ev_dir = os.path.join(MAMBA, "page-logreg-eval")
    runs = {}
    for f in sorted(os.listdir(os.path.join(ROOT, ev_dir))):
        m = re.match(r"seed(\d+)-eval(\d+)R\.json$", f)
        if m:
            d = json.load(open(os.path.join(ROOT, ev_dir, f)))
            runs[(int(m.group(1)), int(m.group(2)))] = {e["name"]: e for e in d["result"]["entries"]}
    seeds = sorted({s for s, _ in runs if s >= 1})

    def xi(seed, e, t):
        return runs[(seed, e)][t]["evaluation"]["xi"]

    def med(v):
        return quantiles(v)[0]

    s0 = {t: {"step": runs[(0, 1)][t]["best"]["step"], "batch": runs[(0, 1)][t]["best"]["batch"],
              "xi_R": xi(0, 1, t), "xi_10R": xi(0, 10, t)} for t in ("MAMBA-KSD", "grid (KSD)", "heuristic")}
    logreg = {
        "preset": "paper-logreg-page", "seed": 0, "chosen": s0, "seeds": seeds,
        "mamba_below_heuristic": {str(e): sum(1 for k in seeds if xi(k, e, "MAMBA-KSD") < xi(k, e, "heuristic"))
                                  for e in (1, 10)},
        "median_xi": {t: {str(e): med([xi(k, e, t) for k in seeds]) for e in (1, 10)}
                      for t in ("MAMBA-KSD", "heuristic")},
    }
    pmf = {k: probe[k] for k in ("preset", "seed", "d", "test_rmse_mean_predictor", "test_rmse_map", "prior_sd")}
    pmf["rows"] = {r["name"]: {k: r[k] for k in ("test_rmse", "ksd", "sd_strong", "sd_weak", "sd_ratio_strong",
                                                 "sd_ratio_weak")} for r in probe["rows"]}
    dump = lambda v: json.dumps(v, indent=2, sort_keys=True)
    return (
        "// Generated by `python3 scripts/reproduce/doc_tables.py` from committed reports; do not edit. The test\n"
        "// command's `python3 scripts/reproduce/doc_tables.py --check` fails when this file differs from what they give.\n"
        "// The tune panel's reading (reading.js) quotes these measured facts beside the numbers of the run it reads.\n\n"
        f"/** The pmf-page preset, seed 0, with an exact MALA run (examples/pmf_page_probe.rs; `{probe_path}`): per\n"
        " * tuner's chosen tuning chain and the exact draws, test RMSE, KSD and the mean sd in the best- / worst-identified\n"
        " * quarter of the coordinates, and that sd over the exact one. */\n"
        f"export const PMF_PAGE_PROBE = Object.freeze({dump(pmf)});\n\n"
        f"/** The paper-logreg-page preset evaluated by fresh chains of R and of 10 R\n"
        f" * (scripts/reproduce/mamba/page-logreg-eval.sh; `{ev_dir}/seedK-evalER.json`): seed 0's chosen arms and their xi,\n"
        " * and over the reporting seeds the median xi and on how many MAMBA-KSD's xi is below the heuristic's, by\n"
        " * evaluation length (\"1\": R, \"10\": 10 R). */\n"
        f"export const LOGREG_PAGE_EVAL = Object.freeze({dump(logreg)});\n"
    )


def lr_measured_js():
    """www/panels/lr-schedule/measured.js: the multi-task result over seeds that the learning-rate reading quotes
    beside its one-seed run, from the committed reports of scripts/reproduce/lr-schedule/multitask.sh."""
    reps = lr_reports("multitask")
    seeds = sorted(r["seed"] for r in reps.values())
    beat = {k: sum(1 for r in reps.values()
                   if r["multitask"][k]["best_so_far"][-1] < r["multitask"]["cold"]["best_so_far"][-1])
            for k in ("universal", "learn_location")}
    facts = {"preset": "mnist-multitask", "seeds": seeds, "universal_beat_cold": beat["universal"],
             "learn_location_beat_cold": beat["learn_location"]}
    return (
        "// Generated by `python3 scripts/reproduce/doc_tables.py` from committed reports; do not edit. The test\n"
        "// command's `python3 scripts/reproduce/doc_tables.py --check` fails when this file differs from what they give.\n\n"
        f"/** The mnist-multitask preset natively over seeds (scripts/reproduce/lr-schedule/multitask.sh; `{LR}/multitask/\n"
        " * mt-SEED.json`): on how many seeds each warm start's best run on the new task is below the cold tuner's. */\n"
        f"export const LR_MULTITASK_SEEDS = Object.freeze({json.dumps(facts, indent=2, sort_keys=True)});\n"
    )


FILES = {os.path.join("www", "panels", "tune", "measured.js"): measured_js,
         os.path.join("www", "panels", "lr-schedule", "measured.js"): lr_measured_js}


def render(key):
    kind, arg = key.split(":", 1)
    return GENERATORS[kind](arg)


def docs(args):
    files = [a for a in args if not a.startswith("--")]
    if files:
        return files
    out = [os.path.join(ROOT, "README.md")]
    for d, _, fs in os.walk(os.path.join(ROOT, "docs")):
        out += [os.path.join(d, f) for f in sorted(fs) if f.endswith(".md")]
    return out


def start_block(key, path):
    """`--block KEY DOC.md`: makes DOC.md hold the (empty) generated block KEY if it holds no block KEY yet, so that
    the write below fills it (a reproduction script's first run of a new table)."""
    text = open(path).read() if os.path.exists(path) else ""
    if not any(m.group("key") == key for m in BLOCK.finditer(text)):
        with open(path, "w") as f:
            f.write(f"<!-- BEGIN generated {key}: scripts/reproduce/doc_tables.py -->\n<!-- END generated {key} -->\n")


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
    if sys.argv[1:2] == ["--block"]:
        if len(sys.argv) != 4:
            sys.exit("usage: python3 scripts/reproduce/doc_tables.py --block KEY DOC.md")
        start_block(sys.argv[2], sys.argv[3])
        del sys.argv[1:3]
    check = "--check" in sys.argv[1:]
    bad, blocks = [], 0
    for path in docs(sys.argv[1:]):
        text = open(path).read()

        def sub(m):
            nonlocal blocks
            blocks += 1
            body = render(m.group("key"))
            if body != m.group("body"):
                bad.append(f"{os.path.relpath(path, ROOT)}: block {m.group('key')}")
            return m.group(1) + body + m.group(4)

        new = BLOCK.sub(sub, text)
        if not check and new != text:
            open(path, "w").write(new)
    # Whole generated files (read by the page), unless only some docs were named.
    if not [a for a in sys.argv[1:] if not a.startswith("--")]:
        for rel, make in FILES.items():
            blocks += 1
            path = os.path.join(ROOT, rel)
            body = make()
            old = open(path).read() if os.path.exists(path) else None
            if body != old:
                bad.append(f"{rel}: the whole file")
                if not check:
                    open(path, "w").write(body)
    if not [a for a in sys.argv[1:] if not a.startswith("--")]:
        quoted = check_quotes()
        blocks += len(QUOTES)
        bad += quoted
        if not check:
            for q in quoted:
                print(f"doc_tables: {q} is not in the doc (quoted figures are not rewritten: edit the sentence)",
                      file=sys.stderr)
    if check:
        for b in bad:
            fix = ("edit the sentence" if "quoted figure" in b
                   else "python3 scripts/reproduce/doc_tables.py rewrites it")
            print(f"doc_tables: {b} differs from what its committed report gives ({fix})", file=sys.stderr)
        print(f"doc_tables: {blocks} generated blocks, {len(bad)} differ")
        sys.exit(1 if bad else 0)
    print(f"doc_tables: {blocks} generated blocks, {len(bad)} rewritten")


if __name__ == "__main__":
    main()
