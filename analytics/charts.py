"""Charts drawn on the server as SVG: no script, nothing from a CDN, and the page's CSP untouched.

Every text in a chart (a day, an intent, a reason) is escaped: some of it comes from customers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 14, 40
COLOURS = ["#2457d6", "#1e8e3e", "#d93025", "#f29900", "#8430ce", "#12a4af"]


@dataclass(frozen=True)
class Line:
    label: str
    values: Sequence[float | None]  # one per x label; None leaves a gap


def _tick(value: float, percent: bool) -> str:
    return f"{value * 100:.0f}%" if percent else f"{value:g}"


def _scale_top(values: list[float], percent: bool) -> float:
    if percent:
        return 1.0
    top = max(values, default=0.0)
    if top <= 0:
        return 1.0
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000, 20000, 50000):
        if top <= step * 4:
            return float(step * 4)
    return top * 1.1


def line_chart(
    title: str, x_labels: Sequence[str], lines: Sequence[Line], *, percent: bool = False, top: float | None = None
) -> SafeString:
    """Lines over days; the y axis starts at 0 and ends at `top` (100 % for rates; else a round number)."""
    plotted = [v for line in lines for v in line.values if v is not None]
    top = top or _scale_top(plotted, percent)
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    count = max(len(x_labels), 1)

    def x(i: int) -> float:
        return LEFT + (inner_w * i / (count - 1) if count > 1 else inner_w / 2)

    def y(v: float) -> float:
        return TOP + inner_h * (1 - v / top)

    parts = [_frame(title, top, percent)]
    every = max(1, count // 8)
    for i, label in enumerate(x_labels):
        if i % every == 0 or i == count - 1:
            below = HEIGHT - BOTTOM + 16
            parts.append(f'<text x="{x(i):.1f}" y="{below}" text-anchor="middle" class="tick">{escape(label)}</text>')
    for n, line in enumerate(lines):
        colour = COLOURS[n % len(COLOURS)]
        runs: list[list[str]] = [[]]
        for i, value in enumerate(line.values):
            if value is None:
                runs.append([])
                continue
            runs[-1].append(f"{x(i):.1f},{y(value):.1f}")
        for run in runs:
            if len(run) > 1:
                parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(run)}"/>')
            elif run:
                cx, cy = run[0].split(",")
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="2.5" fill="{colour}"/>')
        parts.append(
            f'<rect x="{LEFT + 150 * n}" y="{HEIGHT - 14}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{LEFT + 150 * n + 14}" y="{HEIGHT - 5}" class="legend">{escape(line.label)}</text>'
        )
    return _svg(title, parts)


def bar_chart(title: str, bars: Sequence[tuple[str, float]], *, percent: bool = False) -> SafeString:
    """Horizontal bars, biggest first as given; the value is written at the end of each bar."""
    row_h, label_w = 22, 190
    height = TOP + row_h * max(len(bars), 1) + 8
    top = _scale_top([v for _, v in bars], percent) if bars else 1.0
    inner_w = WIDTH - label_w - 60
    parts = [f'<text x="0" y="10" class="title">{escape(title)}</text>']
    for i, (label, value) in enumerate(bars):
        y = TOP + i * row_h
        length = inner_w * (value / top if top else 0)
        shown = label if len(label) <= 28 else label[:27] + "…"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end" class="tick"><title>{escape(label)}</title>'
            f"{escape(shown)}</text>"
            f'<rect x="{label_w}" y="{y + 4}" width="{max(length, 1):.1f}" height="{row_h - 8}" fill="{COLOURS[0]}"/>'
            f'<text x="{label_w + length + 6:.1f}" y="{y + 15}" class="tick">{_tick(value, percent)}</text>'
        )
    return _svg(title, parts, height=height)


def _frame(title: str, top: float, percent: bool) -> str:
    inner_h = HEIGHT - TOP - BOTTOM
    grid = []
    for k in range(5):
        value = top * k / 4
        y = TOP + inner_h * (1 - k / 4)
        grid.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">{_tick(value, percent)}</text>'
        )
    return f'<text x="0" y="10" class="title">{escape(title)}</text>' + "".join(grid)


def _svg(title: str, parts: list[str], *, height: int = HEIGHT) -> SafeString:
    # Every part above escapes what it writes; numbers are formatted by this module.
    return mark_safe(  # noqa: S308
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(title)}" class="chart">{"".join(parts)}</svg>'
    )
