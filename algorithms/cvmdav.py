"""CV-MDAV — centroid-based variable-size MDAV (Chettri, Paul & Dutta).

Source: 002_81f9d5b914b1df78.txt §4 (the listing "Algorithm: CV-MDAV", steps
1–7, and the prose after it), γ = 1.1 (§4, §5). Pseudocode, every defect of the
listing and the evidence: docs/algorithms/ps_cvmdav.md.

While at least 3k records remain: x_r = the remaining record farthest from
the centroid of the remaining records; y_1..y_2k = its 2k nearest remaining
records; x_r, y_1..y_{k−1} form the cluster C (all removed). Then each
candidate y_j, j = k, k+1, … is tested: d_2 = distance of y_j to the centroid
of C, Z = k nearest neighbours of y_j, d_3 = distance of y_j to the centroid of
Z; if d_2 < γ·d_3, y_j joins C (centroid recomputed). After the loop, with
2k or more records left, one group of k is formed around the record farthest
from their centroid; the rest is one group.

The listing is defective (no increment of j, x_r never removed, d_1 unused,
contradicting size caps); every ambiguity is a parameter. Defaults:

* ``zself=include`` (y_j is its own first neighbour in Z) | ``exclude``;
* ``zpool=remaining`` (Z among the unassigned records) | ``all`` (all records);
* ``reject=continue`` (prose: test the remaining candidates) | ``stop`` (as V-MDAV);
* ``last=2k-1`` (listing: j < 2k, candidates y_k..y_{2k−1}) | ``2k`` (y_k..y_{2k});
* ``cap=2k-1`` (prose: at most 2k−1 records) | ``2k`` (listing: |c_i| < 2k);
* ``tail=ge`` (prose: 2k..3k−1 left -> k-group + rest) | ``gt`` (listing: n > 2k);
* ``gamma`` = 1.1.

No single reading reproduces more than one published cell (Tarragona k=3);
the workflow runs a grid of readings and the regenerated tables report the
best reading per cell and over all cells. Distances are Euclidean (γ scales a
distance); ties go to the lowest record id.
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, Param


@njit(cache=True)
def _d(W, slot, c):
    s = 0.0
    for j in range(W.shape[0]):
        t = W[j, slot] - c[j]
        s += t * t
    return np.sqrt(s)


@njit(cache=True)
def cvmdav_labels(Z, k, gamma, zself, zall, stop_on_reject, last_2k, cap_2k, tail_ge):
    n, d = Z.shape
    W, ids, alive = K.work_buffer(Z)
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    S = K.scratch(n, d, 2 * k)
    m = K.compact(W, ids, alive, n, S.sums)
    c_now = S.centroid
    cand = np.empty(2 * k, dtype=np.int64)
    zd = np.empty(k)
    zi = np.empty(k, dtype=np.int64)
    full_d = np.empty(n)
    all_alive = np.ones(n, dtype=np.bool_)
    gsum = np.zeros(d)
    c = np.empty(d)
    zc = np.empty(d)
    cap = 2 * k if cap_2k else 2 * k - 1
    jlast = 2 * k if last_2k else 2 * k - 1
    left = n
    g = np.int64(0)
    while left >= 3 * k:
        m = K.centroid(W, ids, alive, m, left, S.sums, c_now)
        r = K.distances_from(W, alive, m, c_now, S)
        K.load_point(W, r, S.point)
        K.distances_from(W, alive, m, S.point, S)
        ny = K.nearest_slots(S.dist, alive, m, r, 2 * k, S.top_d, S.top_i)
        for t in range(ny):
            cand[t] = S.top_i[t]
        gsum[:] = 0.0
        K.add_member(W, ids, alive, r, labels, g, S.sums, gsum)
        for t in range(k - 1):
            K.add_member(W, ids, alive, cand[t], labels, g, S.sums, gsum)
        size = k
        left -= k
        for j in range(k, min(jlast, ny) + 1):  # candidate y_j (1-based), j = k .. last
            if size >= cap:
                break
            y = cand[j - 1]
            for t in range(d):
                c[t] = gsum[t] / size
            d2 = _d(W, y, c)
            # Z: the k nearest neighbours of y_j
            zc[:] = 0.0
            want = k - 1 if zself else k
            if zself:
                for t in range(d):
                    zc[t] += W[t, y]
            if zall:
                K.sqdist_rows(Z, ids[y], full_d)
                got = K.nearest_slots(full_d, all_alive, n, ids[y], want, zd, zi)
                for t in range(got):
                    for u in range(d):
                        zc[u] += Z[zi[t], u]
            else:
                K.load_point(W, y, S.point)
                K.distances_from(W, alive, m, S.point, S)
                got = K.nearest_slots(S.dist, alive, m, y, want, zd, zi)
                for t in range(got):
                    for u in range(d):
                        zc[u] += W[u, zi[t]]
            cnt = got + (1 if zself else 0)
            for t in range(d):
                zc[t] /= cnt
            d3 = _d(W, y, zc)
            if d2 < gamma * d3:
                K.add_member(W, ids, alive, y, labels, g, S.sums, gsum)
                size += 1
                left -= 1
            elif stop_on_reject:
                break
        g += 1
    if left >= 2 * k if tail_ge else left > 2 * k:
        m = K.centroid(W, ids, alive, m, left, S.sums, c_now)
        taken, _ = K.farthest_group(W, ids, alive, m, c_now, k, labels, g, S)
        left -= taken
        g += 1
    if left > 0:
        K.label_rest(alive, ids, m, labels, g)
    return labels


def run(Z, k, params, rng):
    return cvmdav_labels(Z, k, float(params["gamma"]), params["zself"] == "include", params["zpool"] == "all",
                         params["reject"] == "stop", params["last"] == "2k", params["cap"] == "2k",
                         params["tail"] == "ge")


def _bound(k, params):
    cap = 2 * k if params["cap"] == "2k" else 2 * k - 1
    tail = 2 * k - 1 if params["tail"] == "ge" else 2 * k
    return max(cap, tail, 1)


ALGORITHM = Algorithm(
    name="cvmdav",
    time="O(n²·d) (2k nearest and k nearest per candidate, each a pass)",
    title="CV-MDAV (centroid-based variable-size MDAV; Chettri, Paul & Dutta)",
    citation="002_81f9d5b914b1df78.txt §4 (Algorithm CV-MDAV and its prose), §5 Tables 1–4; "
    "docs/algorithms/ps_cvmdav.md",
    run=run,
    max_group_size=_bound,
    params={
        "gamma": Param(1.1, "gain factor: y_j joins if d2 < gamma * d3 (the paper fixes 1.1)", min=0.0),
        "zself": Param("include", "is y_j its own first neighbour in Z (include) or not (exclude)",
                       ("include", "exclude")),
        "zpool": Param("remaining", "Z among the unassigned records (remaining) or all records (all)",
                       ("remaining", "all")),
        "reject": Param("continue", "after a rejected candidate: test the next (continue) or stop (stop)",
                        ("continue", "stop")),
        "last": Param("2k-1", "last candidate tested: y_{2k-1} (listing, j < 2k) or y_{2k}", ("2k-1", "2k")),
        "cap": Param("2k-1", "largest cluster the extension may reach: 2k-1 (prose) or 2k (listing)",
                     ("2k-1", "2k")),
        "tail": Param("ge", "after the loop, a k-group is formed if >= 2k (ge, prose) or > 2k (gt, listing) "
                      "records remain", ("ge", "gt")),
    },
    deterministic=True,
    notes="Euclidean (not squared) distances; ties -> lowest id; the listing's defects are parameters",
)
