#!/usr/bin/env bash
# The paper's Table 2 (section 4.2, appendix B.2) on SIMULATED ratings of MovieLens-100K's shape (943 users x
# 1,682 items, 100,000 ratings, 20 factors, d = 52,500): the pmf comparison for the six samplers, written to
# docs/pmf-results.md with the JSON reports (slimmed: no samples) in docs/results/mamba/pmf/.
#
# Settings (environment):
#   GRAD_EVALS  per-arm budget R (default 1e7, the preset's)
#   SEED        run seed: train/test split, MAP and chains (default 2)
#   DATA_SEED   seed of the simulated ratings (default 2; the preset's defaults were set on seeds 0 and 1)
#   TUNERS      comma-separated tuners of `tunelab compare` (default: every tuner but MAMBA-FSSD, whose
#               FSSD-opt fits at d = 52,500 took 130-170 s of scoring at R = 2e5 and over 10 minutes per sampler
#               at R = 1e7 on two shared cores)
#   RATINGS     a real ratings file (user,item,rating; MovieLens u.data works) instead of simulated ratings
#   PAPER=1     the paper's model and grid instead of the pmf preset's: scripts/reproduce/mamba/pmf-paper.json (App.
#               B.2: hierarchical prior, 12 step sizes 1e-2..10^-7.5, batches 100/10/1%, L in {5, 10}) with the
#               sampler, seeds, budget and tuners above; written to docs/results/mamba/pmf-paper/ and docs/pmf-paper-results.md
#   KERNEL      the Stein kernel of MAMBA-KSD's and grid (KSD)'s scores (`metric.kernel`; default the config's, the
#               run kernel); KERNEL=plain is the paper's plain IMQ KSD (c = 1, beta = -1/2, V-statistic). The paper's
#               PMF with it: PAPER=1 KERNEL=plain TUNERS="MAMBA-KSD,grid (KSD)" OUT_DIR=docs/results/mamba/pmf-paper-plain
#               DOC_OUT=docs/pmf-paper-plain-results.md (grid (log-loss) and the heuristic use no Stein kernel); its second seed:
#               add SEED=3 DATA_SEED=3 THREADS=1, OUT_DIR=docs/results/mamba/pmf-paper-seed3-plain
#               DOC_OUT=docs/pmf-paper-plain-results-seed3.md
#   THREADS     threads of each `tunelab compare` (default: its own default)
#   SAMPLERS    the samplers to run (default: "sgld sgld-cv sghmc sghmc-cv sgnht sgnht-cv"); the table lists those
#               whose report exists
#   TUNELAB     the command that runs tunelab (default: $CARGO_TARGET_DIR/release/tunelab, or the argument)
#   OUT_DIR, DOC_OUT  where the reports and the table go (default: docs/results/mamba/pmf and docs/pmf-results.md, or the PAPER ones);
#               another seed of the paper's run: PAPER=1 SEED=3 DATA_SEED=3 OUT_DIR=docs/results/mamba/pmf-paper-seed3
#               DOC_OUT=docs/pmf-paper-results-seed3.md
# Usage: bash scripts/reproduce/mamba/pmf-table.sh [path/to/tunelab]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${TUNELAB:-${1:-${CARGO_TARGET_DIR:-target}/release/tunelab}}"
GRAD_EVALS="${GRAD_EVALS:-1e7}"
SEED="${SEED:-2}"
DATA_SEED="${DATA_SEED:-2}"
TUNERS="${TUNERS:-MAMBA-KSD,grid (log-loss),grid (KSD),heuristic}"
OUT=docs/results/mamba/pmf
DOC=docs/pmf-results.md
if [ -n "${PAPER:-}" ]; then OUT=docs/results/mamba/pmf-paper; DOC=docs/pmf-paper-results.md; fi
OUT="${OUT_DIR:-$OUT}"; DOC="${DOC_OUT:-$DOC}"
mkdir -p "$OUT"
EXTRA=()
if [ -n "${RATINGS:-}" ]; then EXTRA=(--ratings "$RATINGS"); fi
if [ -n "${THREADS:-}" ]; then EXTRA+=(--threads "$THREADS"); fi
for s in ${SAMPLERS:-sgld sgld-cv sghmc sghmc-cv sgnht sgnht-cv}; do
  echo "== $s" >&2
  # outside $OUT, whose *.json the slimming below reads as reports
  cfg=$(mktemp --suffix=.json)
  # The pmf preset (src/tune/presets.rs) with the settings above.
  if [ -n "${PAPER:-}" ]; then
    python3 - "$s" "$GRAD_EVALS" "$SEED" "$DATA_SEED" "$TUNERS" "${KERNEL:-}" > "$cfg" <<'EOF'
import json, sys
s, r, seed, data_seed, tuners, kernel = sys.argv[1:]
c = json.load(open("scripts/reproduce/mamba/pmf-paper.json"))
if kernel:
    c["metric"]["kernel"] = kernel
c["sampler"] = {"kind": s}
c["data"]["seed"] = int(data_seed)
c["seed"] = int(seed)
c["budget"] = {"grad_evals": float(r)}
c["tuners"] = tuners.split(",")
if s.startswith("sghmc"):  # L in {5, 10} is SGHMC's only (App. B.2.3): 72 arms, which fit the 2 GiB bound
    c["metric"]["max_samples"] = 10  # at d = 53,380 with 10 samples per score (pmf-paper.json's test)
print(json.dumps(c, indent=1))
EOF
  else
  python3 - "$s" "$GRAD_EVALS" "$SEED" "$DATA_SEED" "$TUNERS" > "$cfg" <<'EOF'
import json, sys
s, r, seed, data_seed, tuners = sys.argv[1:]
print(json.dumps({
    "kind": "compare",
    "data": {"source": "simulate-ratings", "users": 943, "items": 1682, "ratings": 100000, "latent": 20,
             "seed": int(data_seed), "label": "rating", "test_fraction": 0.2},
    "model": {"kind": "pmf", "latent": 20, "lambda": 6.0, "tau": 2.0},
    "sampler": {"kind": s},
    "arms": {"log10_step": {"from": -7.0, "to": -3.0, "by": 0.5}, "batch": [0.1, 0.01], "leapfrog": [5]},
    "tuner": {"kind": "mamba", "eta": 3, "scoring": "round"},
    "budget": {"grad_evals": float(r)},
    "metric": {"kind": "ksd", "max_samples": 50},
    "thin": 10, "start": "map", "seed": int(seed),
    "reference_samples": 0, "tuners": tuners.split(","),
}, indent=1))
EOF
  fi
  # shellcheck disable=SC2086
  /usr/bin/time -f "%M %e" -o "$OUT/$s.time" $BIN compare --config "$cfg" "${EXTRA[@]}" --out "$OUT/$s.json" > "$OUT/$s.txt"
  rm -f "$cfg"
done
python3 scripts/reproduce/mamba/slim-report.py "$OUT"/*.json
{
  if [ -n "${RATINGS:-}" ]; then echo "Ratings file $RATINGS, run seed $SEED, R = $GRAD_EVALS gradient evaluations per arm."
  elif [ -n "${PAPER:-}" ]; then echo "The paper's model and grid (App. B.2, scripts/reproduce/mamba/pmf-paper.json: hierarchical prior, d = 53,380) on SIMULATED ratings of MovieLens-100K's shape (943 x 1,682, 100,000 ratings, data seed $DATA_SEED), run seed $SEED, R = $GRAD_EVALS gradient evaluations per arm; each choice evaluated by compare's default, a fresh chain from the MAP${KERNEL:+; Stein kernel: $KERNEL}."
  else echo "SIMULATED ratings of MovieLens-100K's shape (943 x 1,682, 100,000 ratings, data seed $DATA_SEED), 20 factors (d = 52,500), run seed $SEED, R = $GRAD_EVALS gradient evaluations per arm; each choice evaluated by compare's default, a fresh chain from the MAP (2 R, the first 10% removed as burn-in; Sec. 4.2)."; fi
  echo
  python3 scripts/reproduce/mamba/pmf-table.py "$OUT"
} > "$DOC"
cat "$DOC"
