#!/usr/bin/python3
"""Independent brute-force reference for piopt's real-log path.

Reads data.txt, policy.txt and log.txt (next to this script), re-derives the
logging policy mu of every context from policy.txt, enumerates every ordered
slate of every context, builds Gamma_x = E_mu[1_s 1_s^T] and its pseudoinverse,
and writes expected.json: PI, wPI, IPS, wIPS of the target feature:2, and the
PI-OPT regression targets (per-query and per-sample weighting).

Run: /usr/bin/python3 reference.py
"""
import itertools
import json
import math
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CUTOFF = 1e-10  # eigenvalues <= CUTOFF * largest are treated as zero


# ------------------------------------------------------------------ dataset
def read_letor(path):
    order, docs = [], {}  # qid -> list of (id, features dict)
    for ln, line in enumerate(open(path), 1):
        body, _, comment = line.partition("#")
        f = body.split()
        if not f:
            continue
        qid = f[1].split(":", 1)[1]
        assert f[1].startswith("qid:"), (ln, line)
        feats = {int(k): float(v) for k, v in (t.split(":", 1) for t in f[2:])}
        m = re.search(r"docid\s*=\s*(\S+)", comment)
        assert m, (ln, line)
        if qid not in docs:
            order.append(qid)
            docs[qid] = []
        assert order[-1] == qid, "query blocks must be contiguous"
        docs[qid].append((m.group(1), feats))
    for q in order:
        ids = [d for d, _ in docs[q]]
        assert len(set(ids)) == len(ids), "doc ids must be unique within a query"
    return order, docs


# ------------------------------------------------------------------ policies
def parse_header(line, magic):
    t = line.split()
    assert t[0] == "#" and t[1] == magic and t[2] == "v1", line
    return dict(kv.split("=", 1) for kv in t[3:])


def slates_of(cands, ell):
    return list(itertools.permutations(range(len(cands)), ell))


def seq_prob(w, s):
    """P(slate s) drawing slot by slot without replacement with weights w."""
    p, left = 1.0, list(range(len(w)))
    for a in s:
        p *= w[a] / sum(w[b] for b in left)
        left.remove(a)
    return p


def parse_policy(spec, cl, ell):
    """Returns (candidate ids, {slate (tuple of cand indices): prob}) over ALL
    ordered slates of the candidates (zero-probability ones included)."""
    eps = 0.0
    if spec.startswith("eps:"):
        e, spec = spec[4:].split(",", 1)
        eps = float(e)
        assert 0 <= eps <= 1 and not spec.startswith("eps:")
    if spec == "slates":
        pairs = []
        for item in cl.split(","):
            docs_s, p = item.rsplit("=", 1)
            pairs.append((docs_s.split(" "), float(p)))
        cands = []
        for s, _ in pairs:
            assert len(s) == ell and len(set(s)) == ell
            for d in s:
                if d not in cands:
                    cands.append(d)
        tot = sum(p for _, p in pairs)
        assert abs(tot - 1) <= 1e-9, tot
        base = {}
        for s, p in pairs:
            key = tuple(cands.index(d) for d in s)
            base[key] = base.get(key, 0.0) + p
        mu = {s: base.get(s, 0.0) for s in slates_of(cands, ell)}
    else:
        if spec.startswith("pl:"):
            tau = float(spec[3:])
            cands, scores = [], []
            for item in cl.split(","):
                d, v = item.rsplit(":", 1)
                cands.append(d)
                scores.append(float(v))
            w = [math.exp(v / tau) for v in scores]
        else:
            cands = cl.split(",")
            if spec == "uniform":
                w = [1.0] * len(cands)
            elif spec.startswith("pa:"):
                alpha = float(spec[3:])
                w = [2.0 ** (-alpha * math.floor(math.log2(r))) for r in range(1, len(cands) + 1)]
            else:
                raise ValueError(spec)
        mu = {s: seq_prob(w, s) for s in slates_of(cands, ell)}
    assert len(set(cands)) == len(cands) >= ell
    if eps:
        u = 1.0 / len(mu)
        mu = {s: (1 - eps) * p + eps * u for s, p in mu.items()}
    return cands, mu


def indicator(s, m, ell):
    v = np.zeros(ell * m)
    for j, a in enumerate(s):
        v[j * m + a] = 1.0
    return v


def pinv_psd(G):
    lam, V = np.linalg.eigh(G)
    keep = lam > CUTOFF * lam.max()
    P = (V[:, keep] / lam[keep]) @ V[:, keep].T
    P2 = np.linalg.pinv(G, rcond=CUTOFF)
    assert np.allclose(P, P2, atol=1e-8 * max(1, np.abs(P).max())), "eigh vs pinv"
    pos = lam[keep]
    zero = lam[~keep]
    gap = (float(pos.min() / lam.max()), float(np.abs(zero).max() / lam.max()) if zero.size else 0.0)
    return P, int(keep.sum()), gap


def main():
    order, docs = read_letor(os.path.join(HERE, "data.txt"))
    pos = {q: {d: k for k, (d, _) in enumerate(docs[q])} for q in order}
    f2 = {q: {d: f.get(2, 0.0) for d, f in docs[q]} for q in order}

    lines = open(os.path.join(HERE, "policy.txt")).read().splitlines()
    ell = int(parse_header(lines[0], "piopt-policy")["slots"])
    ctx = {}  # name -> dict
    ctx_order = []
    for line in lines[1:]:
        if not line.strip() or line.startswith("#"):
            continue
        name, spec, cl = line.split("\t")
        qid = name.split("@", 1)[0]
        assert qid in docs and name not in ctx
        cands, mu = parse_policy(spec, cl, ell)
        assert all(d in pos[qid] for d in cands)
        m = len(cands)
        tot = sum(mu.values())
        assert abs(tot - 1) < 1e-12, (name, tot)
        G = np.zeros((ell * m, ell * m))
        q = np.zeros(ell * m)
        for s, p in mu.items():
            v = indicator(s, m, ell)
            G += p * np.outer(v, v)
            q += p * v
        Gp, rank, gap = pinv_psd(G)
        # q_mu^T Gamma^+ 1_s = 1 for every loggable slate
        dev = max(abs(q @ Gp @ indicator(s, m, ell) - 1) for s, p in mu.items() if p > 0)
        assert dev < 1e-9, (name, dev)
        if spec == "uniform" and m > ell:  # closed form of docs/design.md / the paper's appendix
            for s1 in mu:
                v1 = indicator(s1, m, ell) @ Gp
                for s2 in mu:
                    cf = (1 - ell * (m - 1) / (m - ell) + (m - 1) * sum(a == b for a, b in zip(s1, s2))
                          + (m - 1) / (m - ell) * len(set(s1) & set(s2)))
                    assert abs(v1 @ indicator(s2, m, ell) - cf) < 1e-9, (name, s1, s2)
        # target slate: feature 2 descending, ties by 0-based position in the query
        star = tuple(sorted(range(m), key=lambda a: (-f2[qid][cands[a]], pos[qid][cands[a]]))[:ell])
        ctx[name] = dict(name=name, qid=qid, spec=spec, cands=cands, m=m, mu=mu, G=G, Gp=Gp,
                         rank=rank, gap=gap, qcheck=dev, star=star,
                         wstar=indicator(star, m, ell) @ Gp,
                         S=np.zeros(ell * m), n=0)
        ctx_order.append(name)

    loglines = open(os.path.join(HERE, "log.txt")).read().splitlines()
    parse_header(loglines[0], "piopt-log")
    R, W, RHO, mu_logged = [], [], [], []
    for line in loglines[1:]:
        name, sl, rew = line.split("\t")
        c = ctx[name]
        s = tuple(c["cands"].index(d) for d in sl.split(","))
        r = float(rew)
        assert math.isfinite(r) and len(s) == ell and len(set(s)) == ell
        p = c["mu"][s]
        assert p > 0, (line, "slate has zero logging probability")
        if len(mu_logged) < 20:
            mu_logged.append(p)
        v = indicator(s, c["m"], ell)
        R.append(r)
        W.append(float(c["wstar"] @ v))
        RHO.append(1.0 / c["mu"][c["star"]] if s == c["star"] else 0.0)
        c["S"] += r * v
        c["n"] += 1
    R, W, RHO = np.array(R), np.array(W), np.array(RHO)
    n = len(R)
    pi = float(np.sum(R * W) / n)
    wpi = float(np.sum(R * W) / np.sum(W))
    ips = float(np.sum(R * RHO) / n)
    wips = float(np.sum(R * RHO) / np.sum(RHO))

    # PI-OPT targets
    targets, targets_ps = [], []
    for qid in order:
        logged = [ctx[x] for x in ctx_order if ctx[x]["qid"] == qid and ctx[x]["n"] > 0]
        if not logged:
            continue
        for c in logged:
            c["phibar"] = c["Gp"] @ (c["S"] / c["n"])
        dset = sorted({d for c in logged for d in c["cands"]}, key=lambda d: pos[qid][d])
        nrows = len(dset) * ell
        for d in dset:
            for j in range(ell):
                num = den = 0
                for c in logged:
                    if d in c["cands"]:
                        a = c["cands"].index(d)
                        num += c["n"] * c["phibar"][j * c["m"] + a]
                        den += c["n"]
                t = float(num / den)
                targets.append([qid, d, j + 1, t, 1.0 / nrows])
                targets_ps.append([qid, d, j + 1, t, float(den)])

    contexts = []
    for x in ctx_order:
        c = ctx[x]
        contexts.append({
            "context": x, "spec": c["spec"], "m": c["m"], "n": c["n"],
            "candidates": c["cands"],
            "target_slate": [c["cands"][a] for a in c["star"]],
            "mu_target": c["mu"][c["star"]],
            "gamma_rank": c["rank"],
            "min_kept_eig_rel": c["gap"][0], "max_dropped_eig_rel": c["gap"][1],
            "q_gamma_pinv_1s_maxdev": float(c["qcheck"]),
        })
    out = {"n": n, "pi": pi, "wpi": wpi, "ips": ips, "wips": wips,
           "mu_logged": mu_logged, "contexts": contexts,
           "targets": targets, "targets_per_sample": targets_ps}
    with open(os.path.join(HERE, "expected.json"), "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    print("n=%d PI=%r wPI=%r IPS=%r wIPS=%r rows=%d" % (n, pi, wpi, ips, wips, len(targets)))


if __name__ == "__main__":
    main()
