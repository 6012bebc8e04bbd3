#!/usr/bin/env bash
# Regenerates the bandit tables (D-TTTS, GP-UCB, successive halving / Hyperband and the baselines):
#   tables  the raw reports docs/results/bandit/reports/*.json and docs/results/bandit/effective-arms.csv (examples/bandit_tables.rs:
#           seed 1, 20 repeats), then the tables of docs/bandit-tables.md from the reports (scripts/reproduce/doc_tables.py)
#   small   only the four Bernoulli reservoirs and the SG-MCMC pool of 60 (seconds each)
#   gpucb   docs/bandit.md's GP-UCB numbers (gpucb-numbers.sh: printed, slim reports in docs/results/bandit/gpucb/,
#           then the docs' tables from them), with the paper's settings and with Matern-5/2 and a constant kappa 2
#           (GPUCB_SETTINGS=matern: docs/results/bandit/gpucb-matern/)
#   step-size  the `sgld-step` preset (step-size.sh: slim report in docs/results/step-size/, then the docs' tables)
#   mlp-poster  only the "mlp mnist poster box" section of docs/bandit-tables.md (preset mlp-mnist-poster's problem:
#           the D-TTTS poster's MNIST box; 200 pulls, 20 repeats; the other sections are kept; also part of tables)
#   mlp-poster-adam  only the "mlp mnist poster box adam" section (preset mlp-mnist-poster-adam's problem: the same
#           box trained as scikit-learn's MLPClassifier by default, Adam for at most 200 epochs; also part of tables)
# Usage: bash scripts/reproduce/bandit/run.sh [tables] [gpucb] [step-size] [mlp-poster] [mlp-poster-adam]
# (default: tables, gpucb and step-size)
set -euo pipefail
cd "$(dirname "$0")/../../.."
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(tables gpucb step-size)
for part in "${PARTS[@]}"; do
  echo "== bandit: $part"
  case "$part" in
    tables) cargo run --release --example bandit_tables && python3 scripts/reproduce/doc_tables.py docs/bandit-tables.md ;;
    gpucb) bash scripts/reproduce/bandit/gpucb-numbers.sh && GPUCB_SETTINGS=matern bash scripts/reproduce/bandit/gpucb-numbers.sh &&
      python3 scripts/reproduce/doc_tables.py ;;
    step-size) bash scripts/reproduce/bandit/step-size.sh && python3 scripts/reproduce/doc_tables.py ;;
    mlp-poster) cargo run --release --example bandit_tables -- --only "mlp mnist poster box" ;;
    mlp-poster-adam) cargo run --release --example bandit_tables -- --only "mlp mnist poster box adam" ;;
    small) cargo run --release --example bandit_tables -- --only "reservoir Beta(1,1);reservoir Beta(3,1);reservoir Beta(1,3);reservoir 0.25+0.5 Beta(1,1);sgmcmc-ksd pool of 60"
       python3 scripts/reproduce/doc_tables.py docs/bandit-tables.md ;;
    *) echo "unknown part '$part' (tables, small, gpucb, step-size, mlp-poster, mlp-poster-adam)" >&2; exit 2 ;;
  esac
done
