#!/usr/bin/env python3
"""Writes the slide decks' figures, slides/figures/*.svg, from the handouts' own numbers.

Standard library only; the SVGs are self-contained (no fonts, images or links from outside, system
font families only), so the rendered decks work offline. Run it after changing a number here:
    python3 slides/figures/make_figures.py
Every figure is one function below; its data is written out next to the handout section it
comes from.
"""
import math
import os
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
MONO = "DejaVu Sans Mono, Liberation Mono, Courier New, monospace"

# One palette for every deck.
INK, GREY, LIGHT = "#222222", "#777777", "#e8e8e8"
BLUE, BLUE_L = "#2b6cb0", "#cfe0f5"
RED, RED_L = "#c0392b", "#f6d5d1"
GREEN, GREEN_L = "#2f855a", "#d3eedd"
ORANGE, ORANGE_L = "#c77700", "#fbe5c2"
PURPLE, PURPLE_L = "#6b46c1", "#e3dbf7"


# ---------------------------------------------------------------- SVG helpers

def _attrs(kw):
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        out.append('%s="%s"' % (k.rstrip("_").replace("_", "-"), escape(str(v), {'"': "&quot;"})))
    return " ".join(out)


def rect(x, y, w, h, fill="none", stroke=INK, sw=1.5, rx=0, dash=None, **kw):
    return "<rect %s/>" % _attrs(dict(x=_n(x), y=_n(y), width=_n(w), height=_n(h), fill=fill,
                                       stroke=stroke, stroke_width=sw, rx=rx,
                                       stroke_dasharray=dash, **kw))


def text(x, y, s, size=16, anchor="start", fill=INK, weight=None, family=FONT, italic=False,
         **kw):
    return "<text %s>%s</text>" % (
        _attrs(dict(x=_n(x), y=_n(y), font_size=size, text_anchor=anchor, fill=fill,
                    font_weight=weight, font_family=family,
                    font_style="italic" if italic else None, **kw)), escape(s))


def line(x1, y1, x2, y2, stroke=INK, sw=1.5, dash=None, arrow=None, **kw):
    return "<line %s/>" % _attrs(dict(x1=_n(x1), y1=_n(y1), x2=_n(x2), y2=_n(y2), stroke=stroke,
                                       stroke_width=sw, stroke_dasharray=dash,
                                       marker_end="url(#arrow-%s)" % arrow if arrow else None, **kw))


def path(d, stroke=INK, sw=1.5, fill="none", dash=None, arrow=None, **kw):
    return "<path %s/>" % _attrs(dict(d=d, stroke=stroke, stroke_width=sw, fill=fill,
                                       stroke_dasharray=dash,
                                       marker_end="url(#arrow-%s)" % arrow if arrow else None, **kw))


def circle(cx, cy, r, fill=INK, stroke="none", sw=1):
    return "<circle %s/>" % _attrs(dict(cx=_n(cx), cy=_n(cy), r=r, fill=fill, stroke=stroke,
                                         stroke_width=sw))


def _n(v):
    return ("%.2f" % v).rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def markers():
    """Arrowheads, one per colour: url(#arrow-ink), url(#arrow-red), ..."""
    out = ["<defs>"]
    for name, colour in (("ink", INK), ("red", RED), ("blue", BLUE), ("green", GREEN),
                         ("grey", GREY), ("orange", ORANGE), ("purple", PURPLE)):
        out.append('<marker id="arrow-%s" viewBox="0 0 10 10" refX="9" refY="5" '
                   'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                   '<path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>' % (name, colour))
    out.append("</defs>")
    return "".join(out)


def write(name, width, height, parts, title):
    body = "\n".join(parts)
    svg = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="%s">\n<title>%s</title>\n%s\n'
           '<rect x="0" y="0" width="%d" height="%d" fill="white"/>\n%s\n</svg>\n'
           % (width, height, width, height, FONT, escape(title), markers(), width, height, body))
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(svg)
    print("wrote slides/figures/" + name)


# ---------------------------------------------------------------- lab 01

def lab01_mesi_pingpong():
    """Slides 'False sharing: the ping-pong': one line, two cores, four writes."""
    W, H = 1100, 480
    p = [text(W / 2, 28, "One 64-byte line, two cores: every write moves the line",
              20, "middle", weight="bold")]
    steps = [("a++", 0, "core 0 fetches the line (L3 / memory)"), ("b++", 1, "line moves core 0 → 1"),
             ("a++", 0, "line moves core 1 → 0"), ("b++", 1, "line moves core 0 → 1")]
    col_w, x0 = 255, 40
    for i, (op, writer, traffic) in enumerate(steps):
        cx = x0 + i * (col_w + 10)
        p.append(text(cx + col_w / 2, 62, "step %d: core %d writes %s" % (i + 1, writer,
                      op[0]), 16, "middle", weight="bold"))
        for core in (0, 1):
            y = 80 + core * 200
            state = "M" if core == writer else "I"
            fill, stroke = (RED_L, RED) if state == "M" else (LIGHT, GREY)
            p.append(rect(cx, y, col_w, 150, fill="white", stroke=INK, rx=8))
            p.append(text(cx + 10, y + 24, "core %d · L1" % core, 15, weight="bold"))
            # the line: a and b side by side
            lx, ly = cx + 15, y + 50
            p.append(rect(lx, ly, col_w - 30, 44, fill=fill, stroke=stroke, sw=2))
            cell = (col_w - 30) / 8
            for k in range(8):
                lab = "a" if k == 0 else "b" if k == 1 else ""
                p.append(rect(lx + k * cell, ly, cell, 44, fill="none", stroke=stroke, sw=0.8))
                if lab:
                    p.append(text(lx + k * cell + cell / 2, ly + 29, lab, 17, "middle",
                                  family=MONO, weight="bold",
                                  fill=INK if state == "M" else GREY))
            p.append(text(cx + col_w / 2, y + 125,
                          ("state M: may write" if state == "M" else "state I: invalid"),
                          15, "middle", fill=RED if state == "M" else GREY,
                          weight="bold" if state == "M" else None))
        # traffic between the two cores: an arrow, its label to the right
        ax = cx + 40
        if i > 0:
            y1, y2 = (236, 276) if writer == 1 else (276, 236)
            p.append(line(ax, y1, ax, y2, stroke=RED, sw=3, arrow="red"))
        p.append(text(ax + (14 if i else -20), 261, traffic, 14, fill=RED if i else GREY,
                      weight="bold" if i else None))
    p.append(text(W / 2, 466,
                  "L1 hit ≈ 1 ns; a dirty line moved between cores: tens of ns — on every write. "
                  "a and b in different lines: both stay M, no traffic.", 15, "middle"))
    write("lab01-mesi-pingpong.svg", W, H, p, "MESI ping-pong of one cache line between two cores")


def lab01_padded_vs_packed():
    """Slides 'Fix 1: pad and align' and 'What it costs': two counters, packed and padded."""
    W, H = 1100, 400
    p = [text(W / 2, 28, "Two counters, one per thread: packed vs padded (64-byte lines)",
              20, "middle", weight="bold")]
    bx, cell = 150, 11.5  # one byte = 11.5 px: a 64-byte line is 736 px

    def line_row(y, label, slots, note, note_fill):
        p.append(text(bx - 15, y + 30, label, 17, "end", weight="bold"))
        for li in range(len(slots)):
            x = bx + li * 64 * cell * 0.62
        return None

    # packed: a at 0, b at 8, in one line
    y = 70
    p.append(text(bx - 15, y + 32, "packed", 18, "end", weight="bold"))
    lw = 64 * cell
    p.append(rect(bx, y, lw, 48, fill=LIGHT, stroke=INK, sw=2))
    p.append(rect(bx, y, 8 * cell, 48, fill=BLUE_L, stroke=BLUE, sw=2))
    p.append(rect(bx + 8 * cell, y, 8 * cell, 48, fill=ORANGE_L, stroke=ORANGE, sw=2))
    p.append(text(bx + 4 * cell, y + 31, "a", 18, "middle", family=MONO, weight="bold"))
    p.append(text(bx + 12 * cell, y + 31, "b", 18, "middle", family=MONO, weight="bold"))
    p.append(text(bx + 40 * cell, y + 31, "48 bytes of other data", 15, "middle", fill=GREY))
    p.append(text(bx, y + 68, "0", 13, "middle", fill=GREY))
    p.append(text(bx + 8 * cell, y + 68, "8", 13, "middle", fill=GREY))
    p.append(text(bx + 64 * cell, y + 68, "64", 13, "middle", fill=GREY))
    p.append(text(bx + lw / 2, y - 8, "one line: both threads write it", 14, "middle",
                  fill=RED))
    p.append(text(bx + lw + 15, y + 22, "2 × 2·10⁶ atomic adds:", 14))
    p.append(text(bx + lw + 15, y + 42, "18–29 ms", 18, weight="bold", fill=RED))

    # padded: each in its own aligned line
    y = 200
    p.append(text(bx - 15, y + 32, "padded", 18, "end", weight="bold"))
    half = 32 * cell
    for k, (nm, fill, stroke) in enumerate((("a", BLUE_L, BLUE), ("b", ORANGE_L, ORANGE))):
        x = bx + k * (lw / 2)
        p.append(rect(x, y, half, 48, fill="white", stroke=INK, sw=2))
        p.append(rect(x, y, 8 * cell * 0.5, 48, fill=fill, stroke=stroke, sw=2))
        p.append(text(x + 2 * cell, y + 31, nm, 18, "middle", family=MONO, weight="bold"))
        p.append(text(x + half / 2 + 2 * cell, y + 31, "padding (56 B)", 14, "middle",
                      fill=GREY))
        p.append(text(x + half / 2, y - 8, "line %d" % k, 14, "middle", fill=GREEN))
    p.append(text(bx, y + 68, "0", 13, "middle", fill=GREY))
    p.append(text(bx + lw / 2, y + 68, "64", 13, "middle", fill=GREY))
    p.append(text(bx + lw, y + 68, "128", 13, "middle", fill=GREY))
    p.append(text(bx + 330, y + 90, "(drawn at half scale: each slot is a whole 64-byte line)",
                  13, "middle", fill=GREY, italic=True))
    p.append(text(bx + lw + 15, y + 22, "same work:", 14))
    p.append(text(bx + lw + 15, y + 42, "5–8 ms  (≈ 3.5×)", 18, weight="bold", fill=GREEN))
    p.append(text(W / 2, 360, "struct padded { alignas(64) uint64_t value; };   "
                  "or slot t at base + t · line, base from posix_memalign(&p, line, n · line)",
                  14, "middle", family=MONO))
    p.append(text(W / 2, 388, "Measured on the 2-vCPU AMD EPYC VM, two threads pinned to two "
                  "cores, medians of 25 rounds.", 13, "middle", fill=GREY))
    write("lab01-padded-vs-packed.svg", W, H, p, "Packed vs padded counters in cache lines")


# ---------------------------------------------------------------- lab 02

# labs/lab02-effective-latency/README.md §2.4, the staircase table (2-vCPU AMD EPYC VM).
STAIRCASE = [(16, 1.22), (24, 1.79), (32, 3.69), (48, 3.98), (256, 4.6), (384, 5.33),
             (512, 6.1), (768, 11.1), (1024, 12.7), (1536, 14.5), (2048, 15.3), (3072, 19.1),
             (4096, 27.7), (6144, 154), (16384, 169), (131072, 173)]  # (KiB, ns per load)
KNEES = [(24, "L1"), (512, "L2"), (4096, "L3 share")]           # the handout's boundaries
HWLOC = [(32, "L1d 32 KiB"), (1024, "L2 1 MiB"), (32768, "L3 32 MiB")]


def _size_label(kib):
    return "%g KiB" % kib if kib < 1024 else "%g MiB" % (kib / 1024)


def lab02_staircase():
    W, H = 1100, 500
    L, R, T, B = 95, 1070, 50, 420
    xmin, xmax = math.log2(8), math.log2(262144)
    ymin, ymax = math.log10(0.8), math.log10(300)

    def X(kib):
        return L + (math.log2(kib) - xmin) / (xmax - xmin) * (R - L)

    def Y(ns):
        return B - (math.log10(ns) - ymin) / (ymax - ymin) * (B - T)

    p = [text((L + R) / 2, 28, "The latency staircase: random pointer chase, 2-vCPU AMD EPYC VM",
              20, "middle", weight="bold")]
    # level bands (from the knees the staircase shows)
    bands = [(8, 24, "L1", BLUE_L), (24, 512, "L2", GREEN_L), (512, 4096, "L3 (this core's share)",
             ORANGE_L), (4096, 262144, "DRAM", RED_L)]
    for a, b, name, col in bands:
        p.append(rect(X(a), T, X(b) - X(a), B - T, fill=col, stroke="none", opacity=0.55))
        p.append(text((X(a) + X(b)) / 2, T + 20, name, 15, "middle", weight="bold"))
    # grid and axes
    for ns in (1, 2, 5, 10, 20, 50, 100, 200):
        p.append(line(L, Y(ns), R, Y(ns), stroke="#bbbbbb", sw=0.6))
        p.append(text(L - 8, Y(ns) + 5, "%g" % ns, 14, "end"))
    for e in range(3, 19):
        kib = 2 ** e
        p.append(line(X(kib), B, X(kib), B + 5, stroke=INK))
        if e % 2 == 0 or e in (5,):
            p.append(text(X(kib), B + 22, _size_label(kib).replace(" ", "\u00a0"), 13, "middle"))
    p.append(line(L, B, R, B, sw=1.5))
    p.append(line(L, T, L, B, sw=1.5))
    p.append(text((L + R) / 2, B + 48, "working-set size (log scale)", 15, "middle"))
    p.append(text(24, (T + B) / 2, "ns per load (log scale)", 15, "middle",
                  transform="rotate(-90 24 %d)" % ((T + B) / 2)))
    # hwloc's sizes, dashed
    for kib, name in HWLOC:
        p.append(line(X(kib), T + 30, X(kib), B, stroke=GREY, dash="5,4"))
        p.append(text(X(kib) + 4, T + 74, "hwloc: " + name, 12, fill=GREY))
    # the curve
    pts = " ".join("%.1f,%.1f" % (X(k), Y(v)) for k, v in STAIRCASE)
    p.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"/>' % (pts, INK))
    for k, v in STAIRCASE:
        p.append(circle(X(k), Y(v), 4.5, fill=INK))
    # value labels at a few points
    for k, v, dx, dy in ((16, 1.22, 0, 20), (48, 3.98, 0, -12), (512, 6.1, -32, -8),
                         (4096, 27.7, -40, -6), (131072, 173, 0, 22)):
        p.append(text(X(k) + dx, Y(v) + dy, "%g ns" % v, 13, "middle", weight="bold"))
    # knees
    for kib, name in KNEES:
        v = dict(STAIRCASE)[kib]
        p.append(circle(X(kib), Y(v), 8, fill="none", stroke=RED, sw=2.5))
    p.append(text(X(24) + 10, Y(1.79) + 34, "knee after 24 KiB", 13, fill=RED, weight="bold"))
    p.append(text(X(768) + 6, Y(6.1) + 28, "knee after 512 KiB", 13, fill=RED, weight="bold"))
    p.append(text(X(6144) + 8, Y(27.7) + 4, "knee after 4 MiB,", 13, fill=RED, weight="bold"))
    p.append(text(X(6144) + 8, Y(27.7) + 20, "not hwloc's 32 MiB", 13, fill=RED, weight="bold"))
    p.append(text((L + R) / 2, H - 8, "Data: the handout's staircase table (§2.4), median of "
                  "batches, 25 ms per size.", 13, "middle", fill=GREY))
    write("lab02-staircase.svg", W, H, p, "Latency staircase: ns per load against working-set size")


# ---------------------------------------------------------------- lab 03

def lab03_strides():
    """A (3, 4) tensor, strides (4, 1), its storage, and x.t(): (4, 3), strides (1, 4)."""
    W, H = 1100, 570
    p = [text(W / 2, 28, "A view = storage + shape + strides + offset: same 12 floats, two views",
              20, "middle", weight="bold")]
    c = 46
    colours = [BLUE_L, GREEN_L, ORANGE_L]  # one per row of x
    # storage strip
    sx, sy = 1100 / 2 - 6 * c * 1.35, 440
    cw = c * 1.35
    p.append(text(sx - 12, sy + 30, "storage", 17, "end", weight="bold"))
    for k in range(12):
        p.append(rect(sx + k * cw, sy, cw, c, fill=colours[k // 4], stroke=INK))
        p.append(text(sx + k * cw + cw / 2, sy + 30, str(k), 17, "middle", family=MONO))
        p.append(text(sx + k * cw + cw / 2, sy + c + 18, "[%d]" % k, 12, "middle", fill=GREY,
                      family=MONO))
    # stride arrows along the storage: +1 (x's dim 1) and +4 (x's dim 0)
    ay = sy - 8
    p.append(path("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" % (sx + cw * 0.5, ay, sx + cw, ay - 22,
                                                        sx + cw * 1.5, ay), stroke=BLUE, sw=2,
                  arrow="blue"))
    p.append(text(sx + cw, ay - 26, "+1", 14, "middle", fill=BLUE, weight="bold"))
    p.append(path("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" % (sx + cw * 0.5, sy + c + 26,
                                                        sx + cw * 2.5, sy + c + 70,
                                                        sx + cw * 4.5, sy + c + 26),
                  stroke=RED, sw=2, arrow="red"))
    p.append(path("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" % (sx + cw * 4.5, sy + c + 26,
                                                        sx + cw * 6.5, sy + c + 70,
                                                        sx + cw * 8.5, sy + c + 26),
                  stroke=RED, sw=2, arrow="red"))
    p.append(text(sx + cw * 6.5, sy + c + 68, "+4", 14, "middle", fill=RED, weight="bold"))

    def grid(gx, gy, rows, cols, val, title, sub, rstride, cstride):
        p.append(text(gx + cols * c / 2, gy - 40, title, 18, "middle", weight="bold",
                      family=MONO))
        p.append(text(gx + cols * c / 2, gy - 18, sub, 15, "middle", family=MONO))
        for i in range(rows):
            for j in range(cols):
                v = val(i, j)
                p.append(rect(gx + j * c, gy + i * c, c, c, fill=colours[v // 4], stroke=INK))
                p.append(text(gx + j * c + c / 2, gy + i * c + 30, str(v), 17, "middle",
                              family=MONO))
        # along a row: + cstride; down a column: + rstride
        p.append(line(gx, gy + rows * c + 14, gx + cols * c, gy + rows * c + 14,
                      stroke=cstride[1], sw=2, arrow=cstride[2]))
        p.append(text(gx + cols * c / 2, gy + rows * c + 32, "next column: +%d" % cstride[0],
                      14, "middle", fill=cstride[1], weight="bold"))
        p.append(line(gx - 14, gy, gx - 14, gy + rows * c, stroke=rstride[1], sw=2,
                      arrow=rstride[2]))
        p.append(text(gx - 22, gy + rows * c / 2, "next row: +%d" % rstride[0], 14, "end",
                      fill=rstride[1], weight="bold"))

    grid(250, 110, 3, 4, lambda i, j: 4 * i + j, "x", "shape (3, 4) · strides (4, 1)",
         (4, RED, "red"), (1, BLUE, "blue"))
    grid(800, 110, 4, 3, lambda i, j: i + 4 * j, "x.t()", "shape (4, 3) · strides (1, 4)",
         (1, BLUE, "blue"), (4, RED, "red"))
    p.append(text(W / 2, 170, "x.t(): swap the", 15, "middle"))
    p.append(text(W / 2, 190, "shape and strides,", 15, "middle"))
    p.append(text(W / 2, 210, "copy nothing", 15, "middle"))
    p.append(line(W / 2 - 70, 225, W / 2 + 70, 225, stroke=INK, sw=2, arrow="ink"))
    p.append(text(W / 2, 362, "element [i, j] = storage[offset + i·s0 + j·s1]", 15, "middle",
                  family=MONO))
    p.append(text(W / 2, 388, "x.t() is not contiguous: walking its rows jumps 4 floats "
                  "(16 bytes) per step", 14, "middle", fill=GREY))
    write("lab03-strides.svg", W, H, p, "A tensor view's strides over its storage; transpose")


# ---------------------------------------------------------------- lab 06

def lab06_mmap_pages():
    """Two processes map one file: virtual pages -> page cache -> file on disk."""
    W, H = 1100, 490
    p = [text(W / 2, 28, "mmap: virtual pages → the page cache's physical pages → the file",
              20, "middle", weight="bold")]
    bw, bh = 100, 40
    cw, cstep, cx0 = 120, 140, 280
    cy, fy, wy = 235, 345, 90
    # the page cache row and the file row
    p.append(text(cx0 - 20, cy + 26, "page cache", 16, "end", weight="bold"))
    p.append(text(cx0 - 20, cy + 44, "(physical RAM)", 13, "end", fill=GREY))
    p.append(text(cx0 - 20, fy + 26, "file on disk", 16, "end", weight="bold"))
    for k in range(4):
        x = cx0 + k * cstep
        if k < 3:
            p.append(rect(x, cy, cw, bh, fill=GREEN_L, stroke=GREEN, sw=2, rx=4))
            p.append(text(x + cw / 2, cy + 26, "page %d" % k, 15, "middle"))
            p.append(line(x + cw / 2, fy - 2, x + cw / 2, cy + bh + 2, stroke=GREY, dash="4,3"))
        else:
            p.append(rect(x, cy, cw, bh, fill="white", stroke=GREY, sw=1.5, rx=4, dash="4,3"))
            p.append(text(x + cw / 2, cy + 26, "not cached", 14, "middle", fill=GREY,
                          italic=True))
            p.append(line(x + cw / 2, fy - 2, x + cw / 2, cy + bh + 4, stroke=RED, sw=2,
                          arrow="red"))
            p.append(text(x + cw / 2 + 10, cy + bh + 30, "major fault:", 13, fill=RED))
            p.append(text(x + cw / 2 + 10, cy + bh + 46, "read from disk", 13, fill=RED))
        p.append(rect(x, fy, cw, bh, fill=LIGHT, stroke=INK))
        p.append(text(x + cw / 2, fy + 26, "bytes %d–%d KiB" % (4 * k, 4 * k + 4), 13,
                      "middle"))
    # two workers side by side, each with its own virtual addresses
    for w, (x0, touched) in enumerate(((70, 3), (594, 2))):
        p.append(rect(x0 - 14, wy - 40, 4 * 112 + 16, bh + 74, fill="none", stroke=GREY,
                      rx=10, dash="6,4"))
        p.append(text(x0 + 2 * 112 - 6, wy - 16, "worker %d: virtual pages of its mapping"
                      % (w + 1), 15, "middle", weight="bold"))
        for k in range(4):
            x = x0 + k * 112
            mapped = k < touched
            p.append(rect(x, wy, bw, bh, fill=BLUE_L if mapped else "white",
                          stroke=BLUE if mapped else GREY, sw=2, rx=4,
                          dash=None if mapped else "4,3"))
            p.append(text(x + bw / 2, wy + 26, "map+%dK" % (4 * k), 14, "middle",
                          fill=INK if mapped else GREY, family=MONO))
            if mapped:
                p.append(line(x + bw / 2, wy + bh + 2, cx0 + k * cstep + cw / 2 + (w * 16 - 8),
                              cy - 3, stroke=BLUE, sw=1.8, arrow="blue"))
    p.append(text(W / 2, 425, "First touch of a mapped page faults: minor if the page is cached "
                  "(the kernel only fills the page table), major if it must be read.", 14,
                  "middle"))
    p.append(text(W / 2, 472, "Dashed: a page not touched yet (no page-table entry) or not in "
                  "the page cache.", 13, "middle", fill=GREY))
    p.append(text(W / 2, 450, "Both workers map the same physical pages: RSS counts them in each "
                  "worker, PSS splits them; nothing is copied.", 14, "middle"))
    write("lab06-mmap-pages.svg", W, H, p, "mmap: virtual pages, page cache, file")


def lab06_past_eof():
    """README 'Never trust the header': a 5,000-byte file under a 3-page mapping."""
    W, H = 1100, 330
    p = [text(W / 2, 28, "A load past the data: 5,000-byte file, 3-page (12,288-byte) mapping "
              "(measured)", 20, "middle", weight="bold")]
    L, R = 60, 1040
    scale = (R - L) / 16384.0   # show up to 16 KiB: one page past the mapping

    def X(b):
        return L + b * scale

    y, h = 100, 60
    segs = [(0, 5000, GREEN_L, GREEN, "file data", "reads the file"),
            (5000, 8192, BLUE_L, BLUE, "rest of the last page", "reads 0, silently"),
            (8192, 12288, ORANGE_L, ORANGE, "mapped, whole page past EOF", "SIGBUS"),
            (12288, 16384, RED_L, RED, "not mapped", "SIGSEGV")]
    for a, b, fill, stroke, name, result in segs:
        p.append(rect(X(a), y, X(b) - X(a), h, fill=fill, stroke=stroke, sw=2))
        p.append(text((X(a) + X(b)) / 2, y + 25, name, 14, "middle"))
        p.append(text((X(a) + X(b)) / 2, y + 47, result, 17, "middle", weight="bold",
                      fill=stroke))
    for b in (0, 4096, 5000, 8192, 12288, 16384):
        p.append(line(X(b), y + h, X(b), y + h + 8, stroke=INK))
        p.append(text(X(b), y + h + 25, "{:,}".format(b), 13, "middle"))
    # page brackets
    for k in range(4):
        a, b = 4096 * k, 4096 * (k + 1)
        p.append(path("M%.1f,%d L%.1f,%d L%.1f,%d L%.1f,%d" % (X(a) + 3, y - 10, X(a) + 3,
                      y - 18, X(b) - 3, y - 18, X(b) - 3, y - 10), stroke=GREY, sw=1.2))
        p.append(text((X(a) + X(b)) / 2, y - 24, "page %d" % k + (" (not mapped)" if k == 3
                      else ""), 13, "middle", fill=GREY))
    p.append(line(X(5000), y - 6, X(5000), y + h + 6, stroke=INK, sw=3))
    p.append(text(X(5000), y + h + 45, "EOF", 14, "middle", weight="bold"))
    p.append(line(X(12288), y - 6, X(12288), y + h + 6, stroke=INK, sw=3))
    p.append(text(X(12288), y + h + 45, "end of mapping", 14, "middle", weight="bold"))
    p.append(text(W / 2, 262, "A file that shrinks under a mapping (ftruncate) moves EOF left: "
                  "pages wholly past the new end SIGBUS in every reader.", 14, "middle"))
    p.append(text(W / 2, 290, "So: check the header against fstat's size before the first "
                  "pointer, and never change a mapped file (write a new one, rename).", 14,
                  "middle"))
    write("lab06-past-eof.svg", W, H, p, "How a load past a mapped file's end ends")


# ---------------------------------------------------------------- lab 07

def lab07_segments():
    """A 20 MiB large-pool segment through alloc (best fit + split), free, pending and merge."""
    W, H = 1100, 560
    p = [text(W / 2, 28, "One 20 MiB segment (one raw_alloc), cut into blocks", 20, "middle",
              weight="bold")]
    L, R = 250, 1060
    scale = (R - L) / 20.0

    styles = {"live": (BLUE_L, BLUE), "free": ("#f1faf4", GREEN), "pending": (ORANGE_L, ORANGE),
              "new": (PURPLE_L, PURPLE)}

    def seg(y, blocks, caption, note=None):
        p.append(text(L - 15, y + 22, caption[0], 15, "end", weight="bold"))
        if len(caption) > 1:
            p.append(text(L - 15, y + 42, caption[1], 13, "end", fill=GREY))
        x = L
        for size, kind, name in blocks:
            fill, stroke = styles[kind]
            w = size * scale
            p.append(rect(x, y, w, 52, fill=fill, stroke=stroke, sw=2.2,
                          dash="6,3" if kind == "free" else None))
            p.append(text(x + w / 2, y + 22, name or "free", 14, "middle", weight="bold",
                          fill=GREEN if kind == "free" else INK))
            p.append(text(x + w / 2, y + 41, "%g MiB" % size, 13, "middle"))
            x += w
        p.append(rect(L - 3, y - 3, R - L + 6, 58, fill="none", stroke=INK, sw=1.5, rx=3))
        if note:
            p.append(text(L, y + 72, note, 13, fill=GREY))

    seg(60, [(4, "live", "A"), (2, "free", ""), (2, "live", "B"), (12, "free", "")],
        ("start",), "free set, ordered by (stream, size, address): { 2 MiB, 12 MiB }")
    seg(165, [(4, "live", "A"), (2, "free", ""), (2, "live", "B"), (3, "new", "C"),
              (9, "free", "")],
        ("alloc C, 3 MiB", "best fit + split"),
        "best fit: smallest free block ≥ 3 MiB is the 12 MiB one; rest 9 MiB > 1 MiB → split")
    seg(270, [(4, "live", "A"), (2, "free", ""), (2, "pending", "B"), (3, "live", "C"),
              (9, "free", "")],
        ("free B", "used on stream s2 too"),
        "B waits for the event recorded on s2: active, not allocated, not reusable yet")
    seg(375, [(4, "live", "A"), (4, "free", ""), (3, "live", "C"), (9, "free", "")],
        ("event done", "merge"),
        "B is free: merged with its free prev (same segment only) → one 4 MiB block")
    # legend
    lx, ly = L, 490
    for k, (kind, name) in enumerate((("live", "allocated (live tensor)"),
                                      ("new", "just allocated"),
                                      ("pending", "freed, events pending"),
                                      ("free", "free (cached, not returned)"))):
        fill, stroke = styles[kind]
        x = lx - 200 + k * 250
        p.append(rect(x, ly, 30, 20, fill=fill, stroke=stroke, sw=2,
                      dash="6,3" if kind == "free" else None))
        p.append(text(x + 38, ly + 15, name, 14))
    p.append(text(W / 2, 540, "Large pool: split only if the rest is > 1 MiB (small pool: "
                  "≥ 512 B). A segment that is one free block again can go back to the device.",
                  13, "middle", fill=GREY))
    write("lab07-segments.svg", W, H, p, "Caching allocator: segment, blocks, best fit, split, "
          "merge")


# ---------------------------------------------------------------- lab 08

def lab08_formats():
    W, H = 1100, 430
    p = [text(W / 2, 28, "Three formats, bit by bit: bf16 is the top half of an fp32", 20,
              "middle", weight="bold")]
    L, bit = 90, 16.0    # 32 bits = 512 px
    rows = [("fp32", 8, 23, "3.4·10³⁸", "2⁻¹²⁶ ≈ 1.2·10⁻³⁸", "2⁻²³ ≈ 1.2·10⁻⁷", "≈ 7.2"),
            ("fp16", 5, 10, "65504", "2⁻¹⁴ ≈ 6.1·10⁻⁵", "2⁻¹⁰ ≈ 9.8·10⁻⁴", "≈ 3.3"),
            ("bf16", 8, 7, "3.4·10³⁸", "2⁻¹²⁶ ≈ 1.2·10⁻³⁸", "2⁻⁷ ≈ 7.8·10⁻³", "≈ 2.4")]
    tx = L + 32 * bit + 25
    heads = ["largest", "smallest normal", "ulp(1)", "digits"]
    hx = [tx, tx + 92, tx + 250, tx + 393]
    for k, hname in enumerate(heads):
        p.append(text(hx[k], 72, hname, 14, weight="bold", fill=GREY))
    for r, (name, e, m, big, small, ulp, digits) in enumerate(rows):
        y = 95 + r * 95
        p.append(text(L - 15, y + 28, name, 20, "end", weight="bold", family=MONO))
        fields = [(1, RED_L, RED, "s"), (e, GREEN_L, GREEN, ("exponent %d" if e > 5 else "exp. %d") % e),
                  (m, BLUE_L, BLUE, "mantissa %d" % m)]
        x = L
        for n, fill, stroke, lab in fields:
            p.append(rect(x, y, n * bit, 42, fill=fill, stroke=stroke, sw=2))
            for k in range(1, n):
                p.append(line(x + k * bit, y + 30, x + k * bit, y + 42, stroke=stroke, sw=0.8))
            p.append(text(x + n * bit / 2, y + 24, lab if n > 1 else "s", 13 if n < 8 else 14,
                          "middle", weight="bold"))
            x += n * bit
        p.append(text(L + (1 + e + m) * bit, y + 58, "%d bits" % (1 + e + m), 12, "end",
                      fill=GREY))
        for k, v in enumerate((big, small, ulp, digits)):
            p.append(text(hx[k], y + 27, v, 15, weight="bold" if (name, k) in (
                ("fp16", 0), ("bf16", 2)) else None,
                fill=RED if (name, k) in (("fp16", 0), ("bf16", 2)) else INK))
    # bf16 = fp32's top 16 bits
    p.append(line(L + 16 * bit, 68, L + 16 * bit, 95 + 2 * 95 + 46, stroke=PURPLE, sw=2,
                  dash="6,4"))
    p.append(text(L + 16 * bit + 6, 80, "bf16 = fp32's top 16 bits (rounded)", 13,
                  fill=PURPLE))
    p.append(text(W / 2, 395, "fp16: 3 more bits of precision, a tiny range (gradients "
                  "underflow, activations overflow).  bf16: fp32's range, 8 bits of precision.",
                  14, "middle"))
    p.append(text(W / 2, 418, "digits = log10(2^(mantissa bits + 1)); smallest subnormals: "
                  "fp32 2⁻¹⁴⁹, fp16 2⁻²⁴, bf16 2⁻¹³³.", 13, "middle", fill=GREY))
    write("lab08-formats.svg", W, H, p, "fp32, fp16 and bf16 bit layouts")


# ---------------------------------------------------------------- lab 04 and lab 05

def lab04_two_sockets():
    """Two NUMA nodes: cores, node-local memory, a GPU on each socket, the link between."""
    W, H = 1100, 470
    p = [text(W / 2, 28, "Two sockets, two NUMA nodes: every GPU and every DIMM belongs to one",
              20, "middle", weight="bold")]
    for s in range(2):
        x = 60 + s * 560
        p.append(rect(x, 60, 420, 330, fill="none", stroke=GREY, rx=12, dash="6,4"))
        p.append(text(x + 210, 82, "NUMA node %d" % s, 16, "middle", weight="bold", fill=GREY))
        p.append(rect(x + 20, 100, 380, 60, fill=GREEN_L, stroke=GREEN, sw=2, rx=6))
        p.append(text(x + 210, 136, "memory of node %d (its DIMMs)" % s, 15, "middle",
                      weight="bold"))
        p.append(rect(x + 20, 200, 380, 90, fill=BLUE_L, stroke=BLUE, sw=2, rx=6))
        p.append(text(x + 210, 222, "socket %d" % s, 15, "middle", weight="bold"))
        for c in range(8):
            p.append(rect(x + 38 + c * 44, 234, 36, 40, fill="white", stroke=BLUE))
            p.append(text(x + 56 + c * 44, 259, "c", 12, "middle", fill=GREY))
        p.append(line(x + 210, 198, x + 210, 162, stroke=GREEN, sw=3, arrow="green"))
        p.append(text(x + 226, 186, "local ~80–120 ns", 14, fill=GREEN, weight="bold"))
        p.append(rect(x + 110, 330, 200, 46, fill=ORANGE_L, stroke=ORANGE, sw=2, rx=6))
        p.append(text(x + 210, 359, "GPU %d–%d (PCIe)" % (4 * s, 4 * s + 3), 15, "middle",
                      weight="bold"))
        p.append(line(x + 210, 328, x + 210, 292, stroke=ORANGE, sw=3, arrow="orange"))
        p.append(text(x + 220, 316, "DMA", 13, fill=ORANGE))
    # the link
    p.append(rect(480, 225, 140, 40, fill=RED_L, stroke=RED, sw=2, rx=6))
    p.append(text(550, 250, "UPI / IF link", 14, "middle", weight="bold"))
    p.append(line(482, 245, 462, 245, stroke=RED, sw=3))
    p.append(line(618, 245, 638, 245, stroke=RED, sw=3))
    # remote path: core of socket 0 to memory of node 1
    p.append(path("M 380,234 C 440,110 620,100 700,162", stroke=RED, sw=2.5, dash="7,4",
                  arrow="red"))
    p.append(text(550, 118, "remote ~140–200 ns", 14, "middle", fill=RED, weight="bold"))
    p.append(text(W / 2, 420, "A batch prepared on socket 0 for GPU 5 must cross the link: in "
                  "the pin-memory thread's copy or in GPU 5's DMA.", 14, "middle"))
    p.append(text(W / 2, 445, "nvidia-smi topo -m (CPU and NUMA affinity), numactl "
                  "--cpunodebind/--membind, numastat, kernel.numa_balancing", 13, "middle",
                  fill=GREY, family=MONO))
    write("lab04-two-sockets.svg", W, H, p, "Two-socket NUMA machine with GPUs")


# labs/lab05-pinned-transfers/bench/bench_lab05.c: the model the benchmark grades plans in.
LAB05_GBPS = (40.0, 40.0, 45.0)     # H2D, kernel, D2H
LAB05_FIXED = (8e-6, 5e-6, 8e-6)    # seconds per operation


def lab05_simulate(total, chunks, streams, slots):
    """pt_sim_run's model (include/sim.h): three engines in issue order, stream order, slots."""
    size = total // chunks
    cost = [LAB05_FIXED[s] + size / (LAB05_GBPS[s] * 1e9) for s in range(3)]
    engine_free = [0.0, 0.0, 0.0]
    stream_end = [0.0] * streams
    d2h_end = []
    ops = []
    for i in range(chunks):
        st = i % streams
        ready = stream_end[st]
        if i >= slots:
            ready = max(ready, d2h_end[i - slots])
        for s in range(3):
            start = max(engine_free[s], ready)
            end = start + cost[s]
            engine_free[s] = end
            ready = end
            ops.append((s, i, start, end))
        stream_end[st] = ready
        d2h_end.append(ready)
    return ops, max(e for _, _, _, e in ops)


def lab05_pipeline():
    W, H = 1100, 570
    total = 256 << 20
    plans = [("1 chunk", "(serial)", 1, 1, 1), ("32 × 8 MiB", "1 stream, 1 slot", 32, 1, 1),
             ("32 × 8 MiB", "2 streams, 2 slots", 32, 2, 2),
             ("32 × 8 MiB", "3 streams, 3 slots", 32, 3, 3)]
    p = [text(W / 2, 28, "Three engines, 256 MiB host → GPU → host (the lab's model: H2D 40, "
              "kernel 40, D2H 45 GB/s)", 19, "middle", weight="bold")]
    L, R = 230, 1050
    tmax = 20.5e-3
    scale = (R - L) / tmax
    fills = [(BLUE_L, BLUE), (ORANGE_L, ORANGE), (GREEN_L, GREEN)]
    names = ["H2D", "kernel", "D2H"]
    y = 72
    for title, sub, n, streams, slots in plans:
        ops, end = lab05_simulate(total, n, streams, slots)
        p.append(text(20, y + 14, title, 15, weight="bold"))
        p.append(text(20, y + 34, sub, 14))
        p.append(text(20, y + 56, "%.2f ms" % (end * 1e3), 15,
                      fill=RED if end > 15e-3 else GREEN if end < 8e-3 else ORANGE,
                      weight="bold"))
        for s in range(3):
            ry = y + s * 24
            p.append(text(L - 8, ry + 16, names[s], 12, "end", fill=GREY))
            p.append(rect(L, ry, R - L, 20, fill="#f7f7f7", stroke="none"))
        for s, i, a, b in ops:
            fill, stroke = fills[s]
            p.append(rect(L + a * scale, y + s * 24, max((b - a) * scale, 1.0), 20, fill=fill,
                          stroke=stroke, sw=0.8))
        p.append(line(L + end * scale, y - 4, L + end * scale, y + 72, stroke=RED, sw=1.5))
        y += 110
    for ms in range(0, 21, 2):
        x = L + ms * 1e-3 * scale
        p.append(line(x, y - 30, x, y - 24, stroke=INK))
        p.append(text(x, y - 8, "%d" % ms, 13, "middle"))
    p.append(line(L, y - 30, R, y - 30, stroke=INK))
    p.append(text(R, y + 12, "ms", 13, "end"))
    busiest = max(total / (g * 1e9) for g in LAB05_GBPS)
    p.append(line(L + busiest * scale, 56, L + busiest * scale, y - 30, stroke=PURPLE, sw=1.5,
                  dash="5,4"))
    p.append(text(L + busiest * scale + 5, 58, "busiest engine alone: %.2f ms (the bound)"
                  % (busiest * 1e3), 13, fill=PURPLE))
    p.append(text(W / 2, H - 12, "Computed with the Part C model (include/sim.h) and the "
                  "benchmark's costs (8, 5, 8 µs fixed per operation).", 13, "middle",
                  fill=GREY))
    write("lab05-pipeline.svg", W, H, p, "Three-stage pipeline timeline: serial vs chunked")


# ---------------------------------------------------------------- lab 09

def lab09_block_tables():
    """Three sequences' block tables over eight physical blocks: fork, copy on write, prefix hit
    (the handout's sections 2.3-2.5, with blocks of 16 tokens)."""
    W, H = 1100, 520
    p = [text(W / 2, 28, "Block tables: logical blocks of 16 tokens \u2192 any physical block",
              20, "middle", weight="bold")]
    seqs = [("A", ["prompt of 40 tokens"], BLUE, BLUE_L, [("A0", 16), ("A1", 16), ("A2", 8)]),
            ("B", ["fork of A,", "then 1 token"], ORANGE, ORANGE_L,
             [("B0", 16), ("B1", 16), ("B2", 9)]),
            ("C", ["new request,", "same first 16"], PURPLE, PURPLE_L, [("C0", 16), ("C1", 5)])]
    where = {"A0": 3, "A1": 5, "A2": 1, "B0": 3, "B1": 5, "B2": 6, "C0": 3, "C1": 0}
    count = {0: 1, 1: 1, 2: None, 3: 3, 4: 0, 5: 2, 6: 1, 7: None}
    colour_of = {s[0]: s[2] for s in seqs}
    lx, lw = 180, 64
    for k, (name, about, colour, light, blocks) in enumerate(seqs):
        y = 80 + k * 110
        p.append(text(lx - 14, y + 22, "seq " + name, 16, "end", weight="bold", fill=colour))
        for i, line_ in enumerate(about):
            p.append(text(lx - 14, y + 40 + 15 * i, line_, 12, "end", fill=GREY))
        for i, (lb, used) in enumerate(blocks):
            x = lx + i * (lw + 8)
            p.append(rect(x, y, lw, 52, fill="white", stroke=colour, sw=2))
            p.append(rect(x + 1, y + 40, (lw - 2) * used / 16.0, 11, fill=light, stroke="none"))
            p.append(text(x + lw / 2, y + 22, lb, 15, "middle", weight="bold", fill=colour))
            p.append(text(x + lw / 2, y + 37, "%d/16" % used, 11, "middle", fill=GREY))
        tx = lx + 3 * (lw + 8) + 10
        p.append(line(tx, y + 26, tx + 40, y + 26, stroke=colour, sw=2,
                      arrow={"A": "blue", "B": "orange", "C": "purple"}[name]))
        p.append(text(tx + 50, y + 31, "table [%s]" % ", ".join(str(where[b]) for b, _ in blocks),
                      16, fill=colour, weight="bold", family=MONO))
    bx, bw, bh = 650, 100, 92
    p.append(text(bx + 2 * (bw + 12) - 6, 62, "physical blocks (the simulated device)", 15,
                  "middle", fill=GREY))
    for blk in range(8):
        x, y = bx + (blk % 4) * (bw + 12), 80 + (blk // 4) * 130
        c = count[blk]
        if c is None:
            fill, stroke, note, dash = "white", GREY, "free", "6,3"
        elif c == 0:
            fill, stroke, note, dash = LIGHT, GREY, "count 0, cached", "6,3"
        elif c >= 2:
            fill, stroke, note, dash = GREEN_L, GREEN, "count %d" % c, None
        else:
            fill, stroke, note, dash = "white", INK, "count 1", None
        p.append(rect(x, y, bw, bh, fill=fill, stroke=stroke, sw=2, dash=dash))
        p.append(text(x + bw / 2, y + 24, "block %d" % blk, 15, "middle", weight="bold"))
        p.append(text(x + bw / 2, y + 44, note, 12, "middle",
                      fill=GREY if c in (None, 0) else INK))
        holders = [lb for lb, b in where.items() if b == blk]
        for i, lb in enumerate(holders):
            p.append(text(x + bw / 2 + (i - (len(holders) - 1) / 2) * 28, y + 74, lb, 13,
                          "middle", weight="bold", fill=colour_of[lb[0]]))
    notes = ["Fork: B's table is a copy of A's; each block's count + 1, no KV data moves.",
             "Copy on write: B's first token went into the shared partial block 1, so B copied "
             "it first (block 6); A writes block 1 in place.",
             "Prefix cache: C's first 16 tokens (with nothing before them) are A0's: found by "
             "hash, compared exactly, shared.",
             "Count 0 but registered (block 4): kept in the LRU list, evicted only when a new "
             "block is needed and no block is free."]
    for i, n in enumerate(notes):
        p.append(text(40, 425 + i * 21, n, 14, fill=INK if i < 3 else GREY))
    write("lab09-block-tables.svg", W, H, p, "Paged KV cache: block tables, fork, copy on "
          "write, prefix sharing")


# ---------------------------------------------------------------- lab 10

# labs/lab10-roofline/README.md, sections 2.3-2.6 and the calibration: one core of the 2-vCPU AMD
# EPYC guest (Zen 4). The roofs: the benchmark's FMA peak and the STREAM triad on that core; the
# lower roof: one dependent chain of float adds (a dot product, 2 FLOPs per 3-cycle add).
LAB10_PEAK, LAB10_TRIAD, LAB10_CHAIN = 118.0, 26.8, 2.5      # GFLOP/s, GB/s, GFLOP/s
LAB10_KERNELS = [("GEMV", 0.50, 9.2), ("softmax", 0.625, 9.4), ("LayerNorm", 0.875, 11.7),
                 ("embedding bag", 0.24, 1.4)]               # (name, FLOP/byte, GFLOP/s)
LAB10_VARIANTS = [("GEMV, one chain", 0.50, 2.6), ("GEMV, textbook", 0.50, 0.27)]


def lab10_roofline():
    """One core's roofline, log-log, with the reference's four kernels and two naive GEMVs."""
    W, H = 1100, 560
    L, R, T, B = 100, 1060, 58, 470
    xmin, xmax = math.log2(1 / 32.0), math.log2(64.0)
    ymin, ymax = math.log10(0.1), math.log10(400.0)

    def X(fpb):
        return L + (math.log2(fpb) - xmin) / (xmax - xmin) * (R - L)

    def Y(gflops):
        return B - (math.log10(gflops) - ymin) / (ymax - ymin) * (B - T)

    ridge = LAB10_PEAK / LAB10_TRIAD
    p = [text(W / 2, 28, "One core's roofline: FMA peak %g GFLOP/s, STREAM triad %g GB/s "
              "(2-vCPU AMD EPYC guest)" % (LAB10_PEAK, LAB10_TRIAD), 20, "middle",
              weight="bold")]
    p.append(rect(L, T, X(ridge) - L, B - T, fill=BLUE_L, stroke="none", opacity=0.35))
    p.append(rect(X(ridge), T, R - X(ridge), B - T, fill=ORANGE_L, stroke="none", opacity=0.35))
    p.append(text(L + 12, T + 22, "memory-bound", 15, weight="bold", fill=BLUE))
    p.append(text(R - 12, T + 22, "compute-bound", 15, "end", weight="bold", fill=ORANGE))
    for g in (0.1, 0.3, 1, 3, 10, 30, 100, 300):
        p.append(line(L, Y(g), R, Y(g), stroke="#bbbbbb", sw=0.6))
        p.append(text(L - 8, Y(g) + 5, "%g" % g, 14, "end"))
    for e in range(-5, 7):
        fpb = 2.0 ** e
        p.append(line(X(fpb), B, X(fpb), B + 5, stroke=INK))
        p.append(text(X(fpb), B + 22, "1/%d" % 2 ** -e if e < 0 else "%d" % fpb, 13, "middle"))
    p.append(line(L, B, R, B, sw=1.5))
    p.append(line(L, T, L, B, sw=1.5))
    p.append(text((L + R) / 2, B + 48, "arithmetic intensity: FLOPs per byte of compulsory "
                  "traffic (log scale)", 15, "middle"))
    p.append(text(28, (T + B) / 2, "GFLOP/s (log scale)", 15, "middle",
                  transform="rotate(-90 28 %d)" % ((T + B) / 2)))
    # the roofs
    x0 = 2.0 ** xmin
    p.append(path("M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f" % (X(x0), Y(LAB10_TRIAD * x0), X(ridge),
                  Y(LAB10_PEAK), R, Y(LAB10_PEAK)), stroke=INK, sw=3.5))
    p.append(text(X(0.09), Y(LAB10_TRIAD * 0.09) - 16, "triad × intensity", 15, "middle",
                  weight="bold", transform="rotate(-%.1f %.1f %.1f)" % (
                      math.degrees(math.atan2(Y(1) - Y(10), X(10 / LAB10_TRIAD) -
                                              X(1 / LAB10_TRIAD))),
                      X(0.09), Y(LAB10_TRIAD * 0.09) - 16)))
    p.append(text(R - 10, Y(LAB10_PEAK) - 10, "FMA peak %g GFLOP/s (all SIMD lanes, "
                  "independent chains)" % LAB10_PEAK, 14, "end", weight="bold"))
    p.append(line(X(ridge), Y(LAB10_PEAK), X(ridge), B, stroke=GREY, dash="5,4"))
    p.append(text(X(ridge) + 6, Y(0.15), "ridge %.1f FLOP/byte" % ridge, 14, fill=GREY,
                  weight="bold"))
    xc = LAB10_CHAIN / LAB10_TRIAD
    p.append(line(X(xc), Y(LAB10_CHAIN), R, Y(LAB10_CHAIN), stroke=RED, sw=2.5, dash="8,5"))
    p.append(text(R - 10, Y(LAB10_CHAIN) - 9, "one dependent chain of adds (no SIMD, no ILP): "
                  "≈ %g GFLOP/s" % LAB10_CHAIN, 14, "end", fill=RED, weight="bold"))
    # the kernels: the reference (filled), two naive GEMVs (hollow); a dashed gap to the roof
    place = {"GEMV": (-14, -12, "end"), "softmax": (0, 26, "middle"),
             "LayerNorm": (10, -10, "start"), "embedding bag": (10, 18, "start"),
             "GEMV, one chain": (-14, -10, "end"), "GEMV, textbook": (-14, 5, "end")}
    for name, fpb, g in LAB10_KERNELS:
        p.append(line(X(fpb), Y(g), X(fpb), Y(LAB10_TRIAD * fpb), stroke=BLUE, sw=1.2,
                      dash="3,3"))
    for name, fpb, g in LAB10_KERNELS:
        dx, dy, anchor = place[name]
        p.append(circle(X(fpb), Y(g), 7, fill=BLUE, stroke="white", sw=1.5))
        p.append(text(X(fpb) + dx, Y(g) + dy, "%s %g" % (name, g), 14, anchor, fill=BLUE,
                      weight="bold"))
    for name, fpb, g in LAB10_VARIANTS:
        dx, dy, anchor = place[name]
        p.append(circle(X(fpb), Y(g), 6, fill="white", stroke=RED, sw=2.5))
        p.append(text(X(fpb) + dx, Y(g) + dy, "%s %g" % (name, g), 14, anchor, fill=RED))
    p.append(text(W / 2, H - 12, "Points: GFLOP/s reached (benchmark's FLOP count ÷ median "
                  "time, 128 MiB arrays). Blue: the reference; red: naive GEMVs. Dashed: the "
                  "gap to the memory roof.", 13, "middle", fill=GREY))
    write("lab10-roofline.svg", W, H, p, "Roofline of one core with the lab's four kernels")

# labs/lab11-python-objects/README.md, section 2.4: tools/arenas.py under Python 3.11.2 (release
# build) on the 2-vCPU AMD EPYC guest: (step, VmRSS MiB, pymalloc arenas of 1 MiB).
LAB11_ARENAS = [("start", 10.7, 3), ("1,000,000 ints alive", 49.1, 34),
                ("all freed but 1 in 64", 41.5, 34), ("all freed", 12.0, 4)]


def lab11_arenas():
    """RSS and arenas while small objects are made and (mostly) freed."""
    W, H = 1100, 520
    L, R, T, B = 110, 1060, 70, 420
    top = 60.0
    p = [text(W / 2, 30, "Freeing 98% of a million small objects gives back no arena "
              "(Python 3.11.2, 2-vCPU AMD EPYC guest)", 20, "middle", weight="bold")]
    for v in range(0, 61, 10):
        y = B - v / top * (B - T)
        p.append(line(L, y, R, y, stroke="#bbbbbb", sw=0.6))
        p.append(text(L - 8, y + 5, "%d" % v, 14, "end"))
    p.append(line(L, B, R, B, sw=1.5))
    p.append(line(L, T, L, B, sw=1.5))
    p.append(text(36, (T + B) / 2, "resident memory, VmRSS (MiB)", 15, "middle",
                  transform="rotate(-90 36 %d)" % ((T + B) / 2)))
    slot = (R - L) / len(LAB11_ARENAS)
    for i, (step, rss, arenas) in enumerate(LAB11_ARENAS):
        x = L + i * slot + slot * 0.2
        w = slot * 0.6
        y = B - rss / top * (B - T)
        arena_h = arenas / top * (B - T)   # 1 MiB each
        p.append(rect(x, y, w, B - y, fill=BLUE_L, stroke=BLUE))
        p.append(rect(x + w * 0.15, B - arena_h, w * 0.7, arena_h, fill=ORANGE_L, stroke=ORANGE))
        p.append(text(x + w / 2, y - 10, "%.1f MiB" % rss, 15, "middle", weight="bold"))
        p.append(text(x + w / 2, B - arena_h / 2 + 5, "%d arenas" % arenas, 14, "middle",
                      fill=ORANGE, weight="bold"))
        p.append(text(x + w / 2, B + 24, step, 15, "middle"))
    p.append(text(W / 2, B + 62, "Blue: the process's RSS. Orange: pymalloc's arenas (1 MiB "
                  "each). An arena returns to the OS only when every pool in it is empty; the "
                  "drop after the", 13, "middle", fill=GREY))
    p.append(text(W / 2, B + 80, "second step is the list's 8 MB pointer array (a plain malloc), "
                  "not the ints. Figures: tools/arenas.py, the handout's section 2.4.", 13,
                  "middle", fill=GREY))
    write("lab11-python-objects.svg", W, H, p, "RSS and pymalloc arenas as small objects are "
          "made and freed")


# ---------------------------------------------------------------- lab 12

def lab12_bank_columns():
    """A warp reads column 0 of a 32 x 32 float tile and of a 32 x 33 one (handout 2.3: word w
    is in bank w mod 32; the padded row is 33 words, so row r's column 0 is in bank r)."""
    W, H = 1100, 600
    cell, gap, top = 11, 1, 128
    p = [text(W / 2, 32, "One warp reads one tile column: lane r reads row r, column 0", 20,
              "middle", weight="bold")]

    def tile(gx, cols, title, sub, colour, verdict):
        step = cell + gap
        p.append(text(gx + cols * step / 2, top - 52, title, 19, "middle", weight="bold",
                      family=MONO))
        p.append(text(gx + cols * step / 2, top - 28, sub, 15, "middle"))
        for r in range(32):
            for c in range(cols):
                bank = (r * cols + c) % 32
                if c == 0:
                    fill = colour
                elif c == 32:
                    fill = "white"          # the padding word: never read
                elif bank == 0:
                    fill = RED_L            # the other words of bank 0
                else:
                    fill = LIGHT
                p.append(rect(gx + c * step, top + r * step, cell, cell, fill=fill,
                              stroke=GREY if c == 32 else "none", sw=0.6,
                              dash="2,2" if c == 32 else None))
        p.append(text(gx - 8, top + 9, "lane 0", 12, "end", fill=GREY))
        p.append(text(gx - 8, top + 31 * step + 9, "lane 31", 12, "end", fill=GREY))
        p.append(text(gx + cols * step / 2, top + 32 * step + 30, verdict, 17, "middle",
                      fill=colour, weight="bold"))

    tile(120, 32, "__shared__ float tile[32][32]", "row r, column 0 is word 32·r: bank 0 for "
         "every lane", RED, "32 lanes, 1 bank: 32 wavefronts")
    tile(640, 33, "__shared__ float tile[32][33]", "row r, column 0 is word 33·r: bank r",
         GREEN, "32 lanes, 32 banks: 1 wavefront")
    p.append(text(640 + 32 * 12 + 6, top - 6, "pad", 12, "middle", fill=GREY))
    p.append(text(W / 2, H - 34, "Shared memory: 32 banks of 4 bytes, word w in bank w mod 32. "
                  "Pink: the other words of bank 0, a diagonal once rows are 33 words.", 14,
                  "middle", fill=GREY))
    p.append(text(W / 2, H - 14, "The row stores that fill the tile touch 32 banks either way: "
                  "the unpadded tile averages (1 + 32) / 2 = 16.5 wavefronts per request "
                  "(handout 2.3).", 14, "middle", fill=GREY))
    write("lab12-gpu-memory.svg", W, H, p, "Bank conflicts of a tile column, with and without "
          "padding")


def main():
    lab01_mesi_pingpong()
    lab01_padded_vs_packed()
    lab02_staircase()
    lab03_strides()
    lab04_two_sockets()
    lab05_pipeline()
    lab06_mmap_pages()
    lab06_past_eof()
    lab07_segments()
    lab08_formats()
    lab09_block_tables()
    lab10_roofline()
    lab11_arenas()
    lab12_bank_columns()


if __name__ == "__main__":
    main()
