"""Plain-Python aggregation measures, written from R's definitions as sdcMicro uses them
(R/microaggregation.R, function ``means``; R's ``median``, ``mean(x, trim=)`` and ``mad``)."""

from __future__ import annotations

import math


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def trimmed_mean(xs, trim):
    """R: if trim >= 0.5 the median; else drop floor(n*trim) values at each end of the sorted data."""
    if trim >= 0.5:
        return median(xs)
    s = sorted(xs)
    lo = math.floor(len(s) * trim)
    kept = s[lo:len(s) - lo]
    return math.fsum(kept) / len(kept)


def onestep(xs):
    """sdcMicro: clip to median +- (3/1.486) * mad, mad = 1.4826 * median(|x - median|); then the mean."""
    m = median(xs)
    limit = (3 / 1.486) * 1.4826 * median([abs(x - m) for x in xs])
    return math.fsum(min(max(x, m - limit), m + limit) for x in xs) / len(xs)


def weighted_mean(xs, ws):
    return math.fsum(w * x for x, w in zip(xs, ws)) / math.fsum(ws)


def weighted_median(xs, ws):
    """sdcMicro's weightedQuantile at p = 1/2: first sorted value whose cumulative weight share reaches
    1/2; the mean of it and the next one when the share is exactly 1/2 (sums exact, then rounded)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])  # stable, like R's order()
    x = [xs[i] for i in order]
    w = [ws[i] for i in order]
    total = math.fsum(w)  # correctly rounded sums, as R's long-double cumsum()/sum() give them
    for i in range(len(x)):
        share = math.fsum(w[:i + 1]) / total
        if share >= 0.5:
            if share == 0.5 and i + 1 < len(x):
                return (x[i] + x[i + 1]) / 2
            return x[i]
    return x[-1]


def published(values, labels, measure="mean", trim=0.0, weights=None):
    """(n_groups, d) list of lists: each group's value per column."""
    groups = sorted(set(labels))
    out = []
    for g in groups:
        rows = [i for i, lab in enumerate(labels) if lab == g]
        row_out = []
        for j in range(len(values[0])):
            xs = [values[i][j] for i in rows]
            ws = None if weights is None else [weights[i] for i in rows]
            if measure == "mean":
                row_out.append(math.fsum(xs) / len(xs) if ws is None else weighted_mean(xs, ws))
            elif measure == "median":
                row_out.append(median(xs) if ws is None else weighted_median(xs, ws))
            elif measure == "trim":
                row_out.append(trimmed_mean(xs, trim))
            else:
                row_out.append(onestep(xs))
        out.append(row_out)
    return out
