"""What a figure shows, as data: :class:`FigureSpec` (a kind, a tidy table and which of its columns
are x, y, hue and panels, what to highlight, the labels and the title). The functions of
:mod:`mabench.report.figures` build specs from the results; :mod:`mabench.report.render` draws any
spec. Nothing here imports matplotlib."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import pandas as pd


@dataclass(frozen=True)
class FigureSpec:
    """One figure: ``kind`` names the renderer's drawing (``render.KINDS``); ``data`` holds every number
    drawn, one row per point (or per cell of a grid); ``x``, ``y``, ``hue`` and ``panel`` name its
    columns; ``highlight`` the hue values drawn in colour; ``labels`` the axis texts; ``extra`` what
    a kind needs beyond one table (a second table, a palette, a layout hint)."""

    kind: str
    data: pd.DataFrame = field(default_factory=pd.DataFrame)
    x: str = ""
    y: str | tuple[str, ...] = ""
    hue: str = ""
    panel: str = ""
    highlight: tuple = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    title: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


def message(text: str) -> FigureSpec:
    """A small figure that says why there is nothing to draw (the workflow still expects its files)."""
    return FigureSpec(kind="message", title=text)
