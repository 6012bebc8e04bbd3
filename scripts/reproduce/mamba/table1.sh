#!/usr/bin/env bash
# Table 1 / Figure 3 of the MAMBA paper (Coullon, South & Nemeth 2023, sec. 4.1, App. B.1) on the logistic
# regression, and the issue-12 acceptance check, from `tunelab compare --preset paper-logreg`, with both Stein
# kernels: every seed x kernel x sampler (sgld, sgld-cv, sghmc, sghmc-cv, sgnht, sgnht-cv) runs the tuners on
# data simulated with that seed, against an exact MALA reference (20,000 draws), each tuner's choice evaluated
# by `compare`'s default evaluation (a fresh chain from the MAP for 10 R, `evaluation: {"kind":
# "fresh-from-map"}`); then scripts/reproduce/mamba/table1.py prints the paper's error
# xi = ||sd_hat - sd|| / ||sd|| (mean and two-sd band over seeds) and the acceptance table.
#
# Usage: [KERNELS="run plain"] [EVAL=fresh|tuning-chain] [PLAIN_TUNERS=ksd|mamba|all] \
#          scripts/reproduce/mamba/table1.sh [N] [FIRST_SEED] [LAST_SEED] [OUT_DIR]
#   defaults: N = 1000000 (the paper's), seeds 1..10, out target/table1-N, both kernels, the fresh evaluation.
# Kernels (`metric.kernel` of the compare config, which `compare` uses for MAMBA-KSD, grid (KSD) and every
# evaluation KSD: src/experiments/compare/mod.rs `ksd_kernel`):
#   run    the preset as it is (the project's run kernel, the default): all five tuners, OUT_DIR/EVAL-run/
#   plain  the paper's plain IMQ kernel (c = 1, beta = -1/2, V-statistic): OUT_DIR/EVAL-plain/, the preset's
#          config (`tunelab presets --show compare/paper-logreg`) with `metric.kernel: "plain"`, saved as
#          OUT_DIR/EVAL-plain.json, running only MAMBA-KSD by default (PLAIN_TUNERS=mamba). The other tuners'
#          xi would be the run set's except grid (KSD)'s: MAMBA-FSSD and grid (log-loss) replace the metric by
#          their own (`paper_tuners`), the heuristic has one arm (h = 1/N, batch 10%) and the fresh evaluation
#          chain depends only on the chosen arm and the seed (the kernel changes only their evaluation KSD).
#          PLAIN_TUNERS=ksd adds grid (KSD) with the plain kernel (every arm for R: 1.5e9 gradient evaluations,
#          about 4x MAMBA-KSD's time, left out of the committed run for time); PLAIN_TUNERS=all runs the five
#          (table1.py then checks that the kernel-independent tuners' xi agrees).
# EVAL=tuning-chain evaluates on the chosen arm's tuning chain instead (issue 25's former evaluation; the
# reports in docs/results/mamba/table1/tuning-chain/ were made so, by this script's earlier version).
# Seeds 1.. are reporting seeds: no default of the project was chosen on them (defaults: seed 0 of the
# paper-logreg preset and seeds 1000-1004 of tests/core/numerics/stein_kernel.rs). The loop is seed by seed
# (both kernels of a seed, then the next seed), so an interrupted run leaves complete seeds; existing JSON
# files are reused, so it resumes. One process at a time (each uses all threads, RAYON_NUM_THREADS to limit).
# The exact reference depends only on the data (N, seed), not on the sampler or kernel: the first comparison
# of a seed computes it and saves it to OUT_DIR/reference.seedK.json (`tunelab compare --reference FILE`), the
# others reuse it (the reports are the same as with the reference recomputed, wall times aside).
# What docs/paper-logreg-results.md reports: `scripts/reproduce/mamba/table1.sh 10000 1 10 target/table1-10000`
# (N = 10^4; the seeds that finished are named there), its reports slimmed into docs/results/mamba/table1/fresh-run and
# docs/results/mamba/table1/fresh-plain with `python3 scripts/reproduce/mamba/slim-report.py --table1`, so
# `python3 scripts/reproduce/mamba/table1.py docs/results/mamba/table1/fresh-plain docs/results/mamba/table1/fresh-run` prints the tables again.
# The default N = 10^6 does not fit a 2-core machine (docs/paper-logreg-results.md).
set -euo pipefail
cd "$(dirname "$0")/../../.."
N=${1:-1000000}
S0=${2:-1}
S1=${3:-10}
OUT=${4:-target/table1-$N}
KERNELS=${KERNELS:-run plain}
EVAL=${EVAL:-fresh}
PLAIN_TUNERS=${PLAIN_TUNERS:-mamba}
case "$EVAL" in fresh) EVAL_KIND=fresh-from-map ;; tuning-chain) EVAL_KIND=tuning-chain ;; *) echo "EVAL: fresh or tuning-chain" >&2; exit 2 ;; esac
case "$PLAIN_TUNERS" in ksd|mamba|all) ;; *) echo "PLAIN_TUNERS: ksd, mamba or all" >&2; exit 2 ;; esac
mkdir -p "$OUT"
cargo build --release -q -p tunelab-cli
BIN=${CARGO_TARGET_DIR:-target}/release/tunelab
# The compare config of each kernel: the preset (`--preset`) for the run kernel with the default evaluation,
# otherwise the preset's full config with the kernel, evaluation and tuners set (`--config`).
declare -A CFG
for k in $KERNELS; do
  case "$k" in run|plain) ;; *) echo "KERNELS: run and/or plain" >&2; exit 2 ;; esac
  mkdir -p "$OUT/$EVAL-$k"
  if [ "$k" = run ] && [ "$EVAL" = fresh ]; then
    CFG[$k]="--preset paper-logreg"
    continue
  fi
  "$BIN" presets --show compare/paper-logreg | K="$k" E="$EVAL_KIND" T="$PLAIN_TUNERS" python3 -c '
import json, os, sys
c = json.load(sys.stdin)
if os.environ["K"] == "plain":
    c["metric"]["kernel"] = "plain"
    if os.environ["T"] != "all":
        c["tuners"] = ["MAMBA-KSD", "grid (KSD)"] if os.environ["T"] == "ksd" else ["MAMBA-KSD"]
c["evaluation"] = {"kind": os.environ["E"]}
json.dump(c, sys.stdout, indent=1)' > "$OUT/$EVAL-$k.json"
  CFG[$k]="--config $OUT/$EVAL-$k.json"
done
for seed in $(seq "$S0" "$S1"); do
  for k in $KERNELS; do
    for s in sgld sgld-cv sghmc sghmc-cv sgnht sgnht-cv; do
      f="$OUT/$EVAL-$k/$s-seed$seed.json"
      [ -s "$f" ] && continue
      start=$(date +%s)
      # shellcheck disable=SC2086
      "$BIN" compare ${CFG[$k]} --sampler "$s" --n "$N" --seed "$seed" --reference "$OUT/reference.seed$seed.json" \
        --out "$f.tmp" > "$OUT/$EVAL-$k/$s-seed$seed.txt"
      mv "$f.tmp" "$f"
      echo "$k $s seed $seed: $(( $(date +%s) - start )) s ($(date -u +%H:%M:%S))" >&2
    done
  done
done
# shellcheck disable=SC2046
python3 scripts/reproduce/mamba/table1.py $(for k in $KERNELS; do echo "$OUT/$EVAL-$k"; done)
# One seed (the seed-0 table: `KERNELS=run scripts/reproduce/mamba/table1.sh 10000 0 0 target/table1-seed0`):
# MAMBA-KSD's chosen arm per sampler; each comparison's printed table is in OUT_DIR/EVAL-KERNEL/SAMPLER-seedK.txt.
if [ "$S0" = "$S1" ]; then
  for k in $KERNELS; do
    echo
    python3 scripts/reproduce/mamba/table1.py --chosen "$S0" "$OUT/$EVAL-$k"
  done
fi
