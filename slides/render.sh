#!/usr/bin/env bash
# Renders every slide deck slides/*.md (README.md excepted) to one self-contained HTML file in
# build/slides/, with the Marp CLI version pinned in slides/package.json. No browser needed.
# Usage: bash slides/render.sh        (or: make slides)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "mlmem: the slides need Node.js and npm; trying to install Debian's nodejs and npm" >&2
  bash common/setup-deps.sh nodejs npm || true
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "mlmem: node and npm not found: install Node.js 18+ with npm (Debian: apt-get install nodejs npm), then run 'make slides' again" >&2
    exit 1
  fi
fi

if [ ! -d slides/node_modules ]; then
  echo "mlmem: installing the pinned Marp CLI into slides/node_modules (once)" >&2
  npm ci --no-audit --no-fund --prefix slides
fi

mkdir -p build/slides
written=()
for deck in slides/*.md; do
  name=$(basename "$deck" .md)
  [ "$name" = README ] && continue
  out="build/slides/$name.html"
  npx --no-install --prefix slides marp --html --allow-local-files -o "$out" "$deck"
  written+=("$out")
done

if [ ${#written[@]} -eq 0 ]; then
  echo "mlmem: no slide decks found in slides/" >&2
  exit 1
fi
echo "mlmem: wrote ${#written[@]} deck(s), open them in any browser (they work offline):"
printf '  %s\n' "${written[@]}"
