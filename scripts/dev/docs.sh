#!/usr/bin/env bash
# Builds the docs book (book.toml: source docs/, output target/book/) and checks every relative link of the built
# HTML (scripts/dev/check-links.mjs): exits non-zero on a build error or a dead link. `npm run build` then copies
# the book to dist/docs/ (scripts/build-dist.mjs). mdbook comes from scripts/setup.sh.
# Links policy: mdbook copies every non-Markdown file under docs/ (the JSON reports, images, CSV) into the book, so
# links to them resolve; repository files outside docs/ (scripts, sources) are named as `code`, never linked, and
# a link that leaves the built site counts as dead.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v mdbook >/dev/null 2>&1; then
  echo "docs: mdbook is missing (bash scripts/setup.sh installs it)" >&2
  exit 1
fi

# The checker must catch a dead link, a missing anchor and a link out of the site (a tiny site of its own).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/site/sub"
printf '<a href="sub/">ok</a><a href="#top" id="top">ok</a>\n' >"$probe/site/index.html"
printf '<a href="../index.html#top">ok</a><a href="gone.html">x</a><a href="../index.html#nope">x</a><img src="../../x.png">\n' >"$probe/site/sub/index.html"
if out=$(node scripts/dev/check-links.mjs "$probe/site" 2>&1) || [ "$(grep -c '^dead link' <<<"$out")" -ne 3 ]; then
  echo "docs: check-links.mjs did not report exactly the 3 dead links of its probe site:" >&2
  echo "$out" >&2
  exit 1
fi

OUT=target/book
rm -rf "$OUT"
mdbook build --dest-dir "$OUT" .
node scripts/dev/check-links.mjs "$OUT"
echo "docs: built $OUT (open $OUT/index.html; npm run build serves it at dist/docs/)"
