"""V-MDAV — variable-size MDAV (Solanas & Martínez-Ballesté 2006), as the seeds describe it.

Sources: 002_81f9d5b914b1df78.txt §3 (the V-MDAV paragraph: e_min, d_in,
d_out, γ, extension up to 2k−1) and 004_d1273daa16c98592.txt §IV (V-MDAV);
Chettri's Tables 1–3 (002_81f9d5b914b1df78.txt §5) print a V-MDAV row.
Pseudocode, choices and evidence: docs/algorithms/ps_cvmdav.md.

Each iteration: e = the remaining record farthest from the centroid; e and its
k−1 nearest remaining records form a group G; then, while |G| < 2k−1,
e_min = the remaining record nearest to any member of G (distance d_in) and
d_out = the distance from e_min to its nearest other remaining record; if
d_in < γ·d_out, e_min joins G, else the extension stops. Afterwards k or more
remaining records form one group; fewer join the group with the nearest
centroid (centroids frozen before they are added).

Choices (parameters; defaults reproduce Chettri's V-MDAV row):

* ``gamma`` (default 0.2): the user constant γ; the seeds do not say which γ
  the printed row used. γ = 0.2 reproduces Tarragona and Census, γ = 1.1 EIA.
* ``centroid=fixed`` (default): the centroid of the whole data set, computed
  once; ``centroid=remaining``: recomputed on the remaining records.
* ``loop=2k`` (default): iterate while at least 2k records remain; ``loop=k``:
  while at least k remain.
* Distances are Euclidean, not squared (γ multiplies a distance). If e_min is
  the only remaining record, d_out is infinite and it joins. Ties go to the
  lowest record id.

Group sizes: extension stops at 2k−1, but up to k−1 leftovers can join one
group, so the method guarantees k ≤ |G| ≤ 3k−2 (declared below), not 2k−1.
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, Param


@njit(cache=True)
def _min_into(mind, dist, m):
    for i in range(m):
        if dist[i] < mind[i]:
            mind[i] = dist[i]


@njit(cache=True)
def vmdav_labels(Z, k, gamma, fixed_centroid, loop_2k):
    n, d = Z.shape
    W, ids, alive = K.work_buffer(Z)
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    S = K.scratch(n, d, k)
    m = K.compact(W, ids, alive, n, S.sums)
    c_fixed = S.sums / n
    c_now = S.centroid
    mind = np.empty(n)
    members = np.empty(k, dtype=np.int64)
    left = n
    g = np.int64(0)
    stop = 2 * k if loop_2k else k
    d_fixed = np.empty(n)  # distances to the fixed centroid, by record id, computed once
    if fixed_centroid:
        K.distances_from(W, alive, m, c_fixed, S)
        for i in range(m):
            d_fixed[ids[i]] = S.dist[i]
    while left >= stop:
        m = K.centroid(W, ids, alive, m, left, S.sums, c_now)
        if fixed_centroid:
            e = K.max_far_slot(d_fixed, alive, ids, m)
        else:
            e = K.distances_from(W, alive, m, c_now, S)
        size = K.group_around(W, ids, alive, m, e, k, labels, g, S)  # leaves e's distances in S.dist
        left -= size
        members[0] = e
        for t in range(size - 1):
            members[t + 1] = S.top_i[t]
        for i in range(m):
            mind[i] = S.dist[i]
        for t in range(1, size):
            K.load_point(W, members[t], S.point)
            K.distances_from(W, alive, m, S.point, S)
            _min_into(mind, S.dist, m)
        while size < 2 * k - 1 and left > 0:
            e_min = K.argmin_alive(mind, alive, m)
            d_in = np.sqrt(mind[e_min])
            K.load_point(W, e_min, S.point)
            K.distances_from(W, alive, m, S.point, S)
            d_out = np.inf
            for i in range(m):
                if alive[i] and i != e_min and S.dist[i] < d_out:
                    d_out = S.dist[i]
            if not d_in < gamma * np.sqrt(d_out):
                break
            alive[e_min] = False
            labels[ids[e_min]] = g
            K.forget(W, e_min, S.sums)
            size += 1
            left -= 1
            _min_into(mind, S.dist, m)
        g += 1
    K.close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels


def run(Z, k, params, rng):
    return vmdav_labels(Z, k, float(params["gamma"]), params["centroid"] == "fixed", params["loop"] == "2k")


ALGORITHM = Algorithm(
    name="vmdav",
    time="O(n²·d) (a pass per extension step, up to k−1 per group)",
    title="V-MDAV (variable-size MDAV; Solanas & Martínez-Ballesté 2006)",
    citation="002_81f9d5b914b1df78.txt §3 (V-MDAV) and §5 Tables 1–3; 004_d1273daa16c98592.txt §IV; "
    "docs/algorithms/ps_cvmdav.md",
    run=run,
    max_group_size=lambda k, params: max(3 * k - 2, 1),
    params={
        "gamma": Param(0.2, "extension gain: e_min joins if d_in < gamma * d_out (Chettri's row: 0.2 on "
                       "Tarragona and Census, 1.1 on EIA)", min=0.0),
        "centroid": Param("fixed", "seed = farthest from the centroid of the whole data set (fixed, computed "
                          "once) or of the remaining records (remaining)", ("fixed", "remaining")),
        "loop": Param("2k", "iterate while >= 2k (2k) or >= k (k) records remain", ("2k", "k")),
    },
    deterministic=True,
    notes="Euclidean (not squared) distances; ties -> lowest id; group sizes k..3k-2 (leftovers can join "
    "an extended group)",
)
