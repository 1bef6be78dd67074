#!/usr/bin/env python3
"""Independent reference for pi-cv, dr and wdr (issue 13).

Writes setup.json (queries, target slates, reward model), log.tsv (a log
drawn from p_1 logging) and expected.json (PI, wPI, pi-cv, dr, wdr and two
empirical-Bernstein intervals), computed here with numpy only: Γ by
enumerating every slate, Γ† by numpy.linalg.pinv, the coefficients with
centred moments. TestDRCheckAgainstNumpy recomputes them with piopt's code.

Run from this folder: python3 gen.py
"""
import itertools
import json
import math

import numpy as np

SLOTS = 3
ALPHA = 1.0  # logging pa:1: weight of candidate a is 2^(-α⌊log2(a+1)⌋)
SIZES = [4, 5, 3, 2, 5]  # the query of 2 candidates has ℓ_x = 2
N = 3000
FOLDS = 3
DELTA = 0.1
rng = np.random.default_rng(20250613)


def slates(m, l):
    """Every slate of l distinct candidates of m with its p_α probability
    (slot by slot, without replacement)."""
    w = [2.0 ** (-ALPHA * math.floor(math.log2(a + 1))) for a in range(m)]
    out = []
    for s in itertools.permutations(range(m), l):
        p, left = 1.0, set(range(m))
        for a in s:
            p *= w[a] / sum(w[b] for b in left)
            left.remove(a)
        out.append((s, p))
    return out


def indicator(s, m, l):
    v = np.zeros(l * m)
    for j, a in enumerate(s):
        v[j * m + a] = 1.0
    return v


queries = []
for m in SIZES:
    l = min(SLOTS, m)
    sl = slates(m, l)
    gamma = sum(p * np.outer(indicator(s, m, l), indicator(s, m, l)) for s, p in sl)
    pinv = np.linalg.pinv(gamma, rcond=1e-10, hermitian=True)
    target = [int(a) for a in rng.permutation(m)[:l]]
    phi = rng.normal(0.1, 0.1, l * m)
    g = pinv @ indicator(target, m, l)
    queries.append(dict(m=m, l=l, slates=sl, g=g, target=target, phi=phi))

# The log: context uniform, slate from p_1, reward arbitrary in [0, 1]
# (a noisy additive value, clipped; the estimators' algebra needs nothing).
log = []
for _ in range(N):
    q = int(rng.integers(len(queries)))
    Q = queries[q]
    k = rng.choice(len(Q["slates"]), p=np.array([p for _, p in Q["slates"]]))
    s = Q["slates"][k][0]
    r = float(np.clip(indicator(s, Q["m"], Q["l"]) @ Q["phi"] + rng.normal(0, 0.2), 0, 1))
    log.append((q, s, r))

G = np.array([indicator(s, queries[q]["m"], queries[q]["l"]) @ queries[q]["g"] for q, s, _ in log])
r = np.array([x[2] for x in log])
b = np.array([indicator(queries[q]["target"], queries[q]["m"], queries[q]["l"]) @ queries[q]["phi"] for q, _, _ in log])
c = np.array([indicator(s, queries[q]["m"], queries[q]["l"]) @ queries[q]["phi"] for q, s, _ in log])


def beta(x, y):
    """Cov(x, y)/Var(y) with centred moments."""
    return float(np.sum((x - x.mean()) * (y - y.mean())) / np.sum((y - y.mean()) ** 2))


fold = np.arange(N) % FOLDS
betas = [beta((G * r)[fold != k], G[fold != k]) for k in range(FOLDS)]
bi = np.array(betas)[fold]
z_cv = G * r - bi * (G - 1)
z_dr = b + G * (r - c)

# Ranges for the intervals, by brute force over every query and slate.
wlo = min(float(Q["g"] @ indicator(s, Q["m"], Q["l"])) for Q in queries for s, _ in Q["slates"])
whi = max(float(Q["g"] @ indicator(s, Q["m"], Q["l"])) for Q in queries for s, _ in Q["slates"])
mlo = min(float(Q["phi"] @ indicator(s, Q["m"], Q["l"])) for Q in queries for s, _ in Q["slates"])
mhi = max(float(Q["phi"] @ indicator(s, Q["m"], Q["l"])) for Q in queries for s, _ in Q["slates"])


def prange(a, b_, c_, d):
    p = [a * c_, a * d, b_ * c_, b_ * d]
    return min(p), max(p)


def eb(z, length):
    """Maurer–Pontil two-sided interval at δ, clipped to [0, 1]."""
    n, L = len(z), math.log(4 / DELTA)
    h = math.sqrt(2 * np.var(z, ddof=1) * L / n) + 7 * length * L / (3 * (n - 1))
    return [max(z.mean() - h, 0.0), min(z.mean() + h, 1.0)]


zlo, zhi = math.inf, -math.inf
for k in range(FOLDS):
    lo, hi = prange(0 - betas[k], 1 - betas[k], wlo, whi)
    zlo, zhi = min(zlo, lo + betas[k]), max(zhi, hi + betas[k])
glo, ghi = prange(0 - mhi, 1 - mlo, wlo, whi)

expected = {
    "pi": float(np.mean(G * r)),
    "wpi": float(np.sum(G * r) / np.sum(G)),
    "beta": beta(G * r, G),
    "fold_betas": betas,
    "pi_cv": float(np.mean(z_cv)),
    "pi_cv_eb": eb(z_cv, zhi - zlo),
    "dr": float(np.mean(z_dr)),
    "dr_eb": eb(z_dr, (mhi + ghi) - (mlo + glo)),
    "wdr": float(np.mean(b) + np.sum(G * (r - c)) / np.sum(G)),
    "weight_range": [wlo, whi],
    "model_range": [mlo, mhi],
}

with open("setup.json", "w") as f:
    json.dump({"slots": SLOTS, "logging": "pa:1", "folds": FOLDS, "delta": DELTA,
               "queries": [{"m": Q["m"], "target": Q["target"], "phi": [float(x) for x in Q["phi"]]} for Q in queries]},
              f, indent=1)
with open("log.tsv", "w") as f:
    for q, s, rr in log:
        f.write("%d\t%s\t%r\n" % (q, ",".join(str(a) for a in s), rr))
with open("expected.json", "w") as f:
    json.dump(expected, f, indent=1)
print(json.dumps(expected, indent=1))
