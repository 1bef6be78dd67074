#!/usr/bin/python3
"""Deterministic generator of the real-log fixture: data.txt, policy.txt, log.txt.

Run: /usr/bin/python3 make_fixture.py   (writes next to this script)

The sampler here draws slates slot by slot (or from the explicit slate list);
reference.py re-derives mu from policy.txt by enumeration and shares no code
with this file.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20170605
SLOTS = 3
N_LOG = 3000
rng = np.random.RandomState(SEED)

# ---------------------------------------------------------------- dataset
# qids in file order: 15 comes before 14 on purpose (file order != numeric).
QIDS = ["11", "12", "13", "15", "14", "16", "17", "18", "19"]
NDOCS = [7, 8, 9, 7, 6, 8, 7, 9, 6]
POOL = ["D%d" % k for k in range(1, 26)]
F2_LEVELS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]

queries = []  # list of (qid, [doc dicts in position order])
for qid, nd in zip(QIDS, NDOCS):
    ids = list(rng.choice(POOL, size=nd, replace=False))
    docs = []
    for pos, did in enumerate(ids):
        label = int(rng.choice([0, 0, 1, 1, 2]))
        f = [round(float(rng.uniform(0, 1)), 3) for _ in range(5)]
        # feature 2 on a coarse grid so ties happen inside a query
        f[1] = float(F2_LEVELS[int(rng.randint(0, 9))])
        docs.append({"id": str(did), "pos": pos, "label": label, "f": f})
    queries.append((qid, docs))
qdocs = {q: d for q, d in queries}


def fmt_feat(v):
    return ("%.3f" % v).rstrip("0").rstrip(".") if v != 0 else "0"


with open(os.path.join(HERE, "data.txt"), "w") as out:
    for qid, docs in queries:
        for d in docs:
            feats = " ".join("%d:%s" % (k + 1, fmt_feat(v)) for k, v in enumerate(d["f"]))
            extra = " inc = 1 prob = 0.%d" % (d["pos"] + 1) if d["pos"] % 2 == 0 else ""
            out.write("%d qid:%s %s #docid = %s%s\n" % (d["label"], qid, feats, d["id"], extra))


# ---------------------------------------------------------------- policies
def pick(qid, m):
    """m distinct docs of the query (ids), in a random order."""
    docs = qdocs[qid]
    idx = rng.choice(len(docs), size=m, replace=False)
    return [docs[int(i)]["id"] for i in idx]


def target_top(qid, cands):
    """feature:2 descending, ties by position (fixture design only)."""
    by = {d["id"]: d for d in qdocs[qid]}
    return sorted(cands, key=lambda c: (-by[c]["f"][1], by[c]["pos"]))[:SLOTS]


def distinct_scores(m):
    while True:
        s = [round(float(rng.uniform(-1.5, 2.5)), 2) for _ in range(m)]
        if len(set(s)) == m:
            return s


def tied_scores(m):
    s = distinct_scores(m)
    s[2] = s[0]  # one tie (docs at list positions 0 and 2)
    return s


# each context: name, kind, params, candidates, (scores | slates), frequency weight
contexts = []


def add(name, kind, m=None, freq=1.0, **kw):
    qid = name.split("@", 1)[0]
    c = {"name": name, "qid": qid, "kind": kind, "freq": freq}
    c.update(kw)
    if kind in ("uniform", "pa", "pl"):
        c["cands"] = pick(qid, m)
    if kind == "pl":
        c["scores"] = tied_scores(m) if c.get("tie") else distinct_scores(m)
    contexts.append(c)
    return c


add("11@morning", "uniform", 5, freq=3.0)
add("11@evening", "pa", 6, freq=2.0, alpha=1)
add("11@noon", "pa", 4, freq=0.7, alpha=1, eps=0.2)
add("12@morning", "pl", 5, freq=1.5, tau=0.7)
add("12@evening", "pa", 4, freq=0.5, alpha=1)
add("13@morning", "pa", 7, freq=2.5, alpha=1, eps=0.2)
c13e = add("13@evening", "slates", freq=1.2)
add("13@night", "pl", 4, freq=0.8, tau=2, tie=True)
add("15@morning", "pa", 6, freq=1.8, alpha=2)
add("15@evening", "pl", 5, freq=1.0, tau=1, eps=0.3)
add("16@a", "uniform", 4, freq=0.6)
add("16@b", "pl", 6, freq=2.2, tau=1, eps=0.3)
c16n = add("16@night", "uniform", 4, freq=0.0)  # listed but never logged
add("17", "pa", 6, freq=1.4, alpha=2)
c18m = add("18@morning", "slates", freq=1.6)
add("18@evening", "pl", 7, freq=2.0, tau=0.7)
add("18@noon", "pl", 5, freq=0.9, tau=2, tie=True)

# 16@night gets one doc that no logged context of 16 lists
used16 = set()
for c in contexts:
    if c["qid"] == "16" and c["freq"] > 0:
        used16.update(c["cands"])
spare = [d["id"] for d in qdocs["16"] if d["id"] not in used16]
assert spare, "need a doc of 16 unused by logged contexts"
c16n["cands"] = c16n["cands"][:3] + [spare[0]]
assert len(set(c16n["cands"])) == 4

# explicit slate distributions
ids13 = [d["id"] for d in qdocs["13"]]
a = [ids13[k] for k in (4, 1, 6, 2, 7)]
c13e["slates"] = [([a[0], a[1], a[2]], 0.4), ([a[1], a[0], a[3]], 0.3),
                  ([a[2], a[3], a[4]], 0.2), ([a[0], a[2], a[4]], 0.1)]
ids18 = [d["id"] for d in qdocs["18"]]
b = [ids18[k] for k in (3, 0, 5, 8)]
c18m["slates"] = [([b[1], b[0], b[2]], 0.5), (None, 0.3), ([b[2], b[3], b[0]], 0.2)]
# make the target slate of 18@morning loggable (the 0.3 slate), so IPS sees it
cands18 = []
for s, _ in c18m["slates"]:
    for d in s or []:
        if d not in cands18:
            cands18.append(d)
c18m["slates"][1] = (target_top("18", cands18), 0.3)
for c in (c13e, c18m):
    seen = []
    for s, _ in c["slates"]:
        for d in s:
            if d not in seen:
                seen.append(d)
    c["cands"] = seen
assert target_top("18", c18m["cands"]) == c18m["slates"][1][0]
assert target_top("13", c13e["cands"]) not in [s for s, _ in c13e["slates"]]


def fmt_num(v):
    return repr(float(v)) if float(v) != int(v) else str(int(v))


def spec_text(c):
    k = c["kind"]
    if k == "uniform":
        spec, cl = "uniform", ",".join(c["cands"])
    elif k == "pa":
        spec, cl = "pa:%s" % fmt_num(c["alpha"]), ",".join(c["cands"])
    elif k == "pl":
        spec = "pl:%s" % fmt_num(c["tau"])
        cl = ",".join("%s:%s" % (d, fmt_num(s)) for d, s in zip(c["cands"], c["scores"]))
    else:
        spec = "slates"
        cl = ",".join("%s=%s" % (" ".join(s), fmt_num(p)) for s, p in c["slates"])
    if c.get("eps"):
        spec = "eps:%s,%s" % (fmt_num(c["eps"]), spec)
    return spec, cl


with open(os.path.join(HERE, "policy.txt"), "w") as out:
    out.write("# piopt-policy v1 slots=%d\n" % SLOTS)
    for c in contexts:
        spec, cl = spec_text(c)
        out.write("%s\t%s\t%s\n" % (c["name"], spec, cl))


# ---------------------------------------------------------------- sampler
def seq_draw(cands, weights):
    """slot by slot without replacement, probability proportional to weights."""
    cands, w = list(cands), np.array(weights, dtype=float)
    out = []
    for _ in range(SLOTS):
        k = int(rng.choice(len(cands), p=w / w.sum()))
        out.append(cands.pop(k))
        w = np.delete(w, k)
    return out


def sample(c):
    cands = c["cands"]
    if c.get("eps") and rng.uniform() < c["eps"]:
        return [cands[int(i)] for i in rng.permutation(len(cands))[:SLOTS]]
    k = c["kind"]
    if k == "uniform":
        return [cands[int(i)] for i in rng.permutation(len(cands))[:SLOTS]]
    if k == "pa":
        w = [2.0 ** (-c["alpha"] * int(np.floor(np.log2(r)))) for r in range(1, len(cands) + 1)]
        return seq_draw(cands, w)
    if k == "pl":
        return seq_draw(cands, [np.exp(s / c["tau"]) for s in c["scores"]])
    p = np.array([q for _, q in c["slates"]])
    return list(c["slates"][int(rng.choice(len(p), p=p / p.sum()))][0])


SLOT_C = [1.0, 0.6, 0.3]
freq = np.array([c["freq"] for c in contexts])
with open(os.path.join(HERE, "log.txt"), "w") as out:
    out.write("# piopt-log v1 slots=%d policy=policy.txt\n" % SLOTS)
    for _ in range(N_LOG):
        c = contexts[int(rng.choice(len(contexts), p=freq / freq.sum()))]
        s = sample(c)
        by = {d["id"]: d for d in qdocs[c["qid"]]}
        r = sum(SLOT_C[j] * (by[d]["label"] + 0.5 * by[d]["f"][0]) for j, d in enumerate(s))
        r += float(rng.normal(0, 0.1))
        out.write("%s\t%s\t%s\n" % (c["name"], ",".join(s), repr(round(r, 6))))
