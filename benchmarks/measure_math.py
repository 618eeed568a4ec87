"""Typesetting a card's formula: Recall's whole path beside the typesetter alone.

Recall: ``content.math.typeset`` on a formula not seen before (the cache cleared), then the
SVG drawn into an image by QtSvg at twice the pixels, as the card view draws it on a
high-density screen. The floor: ziamath typesetting the same LaTeX to SVG text and nothing
else. The formulas are the kind decks hold: a quadratic's roots, a sum, an integral, a
limit, a matrix, a chemical formula, Maxwell's first equation.
"""

from __future__ import annotations

import math as arithmetic
import os
import time
import warnings

from benchmarks.common import Figure
from recall.content import math

GOAL_MS = 50.0
FORMULAS = (
    r"x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}",
    r"\sum_{k=1}^{n} k^2 = \frac{n(n+1)(2n+1)}{6}",
    r"\int_a^b f(x)\,dx = F(b) - F(a)",
    r"\lim_{x \to 0} \frac{\sin x}{x} = 1",
    r"A = \begin{pmatrix} a & b \\ c & d \end{pmatrix}",
    r"\mathrm{H_2SO_4}",
    r"\nabla \cdot \vec{E} = \frac{\rho}{\varepsilon_0}",
    r"e^{i\pi} + 1 = 0",
)


def _draw(svg: bytes, width: float, height: float) -> None:
    from PySide6.QtCore import QByteArray, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(
        arithmetic.ceil(width * 2), arithmetic.ceil(height * 2), QImage.Format.Format_ARGB32
    )
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(QByteArray(svg)).render(painter)
    painter.end()


def measure_math(rounds: int) -> Figure:
    """The figure: each formula typeset cold ``rounds`` times, on both sides."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication
    from ziamath.zmath import Latex

    _app = QGuiApplication.instance() or QGuiApplication([])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        Latex("x").svg()  # not counted: loading the fonts, once per run
    recall: list[float] = []
    floor: list[float] = []
    cached: list[float] = []
    for _ in range(rounds):
        for source in FORMULAS:
            math._typeset.cache_clear()
            formula = math.Formula(source, True, False, source)
            began = time.perf_counter()
            drawn = math.typeset(formula, 24.0, "#202020")
            assert drawn is not None, source
            _draw(drawn.svg, drawn.width, drawn.height)
            recall.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            math.typeset(formula, 24.0, "#202020")
            cached.append((time.perf_counter() - began) * 1000)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                began = time.perf_counter()
                Latex(source, size=24.0, color="#202020").svg()
                floor.append((time.perf_counter() - began) * 1000)
    median = sorted(recall)[len(recall) // 2]
    return Figure(
        title="Typeset a formula",
        measures=(
            f"{len(FORMULAS)} typical formulas, each typeset anew (cache cleared) and drawn "
            "by QtSvg at 2x, beside ziamath's LaTeX-to-SVG alone"
        ),
        recall=recall,
        baseline_name="ziamath alone (the floor)",
        baseline=floor,
        tail=True,
        goal=f"typical formula ≤ {GOAL_MS:.0f} ms",
        goal_met=median <= GOAL_MS,
        notes=[
            f"Shown again, a formula comes from the cache: median "
            f"{sorted(cached)[len(cached) // 2]:.3f} ms.",
            "Not counted: loading the typesetter and its font on the first formula of a run "
            "(about 60 ms of imports and the STIX Two Math font).",
        ],
    )
