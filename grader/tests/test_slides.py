"""The slide decks' figures, checked without rendering (no Marp, no network): every image a deck
references exists, every SVG in slides/figures/ is well-formed XML, is used by some deck and
reaches nothing outside itself, and each deck named below shows at least one figure.
Run: python3 -m pytest grader/tests/test_slides.py -q"""
import pathlib
import re
import xml.etree.ElementTree as ET

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SLIDES = ROOT / "slides"
FIGURES = SLIDES / "figures"

# Figures made for a deck that is being edited elsewhere: not yet shown, allowed for now. Insert
# the figure into the deck, then delete its line here.
PENDING: dict[str, str] = {}

# Markdown images, ![alt](target "title"), and HTML <img src="...">: Marp accepts both.
MD_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_IMAGE = re.compile(r"<img\b[^>]*\bsrc\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
# Anything in an SVG that could fetch from outside: a URL scheme, or a link to another file.
EXTERNAL = re.compile(r"(?:https?|ftp|file)://|@import|\burl\(\s*['\"]?(?!#)", re.IGNORECASE)
NAMESPACE = re.compile(r"""\sxmlns(?::\w+)?\s*=\s*["'][^"']*["']""")
XLINK = "{http://www.w3.org/1999/xlink}href"
SVG_NS = "http://www.w3.org/2000/svg"


def decks():
    return sorted(p for p in SLIDES.glob("*.md") if p.name != "README.md")


# Every deck must show at least one figure (a course's new deck too).
DECKS_WITH_FIGURES = [p.stem for p in decks()]


def images(deck):
    text = deck.read_text(encoding="utf-8")
    return MD_IMAGE.findall(text) + HTML_IMAGE.findall(text)


def svgs():
    return sorted(FIGURES.glob("*.svg"))


def test_decks_exist():
    assert decks(), "no slide decks in slides/"


@pytest.mark.parametrize("deck", decks(), ids=lambda p: p.stem)
def test_referenced_images_exist(deck):
    for target in images(deck):
        assert not re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE), (
            "%s: image %s is a URL; figures live in slides/figures/ so decks render offline"
            % (deck.name, target))
        assert not target.startswith("/"), (
            "%s: image %s is an absolute path; use figures/NAME.svg" % (deck.name, target))
        assert (deck.parent / target).is_file(), (
            "%s refers to %s, which does not exist" % (deck.name, target))


@pytest.mark.parametrize("deck", DECKS_WITH_FIGURES)
def test_deck_has_a_figure(deck):
    path = SLIDES / (deck + ".md")
    assert path.is_file(), "deck %s is missing" % path.name
    found = [t for t in images(path) if t.startswith("figures/")]
    assert found, "%s shows no figure from slides/figures/" % path.name


def test_figures_exist():
    assert svgs(), "no SVG figures in slides/figures/"


@pytest.mark.parametrize("svg", svgs(), ids=lambda p: p.name)
def test_svg_is_well_formed(svg):
    root = ET.parse(svg).getroot()  # raises on malformed XML
    assert root.tag == "{%s}svg" % SVG_NS, "%s: root element is %s, not an SVG" % (svg.name,
                                                                                  root.tag)
    assert root.get("viewBox"), "%s: no viewBox, so it will not scale in a deck" % svg.name


@pytest.mark.parametrize("svg", svgs(), ids=lambda p: p.name)
def test_svg_is_self_contained(svg):
    text = NAMESPACE.sub(" ", svg.read_text(encoding="utf-8"))  # names, not fetched
    match = EXTERNAL.search(text)
    assert not match, "%s reaches outside itself (%r): decks must render offline" % (
        svg.name, text[max(match.start() - 30, 0):match.end() + 30])
    for el in ET.parse(svg).getroot().iter():
        for attr in ("href", XLINK):
            ref = el.get(attr)
            assert ref is None or ref.startswith("#"), (
                "%s: <%s> links to %s; only #fragments inside the file are allowed"
                % (svg.name, el.tag, ref))


@pytest.mark.parametrize("svg", svgs(), ids=lambda p: p.name)
def test_svg_is_used(svg):
    used = {(d.parent / t).resolve() for d in decks() for t in images(d)}
    if svg.resolve() not in used and svg.name in PENDING:
        pytest.skip("%s waits to be inserted into slides/%s" % (svg.name, PENDING[svg.name]))
    assert svg.resolve() in used, (
        "%s is in slides/figures/ but no deck shows it: insert it "
        "(![w:1100](figures/%s)) or delete it" % (svg.name, svg.name))
