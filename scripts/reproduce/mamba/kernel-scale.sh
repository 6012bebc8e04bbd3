#!/usr/bin/env bash
# Can the plain IMQ KSD (c = 1, beta = -1/2, V-statistic) see a posterior spread that is 20% too wide, and can the
# run kernel? Exact draws of the paper-logreg posterior widened / narrowed by a factor, scored by both kernels over
# 10 seeds (examples/kernel_scale.rs says how). Writes docs/results/mamba/kernel-scale.md; about a minute after the build.
set -euo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p docs/results/mamba
cargo run -q --release --example kernel_scale | tee docs/results/mamba/kernel-scale.md
