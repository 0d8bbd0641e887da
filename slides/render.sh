#!/usr/bin/env bash
# Renders every slide deck slides/*.md (README.md excepted) to one self-contained HTML file in
# build/slides/, with the Marp CLI version pinned in slides/package.json. No browser needed.
# The decks' figures (slides/figures/*.svg, referenced as figures/NAME.svg) are embedded in the
# HTML as data: URIs, and also copied to build/slides/figures/ so that the plain references work.
# Then, where a Chromium is installed, checks that no slide's content runs off its page.
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
  npx --no-install --prefix slides marp -c slides/marprc.yml --html --allow-local-files \
    -o "$out" "$deck"
  written+=("$out")
done

# Figures: a copy beside the HTML (what Marp's relative references point to), then embedded.
rm -rf build/slides/figures
if [ -d slides/figures ]; then
  mkdir -p build/slides/figures
  cp slides/figures/*.svg build/slides/figures/
  if command -v python3 >/dev/null 2>&1; then
    python3 - "${written[@]}" <<'PY'
import base64, os, re, sys
for html in sys.argv[1:]:
    text = open(html, encoding="utf-8").read()
    def embed(m):
        path = os.path.join("slides", "figures", m.group(2))
        if not os.path.isfile(path):
            sys.exit("mlmem: %s refers to figures/%s, which does not exist" % (html, m.group(2)))
        data = base64.b64encode(open(path, "rb").read()).decode("ascii")
        return m.group(1) + "data:image/svg+xml;base64," + data
    text = re.sub(r'(src=")figures/([A-Za-z0-9._-]+\.svg)(?=")', embed, text)
    open(html, "w", encoding="utf-8").write(text)
PY
  else
    echo "mlmem: python3 not found: figures stay in build/slides/figures/ beside the HTML" >&2
  fi
fi

if [ ${#written[@]} -eq 0 ]; then
  echo "mlmem: no slide decks found in slides/" >&2
  exit 1
fi
echo "mlmem: wrote ${#written[@]} deck(s), open them in any browser (they work offline):"
printf '  %s\n' "${written[@]}"

# Every slide must fit its page (slides/check-fit.cjs); that needs a Chromium, which the decks
# themselves do not: without one the check is skipped, with the reason.
browser=${CHROME_PATH:-$(command -v chromium || command -v chromium-browser ||
  command -v google-chrome || true)}
if [ -z "$browser" ]; then
  echo "mlmem: no Chromium found (or CHROME_PATH): did not check that every slide fits its page" >&2
else
  node slides/check-fit.cjs "$browser" "${written[@]}"
fi
