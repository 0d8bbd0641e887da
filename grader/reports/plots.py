"""`make plots`: runs each lab's benchmark built from the student's tree and draws the series it
reports (lab.toml [[plots]]: series, x, y, title, xlabel, ylabel, logx, logy, hline, points,
point_labels) as PNGs in build/plots/. `y` names one column of the series, or a list of columns
drawn as labelled lines on one plot (`labels`, optional, names them). `points` names a second
series with the same x and y columns, drawn over the lines as labelled points (a roofline and
the kernels on it): its column `which` indexes `point_labels`."""
from __future__ import annotations

import os

from ..grading import bench, build
from ..rules.labs import ROOT, Lab

PLOTS_DIR = os.path.join(ROOT, "build", "plots")


def pow2_label(v: float, _pos=None) -> str:
    """A log-2 axis tick: 4096, 1.5, or 1/32 below 1 (a fraction a reader can check)."""
    if v >= 1:
        return f"{v:.0f}" if v == int(v) else f"{v:g}"
    inv = 1 / v
    return f"1/{inv:.0f}" if abs(inv - round(inv)) < 1e-9 else f"{v:g}"


def draw_points(ax, spec: dict, pts: dict):
    """The `points` series over the lines: one marker each, named by point_labels[which]."""
    names = spec.get("point_labels", [])
    for k, (x, y) in enumerate(zip(pts[spec["x"]], pts[spec["y"]])):
        which = int(pts["which"][k]) if "which" in pts else k
        name = names[which] if 0 <= which < len(names) else f"point {which}"
        ax.plot([x], [y], marker="o", linestyle="none", label=name)
    ax.legend()


def draw(spec: dict, series: dict, path: str, points: dict | None = None):
    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    ys = spec["y"] if isinstance(spec["y"], list) else [spec["y"]]
    labels = spec.get("labels", ys)
    many = len(ys) > 1
    for y, label in zip(ys, labels):
        ax.plot(series[spec["x"]], series[y], marker=None if many or points else "o",
                label=label if many or points else None)
    if many:
        ax.legend()
    if points:
        draw_points(ax, spec, points)
    if spec.get("logx"):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(pow2_label))
    if spec.get("logy") and any(v > 0 for y in ys for v in series[y] if v is not None):
        ax.set_yscale("log")  # not where nothing is positive (a skeleton's run): matplotlib warns
    if "hline" in spec:
        ax.axhline(spec["hline"], color="grey", linestyle="--", linewidth=1)
    ax.set_title(spec.get("title", ""))
    ax.set_xlabel(spec.get("xlabel", spec["x"]))
    ax.set_ylabel(spec.get("ylabel", ", ".join(ys)))
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_lab(lab: Lab, submission: str) -> list[str]:
    if not lab.plots:
        return []
    built = build.build(lab, submission)
    if not built.ok:
        print(f"lab {lab.id}: does not build:\n{build.first_errors(built.log)}")
        return []
    report = bench.run_bench(lab, os.path.join(built.out_dir, "bench"), f"plots-{lab.slug}").report
    written = []
    for spec in lab.plots:
        series = ((report or {}).get("series") or {}).get(spec["series"])
        if not series:
            print(f"lab {lab.id}: the benchmark reported no series '{spec['series']}' "
                  "(is that part implemented? does this machine have the hardware?)")
            continue
        os.makedirs(PLOTS_DIR, exist_ok=True)
        path = os.path.join(PLOTS_DIR, f"lab{lab.id}-{spec['series']}.png")
        points = ((report or {}).get("series") or {}).get(spec.get("points", ""))
        draw(spec, series, path, points)
        written.append(path)
    return written


def main(chosen: list[Lab], submission: str) -> int:
    for lab in chosen:
        for path in plot_lab(lab, submission):
            print(f"wrote {os.path.relpath(path)}")
    return 0
