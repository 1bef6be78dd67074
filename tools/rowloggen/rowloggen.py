#!/usr/bin/python3
"""Generate a log with a Plackett–Luce policy per impression, for timing.

  rowloggen.py OUTDIR N M L [QUERIES]

writes, in OUTDIR, the same N impressions twice:
  log.jsonl            one JSON object per line, each with its own policy
                       (spec pl:1, M candidates with scores) over the query's
                       documents, and the logged slate of L documents drawn
                       from it
  log.tsv, policy.tsv  the TSV twin: contexts QID@i, one policy-file line each
and scores.tsv, a target scores file (one score per document of each query).
Context i belongs to query q(i % QUERIES) (default 1000). Not committed:
10^6 impressions at M = 20 are about 500 MB.
"""
import json
import sys

import numpy as np


def main():
    out, n, m, l = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    nq = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
    rng = np.random.default_rng(1)
    ndocs = m + 10
    with open(f"{out}/scores.tsv", "w") as f:
        for q in range(nq):
            for d in range(ndocs):
                f.write(f"q{q}\td{d}\t{rng.normal():.6g}\n")
    jl = open(f"{out}/log.jsonl", "w")
    tl = open(f"{out}/log.tsv", "w")
    pf = open(f"{out}/policy.tsv", "w")
    tl.write(f"# piopt-log v1 slots={l} policy=policy.tsv\n")
    pf.write(f"# piopt-policy v1 slots={l}\n")
    for i in range(n):
        q = i % nq
        cands = rng.choice(ndocs, size=m, replace=False)
        scores = np.round(rng.normal(size=m), 4)
        w = np.exp(scores)
        idx = list(range(m))
        slate = []
        for _ in range(l):
            p = w[idx] / w[idx].sum()
            k = rng.choice(len(idx), p=p)
            slate.append(idx.pop(k))
        names = [f"d{c}" for c in cands]
        sl = [names[k] for k in slate]
        r = float(np.round(rng.random(), 4))
        row = {"context": f"q{q}@{i}", "slate": sl, "reward": r,
               "policy": {"spec": "pl:1", "candidates": names, "scores": [float(s) for s in scores]}}
        jl.write(json.dumps(row, separators=(",", ":")) + "\n")
        tl.write(f"q{q}@{i}\t{','.join(sl)}\t{r!r}\n")
        pf.write(f"q{q}@{i}\tpl:1\t" + ",".join(f"{a}:{float(s)!r}" for a, s in zip(names, scores)) + "\n")


main()
