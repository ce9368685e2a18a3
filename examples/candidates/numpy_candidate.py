#!/usr/bin/env python3
"""A correct CPU candidate for attnverify's sweeps, in numpy (float64 arithmetic).

    python3 numpy_candidate.py CASES_JSON [--bug NAME]

case.json's knobs.num_splits (invariance variants) splits the keys into that many chunks,
each reduced on its own and combined through its log-sum-exp, as a split-k kernel does.

--bug plants one bug a real kernel has had, so the sweep can prove it notices:
  causal_top_left   causal mask aligned top-left (j <= i) instead of bottom-right
  causal_s_q        causal mask written for s_q = 1: every query row sees every key
                    (wrong for s_q > 1 in all rows but the last)
  splits_bf16       split-k partials (o and lse) rounded to bf16 when num_splits > 1
  nondeterministic  lse changes in its last bits from run to run (unordered atomics)
  seed_blind        outputs cached by shape: the second seed gets the first seed's outputs
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from attnverify_candidate import bf16_to_float32, float_to_bf16_bits, iter_cases  # noqa: E402

BUG = None
SPLITS = 1


def to_bf16(x):
    return bf16_to_float32(float_to_bf16_bits(np.asarray(x, dtype=np.float32))).astype(np.float64)


def reduce_keys(s, vv):
    """Softmax over the key axis of s [hq, sq, sk] times vv [sk, hq, dv], in SPLITS chunks of
    keys combined through their log-sum-exp. Returns o [sq, hq, dv], lse [hq, sq] (-inf: no key)."""
    hq, sq, sk = s.shape
    chunks = np.array_split(np.arange(sk), max(1, min(SPLITS, sk))) if sk else [np.arange(0)]
    parts = []
    for idx in chunks:
        sc = s[..., idx]
        m = sc.max(axis=2, keepdims=True) if len(idx) else np.full((hq, sq, 1), -np.inf)
        empty = ~np.isfinite(m)
        m = np.where(empty, 0.0, m)
        p = np.exp(sc - m)
        total = p.sum(axis=2, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            o = np.einsum("hqk,khd->qhd", np.where(empty, 0.0, p / np.where(empty, 1.0, total)), vv[idx])
            lse = np.where(empty[..., 0], -np.inf, m[..., 0] + np.log(np.where(empty[..., 0], 1.0, total[..., 0])))
        if BUG == "splits_bf16" and len(chunks) > 1:
            o, lse = to_bf16(o), to_bf16(lse)
        parts.append((o, lse))
    if len(parts) == 1:
        return parts[0]
    lses = np.stack([lse for _, lse in parts])  # [n, hq, sq]
    top = lses.max(axis=0)
    none = ~np.isfinite(top)
    top = np.where(none, 0.0, top)
    w = np.exp(lses - top)  # exp(-inf) = 0 for empty chunks
    total = w.sum(axis=0)
    o = sum(part[0] * w[c].T[..., None] for c, part in enumerate(parts))
    with np.errstate(divide="ignore", invalid="ignore"):
        o = np.where(none.T[..., None], 0.0, o / np.where(none, 1.0, total).T[..., None])
        lse = np.where(none, -np.inf, top + np.log(np.where(none, 1.0, total)))
    return o, lse


def attend(q, k, v, scale, causal, left, right, softcap, empty_lse):
    """One sequence: q [sq, hq, d], k [sk, hkv, d], v [sk, hkv, dv] -> o [sq, hq, dv], lse [hq, sq]."""
    sq, hq, _ = q.shape
    sk, hkv, dv = v.shape
    group = hq // hkv
    kk = np.repeat(k, group, axis=1)  # head h reads kv head h // group
    vv = np.repeat(v, group, axis=1)
    s = np.einsum("qhd,khd->hqk", q, kk) * scale
    if softcap > 0:
        s = softcap * np.tanh(s / softcap)
    i = np.arange(sq)[:, None]
    j = np.arange(sk)[None, :]
    pos = i + sk - sq if BUG != "causal_top_left" else i
    if BUG == "causal_s_q":
        pos = i * 0 + sk - 1  # as if s_q were 1
    if causal:
        right = 0
    visible = np.ones((sq, sk), dtype=bool)
    if right >= 0:
        visible &= j <= pos + right
    if left >= 0:
        visible &= j >= pos - left
    s = np.where(visible[None], s, -np.inf)
    o, lse = reduce_keys(s, vv)
    lse = np.where(lse == -np.inf, empty_lse, lse)
    if BUG == "nondeterministic":
        noise = np.random.default_rng().uniform(-1, 1, lse.shape) * 2.0 ** -21
        lse = np.where(np.isfinite(lse), lse * (1 + noise), lse)
    return o, lse


def attention(case, x):
    d = x["q"].shape[-1]
    scale = case.op_param("scale", 1.0 / np.sqrt(d))
    causal = case.op_param("causal", False)
    left, right = case.op_param("window_left", -1), case.op_param("window_right", -1)
    softcap = case.op_param("softcap", 0.0)
    f = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
    if "cu_seqlens_q" in x:
        cq, ck = x["cu_seqlens_q"], x["cu_seqlens_k"]
        o = np.zeros(x["q"].shape[:2] + (x["v"].shape[-1],))
        lse = np.zeros((x["q"].shape[1], x["q"].shape[0]))
        for b in range(len(cq) - 1):
            ob, lb = attend(f(x["q"][cq[b]:cq[b + 1]]), f(x["k"][ck[b]:ck[b + 1]]), f(x["v"][ck[b]:ck[b + 1]]),
                            scale, causal, left, right, softcap, -np.inf)
            o[cq[b]:cq[b + 1]], lse[:, cq[b]:cq[b + 1]] = ob, lb
        return o, lse
    q = f(x["q"])
    bsz, sq, hq, _ = q.shape
    if "block_table" in x:
        page = x["k_cache"].shape[1]
        dv = x["v_cache"].shape[-1]
    else:
        dv = x["v"].shape[-1]
    o = np.zeros((bsz, sq, hq, dv))
    lse = np.zeros((bsz, hq, sq))
    for b in range(bsz):
        if "block_table" in x:
            n = int(x["seqlens_k"][b])
            rows = [int(x["block_table"][b, t // page]) * page + t % page for t in range(n)]
            kc = x["k_cache"].reshape((-1,) + x["k_cache"].shape[2:])
            vc = x["v_cache"].reshape((-1,) + x["v_cache"].shape[2:])
            k, v = f(kc[rows]), f(vc[rows])
        else:
            n = int(x["seqlens_k"][b]) if "seqlens_k" in x else x["k"].shape[1]
            k, v = f(x["k"][b, :n]), f(x["v"][b, :n])
        o[b], lse[b] = attend(q[b], k, v, scale, causal, left, right, softcap, -np.inf)
    return o, lse


def mla_decode(case, x):
    dv = case.op_param("head_dim_v", 512)
    causal = case.op_param("causal", False)
    q = np.asarray(x["q"], dtype=np.float64)
    bsz, sq, hq, d = q.shape
    kc = x["k_cache"]
    page = kc.shape[1]
    flat = kc.reshape((-1,) + kc.shape[2:])
    o = np.zeros((bsz, sq, hq, dv))
    lse = np.zeros((bsz, hq, sq))
    for b in range(bsz):
        n = int(x["cache_seqlens"][b])
        rows = [int(x["block_table"][b, t // page]) * page + t % page for t in range(n)]
        k = np.asarray(flat[rows], dtype=np.float64)
        o[b], lse[b] = attend(q[b], k, k[..., :dv], case.op_param("scale", 1.0 / np.sqrt(d)), causal and sq > 1,
                              -1, -1, 0.0, np.inf)
    return o, lse


def sparse(case, x):
    q = np.asarray(x["q"], dtype=np.float64)
    kv = np.asarray(x["kv"], dtype=np.float64)
    sq, hq, d = q.shape
    s_kv, hkv, _ = kv.shape
    dv = case.op_param("head_dim_v", d)
    scale = case.op_param("scale", 1.0 / np.sqrt(d))
    idx = x["indices"]
    o = np.zeros((sq, hq, dv))
    lse = np.full((sq, hq), np.inf)
    for i in range(sq):
        for h in range(hq):
            g = h // (hq // hkv)
            valid = [int(t) for t in idx[i, g] if 0 <= t < s_kv]
            if not valid:
                continue
            k = kv[valid, g]
            s = k @ q[i, h] * scale
            m = s.max()
            p = np.exp(s - m)
            o[i, h] = (p / p.sum()) @ k[:, :dv]
            lse[i, h] = m + np.log(p.sum())
    return o, lse


def fp8_gemm(case, x):
    a, b = np.asarray(x["a"], np.float64), np.asarray(x["b"], np.float64)
    sa, sb = np.asarray(x["sa"], np.float64), np.asarray(x["sb"], np.float64)
    k = a.shape[1]
    cols = np.arange(k) // 128
    a = a * sa[:, cols]
    b = b * sb[np.arange(b.shape[0])[:, None] // 128, cols[None, :]]
    return a @ b.T


def compute(case, bug=None):
    """The outputs of one case and their metadata: ({name: array}, {key: str})."""
    global BUG, SPLITS
    BUG = bug
    SPLITS = int(case.knob("num_splits", 1))
    x = case.inputs()
    meta = {"kernel": "numpy_reference", "num_splits": str(SPLITS), "bug": BUG or "none"}
    if case.op == "attention":
        o, lse = attention(case, x)
        return {"o": o, "lse": lse}, meta
    if case.op == "mla_decode":
        o, lse = mla_decode(case, x)
        return {"o": o, "lse": lse}, meta
    if case.op == "sparse_attention":
        o, lse = sparse(case, x)
        return {"o": o, "lse": lse}, meta
    if case.op == "fp8_gemm":
        return {"d": fp8_gemm(case, x)}, meta
    if case.op == "gemm":
        a, b = np.asarray(x["a"], np.float64), np.asarray(x["b"], np.float64)
        chunks = np.array_split(np.arange(a.shape[1]), max(1, min(SPLITS, a.shape[1])))
        return {"d": sum(a[:, c] @ b[:, c].T for c in chunks)}, meta
    raise NotImplementedError("numpy_candidate: no implementation of op %s (case %s)" % (case.op, case.id))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--bug", default=None,
                    choices=["causal_top_left", "causal_s_q", "splits_bf16", "nondeterministic", "seed_blind"])
    args = ap.parse_args()
    seen = {}
    for case in iter_cases(args.cases):
        key = (case.op, case.dtype, tuple((k, tuple(v["shape"])) for k, v in sorted(case.spec["inputs"].items())))
        if args.bug == "seed_blind" and key in seen:
            case.save(*seen[key])
            continue
        try:
            outs, meta = compute(case, args.bug)
        except NotImplementedError as e:
            print(e, file=sys.stderr)
            return 1
        seen[key] = (outs, meta)
        case.save(outs, metadata=meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
