// Checks that every slide of the rendered decks fits its 1280 x 720 page: the lowest element of
// each slide must end inside it. A slide with too much on it is cut off, in a browser as in a
// PDF, without any warning from Marp. Uses the puppeteer-core that the pinned Marp CLI installs
// (slides/node_modules) and a Chromium the machine already has; slides/render.sh runs it.
// Usage: node slides/check-fit.cjs CHROMIUM DECK.html...   exit 0: all fit; 1: some do not
// (one line each: deck, slide number, how far its content runs); 2: bad usage or no browser.
'use strict';
const path = require('path');
const puppeteer = require(path.join(__dirname, 'node_modules', 'puppeteer-core'));

const SLIDE_W = 1280, SLIDE_H = 720;
const SETTLE_MS = 150;  // for the viewer to show a slide and fit its code blocks and headings
const MARGIN = 8;   // px the lowest element may come to the page's edge (the page number's band)

// In the page: the bottom of slide n's lowest element (Marp's <section id="n">), relative to
// the slide's top, in the slide's own pixels.
function contentBottom(n) {
  const s = document.getElementById(String(n));
  const box = s.getBoundingClientRect();
  const scale = box.height / s.offsetHeight;   // the viewer scales a slide to the window
  let bottom = 0;
  for (const e of s.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (r.height > 0) bottom = Math.max(bottom, (r.bottom - box.top) / scale);
  }
  return Math.round(bottom);
}

// Slide n as the viewer shows it: made the current slide first, since Marp fits code blocks
// and headings to the current slide only (a hidden one can measure twice its height).
async function measure(page, n) {
  await page.evaluate((k) => { location.hash = '#' + k; }, n);
  await new Promise((done) => setTimeout(done, SETTLE_MS));
  return page.evaluate(contentBottom, n);
}

async function main(browserPath, decks) {
  const browser = await puppeteer.launch({ executablePath: browserPath,
    args: ['--no-sandbox', '--disable-gpu'] });
  let bad = 0;
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: SLIDE_W, height: SLIDE_H });
    for (const deck of decks) {
      await page.goto('file://' + path.resolve(deck), { waitUntil: 'load' });
      await page.evaluate(() => document.fonts.ready);
      const slides = await page.evaluate(() => document.querySelectorAll('section[id]').length);
      for (let n = 1; n <= slides; n++) {
        const bottom = await measure(page, n);
        if (bottom > SLIDE_H - MARGIN) {
          console.log('mlmem: %s, slide %d: its content runs to %d px of %d; split it or ' +
                      'give it <!-- _class: small -->', path.basename(deck), n, bottom, SLIDE_H);
          bad++;
        }
      }
    }
  } finally {
    await browser.close();
  }
  return bad ? 1 : 0;
}

if (process.argv.length < 4) {
  console.error('usage: node slides/check-fit.cjs CHROMIUM DECK.html...');
  process.exit(2);
}
main(process.argv[2], process.argv.slice(3)).then((rc) => process.exit(rc), (err) => {
  console.error('mlmem: could not check the slides in a browser: ' + err.message);
  process.exit(2);
});
