#!/usr/bin/python3
"""Fixture and independent reference for targets given as data.

Writes, next to this script, a small world no piopt code touched:
  data.txt     LETOR, 4 queries (qids 101..104), docs named `#docid = D<k>`
  policy.txt   logging policies per context (Plackett-Luce with m = 8,
               eps-mixtures, explicit slates, pa, uniform; several per qid)
  log.txt      400 impressions sampled from policy.txt (seeded)
  tpolicy.txt  a target policy file: pl, rank, slates, eps:,pa, uniform, a
               QID line serving QID@TAG contexts, documents the logger never
               shows (X*), a qid the data does not have
  scores.txt   target scores (ties, extra documents, an unknown qid)
  run.txt      a TREC run (ties on rank, unseen documents)
  log.jsonl    the JSON-lines twin of log.txt: each row carries its
               context's policy of policy.txt
  tlog.jsonl   log.jsonl with each row's target of tpolicy.txt (the
               context's line, else its qid's) in the row
and expected.json: PI, wPI, IPS and wIPS of each target, computed here by
enumerating every ordered slate of every context with numpy (Gamma and its
pseudoinverse with an eigenvalue cut-off of 1e-10 x the largest).

Run: /usr/bin/python3 targets.py  (byte-identical reruns)
"""
import itertools
import json
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ELL = 3
CUTOFF = 1e-10
rng = np.random.default_rng(20240528)

# ------------------------------------------------------------------ world
QDOCS = {"101": 10, "102": 6, "103": 7, "104": 9}  # documents per query
LOGGING = [  # context, spec, candidates (doc numbers; scores for pl)
    ("101@a", "pl:0.8", [1, 2, 3, 4, 5, 6, 7, 8]),
    ("101@b", "eps:0.3,pl:1.5", [2, 3, 4, 5, 6, 7, 8, 9]),
    ("102", "slates", [((1, 2, 3), 0.4), ((4, 1, 2), 0.3), ((5, 6, 1), 0.2), ((2, 3, 4), 0.1)]),
    ("103@x", "eps:0.2,pa:1", [3, 1, 2, 5, 4, 6]),
    ("103@y", "uniform", [1, 2, 3, 4, 7]),
    ("104", "pl:0.5", [1, 2, 3, 4, 5, 6, 7, 8]),
    ("104@t", "eps:0.1,pl:2", [9, 8, 7, 6, 5, 4, 3, 2]),
]
TARGET_POLICY = [  # context, spec, candidates (names)
    ("101", "pl:1", ["D1", "D2", "D3", "X1", "D5", "D6", "D7", "D8"]),
    ("101@b", "rank", ["D3", "X2", "D2"]),
    ("102", "slates", [(("D1", "D2", "D3"), 0.6), (("D4", "D1", "D2"), 0.25), (("X3", "D6", "D1"), 0.15)]),
    ("103", "eps:0.25,pa:2", ["D5", "D1", "D2", "D3", "X4", "D4"]),
    ("103@y", "uniform", ["D7", "D1", "D2", "D3"]),
    ("104", "pl:0.7", ["D8", "D7", "D6", "D5", "D4", "D3", "D2", "D1"]),
    ("104@t", "rank", ["D8", "D7", "D6"]),
    ("999", "uniform", ["A", "B", "C"]),
]


def fmt(x):
    return repr(float(x))


def slates_of(n):
    return list(itertools.permutations(range(n), ELL))


def seq_prob(w, s):
    p, left = 1.0, list(range(len(w)))
    for a in s:
        p *= w[a] / sum(w[b] for b in left)
        left.remove(a)
    return p


def dist(spec, n, scores=None, listed=None):
    """{slate: prob} over every ordered slate of n candidates."""
    eps = 0.0
    if spec.startswith("eps:"):
        e, spec = spec[4:].split(",", 1)
        eps = float(e)
    if spec == "slates":
        d = {s: 0.0 for s in slates_of(n)}
        for s, p in listed:
            d[s] += p
    elif spec == "rank":
        d = {s: 0.0 for s in slates_of(n)}
        d[tuple(range(ELL))] = 1.0
    else:
        if spec == "uniform":
            w = [1.0] * n
        elif spec.startswith("pa:"):
            a = float(spec[3:])
            w = [2.0 ** (-a * math.floor(math.log2(r))) for r in range(1, n + 1)]
        elif spec.startswith("pl:"):
            tau = float(spec[3:])
            w = [math.exp(v / tau) for v in scores]
        d = {s: seq_prob(w, s) for s in slates_of(n)}
    if eps:
        u = 1.0 / len(d)
        d = {s: (1 - eps) * p + eps * u for s, p in d.items()}
    return d


def row_policy(spec, text):
    """The JSON-lines policy object of a policy-file line."""
    base = spec.split(",", 1)[1] if spec.startswith("eps:") else spec
    if base == "slates":
        pairs = [(t.rsplit("=", 1)[0].split(" "), float(t.rsplit("=", 1)[1])) for t in text.split(",")]
        cands = []
        for s, _ in pairs:
            cands += [d for d in s if d not in cands]
        return {"spec": spec, "candidates": cands, "slates": [s for s, _ in pairs], "probs": [p for _, p in pairs]}
    if base.startswith("pl:"):
        items = [t.rsplit(":", 1) for t in text.split(",")]
        return {"spec": spec, "candidates": [d for d, _ in items], "scores": [float(v) for _, v in items]}
    return {"spec": spec, "candidates": text.split(",")}


def write_jsonl():
    """The JSON-lines twins of log.txt (policy per row, and target per row)."""
    pol = {r[0]: row_policy(r[1], r[2]) for r in read_tsv("policy.txt")}
    tpol = {r[0]: row_policy(r[1], r[2]) for r in read_tsv("tpolicy.txt")}
    plain, targeted = [], []
    for ctx, slate, reward in read_tsv("log.txt"):
        row = {"context": ctx, "slate": slate.split(","), "reward": float(reward), "policy": pol[ctx]}
        plain.append(json.dumps(row))
        row["target"] = lookup(tpol, ctx)
        targeted.append(json.dumps(row))
    open(os.path.join(HERE, "log.jsonl"), "w").write("\n".join(plain) + "\n")
    open(os.path.join(HERE, "tlog.jsonl"), "w").write("\n".join(targeted) + "\n")


def write_files():
    data = []
    for q, n in QDOCS.items():
        for k in range(1, n + 1):
            f = rng.uniform(0, 1, 2)
            data.append("%d qid:%s 1:%.3f 2:%.3f #docid = D%d" % (rng.integers(0, 3), q, f[0], f[1], k))
    open(os.path.join(HERE, "data.txt"), "w").write("\n".join(data) + "\n")
    ctxs, lines = {}, ["# piopt-policy v1 slots=%d" % ELL]
    for name, spec, c in LOGGING:
        if spec == "slates":
            cands = []
            for s, _ in c:
                cands += [d for d in s if d not in cands]
            listed = [(tuple(cands.index(d) for d in s), p) for s, p in c]
            text = ",".join(" ".join("D%d" % d for d in s) + "=" + fmt(p) for s, p in c)
            mu = dist(spec, len(cands), listed=listed)
        elif "pl:" in spec:
            cands = c
            scores = [round(float(v), 3) for v in rng.normal(0, 1, len(c))]
            text = ",".join("D%d:%s" % (d, fmt(v)) for d, v in zip(c, scores))
            mu = dist(spec, len(c), scores=scores)
        else:
            cands = c
            text = ",".join("D%d" % d for d in c)
            mu = dist(spec, len(c))
        lines.append("%s\t%s\t%s" % (name, spec, text))
        ctxs[name] = (["D%d" % d for d in cands], mu)
    open(os.path.join(HERE, "policy.txt"), "w").write("\n".join(lines) + "\n")
    log = ["# piopt-log v1 slots=%d policy=policy.txt" % ELL]
    names = list(ctxs)
    for _ in range(400):
        name = names[rng.integers(0, len(names))]
        cands, mu = ctxs[name]
        keys = list(mu)
        p = np.array([mu[k] for k in keys])
        s = keys[rng.choice(len(keys), p=p / p.sum())]
        r = round(float(rng.uniform(0, 1)), 4)
        log.append("%s\t%s\t%s" % (name, ",".join(cands[a] for a in s), fmt(r)))
    open(os.path.join(HERE, "log.txt"), "w").write("\n".join(log) + "\n")
    tp = ["# piopt-policy v1 slots=%d" % ELL]
    for name, spec, c in TARGET_POLICY:
        if spec == "slates":
            text = ",".join(" ".join(s) + "=" + fmt(p) for s, p in c)
        elif "pl:" in spec:
            text = ",".join("%s:%s" % (d, fmt(round(float(v), 3))) for d, v in zip(c, rng.normal(0, 1, len(c))))
        else:
            text = ",".join(c)
        tp.append("%s\t%s\t%s" % (name, spec, text))
    open(os.path.join(HERE, "tpolicy.txt"), "w").write("\n".join(tp) + "\n")
    sc = []
    for q, n in QDOCS.items():
        for k in list(range(1, n + 1)) + [77]:
            v = float(rng.integers(0, 4)) / 2  # ties on purpose
            sc.append("%s\tD%d\t%s" % (q, k, fmt(v)))
    sc.append("103@y\tD7\t9.5")
    sc += ["103@y\tD%d\t%s" % (k, fmt(float(rng.integers(0, 4)))) for k in (1, 2, 3, 4)]
    sc.append("555\tD1\t1.0")
    open(os.path.join(HERE, "scores.txt"), "w").write("\n".join(sc) + "\n")
    run = []
    for q, n in QDOCS.items():
        docs = ["D%d" % k for k in range(1, n + 1)] + ["X%s" % q]
        order = rng.permutation(len(docs))
        for r, i in enumerate(order[:6], 1):
            rank = r if r != 3 else 2  # a tie on rank 2
            run.append("%s Q0 %s %d %s tag" % (q, docs[i], rank, fmt(round(10 - r + 0.5 * (r == 3), 2))))
    open(os.path.join(HERE, "run.txt"), "w").write("\n".join(run) + "\n")


# ------------------------------------------------------------------ reference
def read_tsv(name):
    rows = []
    for line in open(os.path.join(HERE, name)).read().splitlines()[1:]:
        if line.strip() and not line.startswith("#"):
            rows.append(line.split("\t"))
    return rows


def parse_policy_line(spec, text):
    """(candidate names, {slate: prob}) of one policy-file line."""
    base = spec.split(",", 1)[1] if spec.startswith("eps:") else spec
    if base == "slates":
        pairs = [(t.rsplit("=", 1)[0].split(" "), float(t.rsplit("=", 1)[1])) for t in text.split(",")]
        cands = []
        for s, _ in pairs:
            cands += [d for d in s if d not in cands]
        listed = [(tuple(cands.index(d) for d in s), p) for s, p in pairs]
        return cands, dist(spec, len(cands), listed=listed)
    if base.startswith("pl:"):
        items = [t.rsplit(":", 1) for t in text.split(",")]
        return [d for d, _ in items], dist(spec, len(items), scores=[float(v) for _, v in items])
    cands = text.split(",")
    return cands, dist(spec, len(cands))


def lookup(table, ctx):
    return table.get(ctx, table.get(ctx.split("@")[0]))


def main():
    write_files()
    write_jsonl()
    logging = {r[0]: parse_policy_line(r[1], r[2]) for r in read_tsv("policy.txt")}
    gam = {}
    for name, (cands, mu) in logging.items():
        m = len(cands)
        G = np.zeros((ELL * m, ELL * m))
        for s, p in mu.items():
            v = np.zeros(ELL * m)
            for j, a in enumerate(s):
                v[j * m + a] = 1
            G += p * np.outer(v, v)
        lam, V = np.linalg.eigh(G)
        keep = lam > CUTOFF * lam.max()
        gam[name] = (V[:, keep] / lam[keep]) @ V[:, keep].T
    tpol = {r[0]: parse_policy_line(r[1], r[2]) for r in read_tsv("tpolicy.txt")}
    scores = {}
    for line in open(os.path.join(HERE, "scores.txt")).read().splitlines():
        c, d, v = line.split("\t")
        scores.setdefault(c, {})[d] = float(v)
    runs = {}
    for line in open(os.path.join(HERE, "run.txt")).read().splitlines():
        q, _, d, r, v, _ = line.split()
        runs.setdefault(q, []).append((int(r), -float(v), d))

    def target_policy(ctx):
        """({(slot, doc name): q}, pi(slate of names))"""
        cands, d = lookup(tpol, ctx)
        q = {}
        for s, p in d.items():
            for j, a in enumerate(s):
                q[(j, cands[a])] = q.get((j, cands[a]), 0.0) + p
        probs = {tuple(cands[a] for a in s): p for s, p in d.items()}
        return q, lambda names: probs.get(tuple(names), 0.0)

    def deterministic(slate):
        q = {(j, d): 1.0 for j, d in enumerate(slate)}
        return q, lambda names: 1.0 if list(names) == list(slate) else 0.0

    def target_scores(ctx):
        sc = lookup(scores, ctx)
        cands = logging[ctx][0]
        top = sorted(cands, key=lambda d: (-sc[d], d.encode()))[:ELL]
        return deterministic(top)

    def target_run(ctx):
        r = sorted(lookup(runs, ctx), key=lambda t: (t[0], t[1], t[2].encode()))
        return deterministic([d for _, _, d in r[:ELL]])

    log = read_tsv("log.txt")
    out = {"n": len(log)}
    for tname, target in (("policy", target_policy), ("scores", target_scores), ("run", target_run)):
        cache = {}
        sums = dict(pr=0.0, p=0.0, ir=0.0, i=0.0)
        short = set()
        for ctx, slate, r in log:
            r = float(r)
            names = slate.split(",")
            cands, mu = logging[ctx]
            m = len(cands)
            if ctx not in cache:
                q, prob = target(ctx)
                qv = np.zeros(ELL * m)
                unseen = 0.0
                for (j, d), p in q.items():
                    if d in cands:
                        qv[j * m + cands.index(d)] += p
                    else:
                        unseen += p
                cache[ctx] = (gam[ctx] @ qv, prob, unseen)
            g, prob, unseen = cache[ctx]
            if unseen > 1e-12:
                short.add(ctx)
            s = [cands.index(d) for d in names]
            w = sum(g[j * m + a] for j, a in enumerate(s))
            ratio = prob(names) / mu[tuple(s)]
            sums["pr"] += w * r
            sums["p"] += w
            sums["ir"] += ratio * r
            sums["i"] += ratio
        n = len(log)
        out[tname] = {"pi": sums["pr"] / n, "wpi": sums["pr"] / sums["p"], "ips": sums["ir"] / n,
                      "wips": sums["ir"] / sums["i"] if sums["i"] else 0.0, "contexts_short": len(short)}
    json.dump(out, open(os.path.join(HERE, "expected.json"), "w"), indent=1, sort_keys=True)
    open(os.path.join(HERE, "expected.json"), "a").write("\n")


if __name__ == "__main__":
    main()
