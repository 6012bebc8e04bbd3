#!/usr/bin/env bash
# Builds the docs book (book.toml: source docs/, output target/book/) and checks every relative link of the built
# HTML (scripts/dev/check-links.mjs): exits non-zero on a build error or a dead link. `npm run build` then copies
# the book to dist/docs/ (scripts/build-dist.mjs). mdbook comes from scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v mdbook >/dev/null 2>&1; then
  echo "docs: mdbook is missing (bash scripts/setup.sh installs it)" >&2
  exit 1
fi
OUT=target/book
rm -rf "$OUT"
mdbook build --dest-dir "$OUT" .
node scripts/dev/check-links.mjs "$OUT"
echo "docs: built $OUT (open $OUT/index.html; npm run build serves it at dist/docs/)"
