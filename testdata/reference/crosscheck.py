#!/usr/bin/env python3
"""Independent references for attnverify's float64 oracles (src/reference/crosscheck_test.cc).

Writes generated cases under OUTDIR: each case's inputs and expected outputs as .npy files,
and OUTDIR/cases.json listing them with the op, its parameters and the comparison
tolerance. References are computed with torch in float64 the way the anchors write their
own: explicit matmul + softmax over a full score matrix with -inf masks built from the
bottom-right-aligned formula (flash-attention's attention_ref / construct_local_mask),
FlashMLA's gather-by-block-table reference, the split-k combine formula, DeepGEMM's
per_token / per_block cast recipes (float32 steps), and fp8 codes decoded by formula.
Nothing here shares code with the C++ oracles.

usage: crosscheck.py OUTDIR      (needs numpy and torch; exits 3 if torch is missing)
"""
import json
import math
import os
import sys

import numpy as np

try:
    import torch
except ImportError:
    print("torch is not installed", file=sys.stderr)
    sys.exit(3)

OUT = sys.argv[1]
RNG = np.random.default_rng(20261129)
CASES = []
NEG_INF = float("-inf")


def rand(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape)


def save_case(name, op, params, inputs, expected, dtypes=None, tol=1e-12):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    entry = {"name": name, "op": op, "params": params, "inputs": {}, "expected": {},
             "dtypes": dtypes or {}, "tol": tol}
    for kind, tensors in (("inputs", inputs), ("expected", expected)):
        for key, value in tensors.items():
            path = os.path.join(folder, f"{kind}_{key}.npy")
            if isinstance(value, torch.Tensor):
                value = value.numpy()
            np.save(path, np.ascontiguousarray(value))
            entry[kind][key] = path
    CASES.append(entry)


# ---------------------------------------------------------------- attention (flash-attn style)
def local_mask(sq, sk, left, right, causal):
    """True where masked: j > i + sk - sq + right (right >= 0) or j < i + sk - sq - left."""
    if causal:
        right = 0
    i = torch.arange(sq).view(-1, 1)
    j = torch.arange(sk).view(1, -1)
    masked = torch.zeros(sq, sk, dtype=torch.bool)
    if right >= 0:
        masked |= j > i + sk - sq + right
    if left >= 0:
        masked |= j < i + sk - sq - left
    return masked


def attention_one(q, k, v, scale, causal=False, left=-1, right=-1, softcap=0.0, slopes=None,
                  sink=None):
    """q [sq, hq, d], k [sk, hkv, d], v [sk, hkv, dv] -> o [sq, hq, dv], lse [hq, sq]."""
    sq, hq, _ = q.shape
    sk, hkv, dv = v.shape
    if sk == 0:
        return torch.zeros(sq, hq, dv, dtype=torch.float64), torch.full((hq, sq), NEG_INF,
                                                                          dtype=torch.float64)
    rep = hq // hkv
    k = k.repeat_interleave(rep, dim=1)
    v = v.repeat_interleave(rep, dim=1)
    scores = torch.einsum("qhd,khd->hqk", q, k) * scale
    if softcap > 0:
        scores = torch.tanh(scores / softcap) * softcap
    scores = scores.masked_fill(local_mask(sq, sk, left, right, causal), NEG_INF)
    if slopes is not None:
        i = torch.arange(sq).view(-1, 1)
        j = torch.arange(sk).view(1, -1)
        dist = (i + sk - sq - j).abs().double()
        scores = scores - slopes.view(-1, 1, 1) * dist
    lse = torch.logsumexp(scores, dim=-1)  # [hq, sq]
    p = torch.softmax(scores, dim=-1)
    p = torch.nan_to_num(p, nan=0.0)  # rows with every key masked
    o = torch.einsum("hqk,khd->qhd", p, v)
    if sink is not None:
        factor = 1.0 / (1.0 + torch.exp(sink.view(-1, 1) - lse))  # [hq, sq]
        factor = torch.where(torch.isinf(lse), torch.ones_like(factor), factor)
        o = o * factor.t().unsqueeze(-1)
    return o, lse


def attention_cases():
    b, sq, sk, hq, hkv, d, dv = 2, 3, 5, 4, 2, 16, 8
    variants = [
        ("plain", {}, {}),
        ("causal", {"causal": "true"}, {"causal": True}),
        ("window", {"window_left": "2", "window_right": "1"}, {"left": 2, "right": 1}),
        ("causal_softcap", {"causal": "true", "softcap": "0.7", "scale": "0.9"},
         {"causal": True, "softcap": 0.7}),
        ("alibi", {"causal": "true"}, {"causal": True, "alibi": True}),
        ("sink_log2", {"lse_log2": "true"}, {"sink": True}),
    ]
    for name, params, opts in variants:
        q, k, v = rand(b, sq, hq, d), rand(b, sk, hkv, d), rand(b, sk, hkv, dv)
        inputs = {"q": q, "k": k, "v": v}
        scale = float(params.get("scale", 1 / math.sqrt(d)))
        slopes = sink = None
        if opts.get("alibi"):
            slopes = rand(hq, lo=0.1, hi=0.9)
            inputs["alibi_slopes"] = slopes
        if opts.get("sink"):
            sink = rand(hq, lo=-1, hi=2)
            inputs["sink"] = sink
        os_, ls = [], []
        for i in range(b):
            o, lse = attention_one(torch.tensor(q[i]), torch.tensor(k[i]), torch.tensor(v[i]),
                                   scale, opts.get("causal", False), opts.get("left", -1),
                                   opts.get("right", -1), opts.get("softcap", 0.0),
                                   None if slopes is None else torch.tensor(slopes),
                                   None if sink is None else torch.tensor(sink))
            os_.append(o)
            ls.append(lse / math.log(2) if params.get("lse_log2") else lse)
        save_case("attention_" + name, "attention", params, inputs,
                  {"o": torch.stack(os_), "lse": torch.stack(ls)})

    # Padding via seqlens_k and more queries than keys (empty rows: o = 0, lse = -inf).
    q, k, v = rand(2, 5, 2, 8), rand(2, 3, 1, 8), rand(2, 3, 1, 8)
    lens = np.array([3, 1], dtype=np.int32)
    k[1, 1:] = np.nan  # padding past seqlens_k is poison
    v[1, 1:] = np.nan
    os_, ls = [], []
    for i in range(2):
        o, lse = attention_one(torch.tensor(q[i]), torch.tensor(k[i, :lens[i]]),
                               torch.tensor(v[i, :lens[i]]), 1 / math.sqrt(8), causal=True)
        os_.append(o)
        ls.append(lse)
    save_case("attention_padded_sq_gt_sk", "attention", {"causal": "true"},
              {"q": q, "k": k, "v": v, "seqlens_k": lens},
              {"o": torch.stack(os_), "lse": torch.stack(ls)})

    # Varlen with a zero-length sequence; lse [hq, total_q].
    lq, lk = [2, 0, 4], [3, 2, 6]
    cq, ck = np.cumsum([0] + lq).astype(np.int32), np.cumsum([0] + lk).astype(np.int32)
    q, k, v = rand(cq[-1], 4, 8), rand(ck[-1], 1, 8), rand(ck[-1], 1, 4)
    o_all = torch.zeros(cq[-1], 4, 4, dtype=torch.float64)
    lse_all = torch.zeros(4, cq[-1], dtype=torch.float64)
    for i in range(3):
        o, lse = attention_one(torch.tensor(q[cq[i]:cq[i + 1]]), torch.tensor(k[ck[i]:ck[i + 1]]),
                               torch.tensor(v[ck[i]:ck[i + 1]]), 1 / math.sqrt(8), causal=True,
                               left=2)
        o_all[cq[i]:cq[i + 1]] = o
        lse_all[:, cq[i]:cq[i + 1]] = lse
    save_case("attention_varlen", "attention", {"causal": "true", "window_left": "2"},
              {"q": q, "k": k, "v": v, "cu_seqlens_q": cq, "cu_seqlens_k": ck},
              {"o": o_all, "lse": lse_all})


# ---------------------------------------------------------------- paged KV and FlashMLA decode
def paged_cache(lens, page, hkv, d, num_blocks):
    """A NaN-filled cache, a random-permutation block table, and the dense keys it holds."""
    max_blocks = max(1, max((n + page - 1) // page for n in lens))
    perm = RNG.permutation(num_blocks)[: len(lens) * max_blocks].reshape(len(lens), max_blocks)
    cache = np.full((num_blocks, page, hkv, d), np.nan)
    dense = []
    for i, n in enumerate(lens):
        keys = rand(n, hkv, d)
        for j in range(n):
            cache[perm[i, j // page], j % page] = keys[j]
        dense.append(keys)
    return cache, perm.astype(np.int32), dense


def paged_cases():
    lens, page, d, dv = [9, 0, 14], 4, 8, 6
    kc, table, dense_k = paged_cache(lens, page, 2, d, 14)
    vc = np.full(kc.shape[:3] + (dv,), np.nan)
    dense_v = []
    for i, n in enumerate(lens):
        vals = rand(n, 2, dv)
        for j in range(n):
            vc[table[i, j // page], j % page] = vals[j]
        dense_v.append(vals)
    q = rand(3, 2, 4, d)
    os_, ls = [], []
    for i in range(3):
        o, lse = attention_one(torch.tensor(q[i]), torch.tensor(dense_k[i]).reshape(-1, 2, d),
                               torch.tensor(dense_v[i]).reshape(-1, 2, dv), 1 / math.sqrt(d),
                               causal=True)
        os_.append(o)
        ls.append(lse)
    save_case("attention_paged", "attention", {"causal": "true"},
              {"q": q, "k_cache": kc, "v_cache": vc, "block_table": table,
               "seqlens_k": np.array(lens, dtype=np.int32)},
              {"o": torch.stack(os_), "lse": torch.stack(ls)})

    # FlashMLA decode: d 576, dv 512, page 64, h_kv 1, s_q 2 causal; empty sequence -> +inf.
    lens, sq, hq = [70, 0, 129], 2, 8
    kc, table, dense_k = paged_cache(lens, 64, 1, 576, 10)
    q = rand(3, sq, hq, 576)
    os_, ls = [], []
    for i in range(3):
        k = torch.tensor(dense_k[i]).reshape(-1, 1, 576)
        o, lse = attention_one(torch.tensor(q[i]), k, k[..., :512], 1 / math.sqrt(576),
                               causal=True)
        os_.append(o)
        ls.append(torch.where(torch.isinf(lse), torch.full_like(lse, float("inf")), lse))
    save_case("mla_decode", "mla_decode", {"causal": "true"},
              {"q": q, "k_cache": kc, "block_table": table,
               "cache_seqlens": np.array(lens, dtype=np.int32)},
              {"o": torch.stack(os_), "lse": torch.stack(ls)})


# ---------------------------------------------------------------- split-k
def flashmla_plan(lens, parts, block=64, overhead=5):
    """FlashMLA's get_mla_metadata walk, written from its description."""
    blocks = [max(n - 1, 0) // block + 1 for n in lens]  # a zero-length batch is one block
    payload = -(-sum(x + overhead for x in blocks) // parts) + overhead
    ranges, req, cur = [], 0, 0
    for _ in range(parts):
        left = payload
        while req < len(lens):
            rest = blocks[req] - cur
            if left >= rest + overhead:
                ranges.append((req, min(cur * block, lens[req]), lens[req]))
                left -= rest + overhead
                req, cur = req + 1, 0
            else:
                if left - overhead > 0:
                    end = cur + left - overhead
                    ranges.append((req, min(cur * block, lens[req]), min(end * block, lens[req])))
                    cur = end
                break
    return ranges


def splitk_cases():
    # FlashMLA's scheduler on lengths [200, 70] (20 SMs), and on a zero-length batch before a
    # long one (8 SMs, 4 parts), where it counts the empty batch as one block.
    splitk_plans([200, 70], 20, explicit=True)
    splitk_plans([0, 1000], 8, suffix="_zero_length")


def splitk_plans(lens, num_sms, explicit=False, suffix=""):
    b, sq, hq, hkv, d, dv = len(lens), 2, 4, 2, 8, 8
    s_max = max(lens)
    q, k, v = rand(b, sq, hq, d), rand(b, s_max, hkv, d), rand(b, s_max, hkv, dv)
    sink = rand(hq)
    parts = max(num_sms // hkv // -(-(sq * hq // hkv) // 64), 1)
    plans = {"flashmla" + suffix: flashmla_plan(lens, parts)}
    if explicit:
        plans["explicit"] = [(0, 0, 50), (0, 50, 50), (0, 50, 200), (1, 0, 3), (1, 3, 70)]
    for name, plan in plans.items():
        o_acc, l_acc = [], []
        for (bi, lo, hi) in plan:
            # Attention over keys [lo, hi) of a sequence of lens[bi] keys: positions stay
            # aligned to the full length, so mask with the full matrix and cut columns.
            qi = torch.tensor(q[bi])
            ki, vi = torch.tensor(k[bi, :lens[bi]]), torch.tensor(v[bi, :lens[bi]])
            rep = hq // hkv
            scores = torch.einsum("qhd,khd->hqk", qi, ki.repeat_interleave(rep, 1)) / math.sqrt(d)
            keep = ~local_mask(sq, lens[bi], -1, -1, True)
            cols = torch.zeros(lens[bi], dtype=torch.bool)
            cols[lo:hi] = True
            scores = scores.masked_fill(~(keep & cols), NEG_INF)
            lse = torch.logsumexp(scores, -1)
            p = torch.nan_to_num(torch.softmax(scores, -1), nan=0.0)
            o_acc.append(torch.einsum("hqk,khd->qhd", p, vi.repeat_interleave(rep, 1)))
            l_acc.append(lse)
        o_acc, l_acc = torch.stack(o_acc), torch.stack(l_acc)
        counts = np.array([0] + [sum(1 for r in plan if r[0] < i + 1) for i in range(b)],
                          dtype=np.int32)
        # Combine (FACTS §3), then the sink.
        o_out = torch.zeros(b, sq, hq, dv, dtype=torch.float64)
        l_out = torch.zeros(b, hq, sq, dtype=torch.float64)
        for i in range(b):
            ls = l_acc[counts[i]:counts[i + 1]]  # [n, hq, sq]
            m = ls.max(0).values
            m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
            lse = m + torch.log(torch.exp(ls - m).sum(0))
            w = torch.nan_to_num(torch.exp(ls - lse), nan=0.0)  # [n, hq, sq]; 0 in empty rows
            o = (w.permute(0, 2, 1).unsqueeze(-1) * o_acc[counts[i]:counts[i + 1]]).sum(0)
            o = o / (1 + torch.exp(torch.tensor(sink).view(1, -1, 1) - lse.t().unsqueeze(-1)))
            o_out[i], l_out[i] = o, lse
        inputs = {"q": q, "k": k, "v": v, "seqlens_k": np.array(lens, dtype=np.int32),
                  "sink": sink}
        params = {"causal": "true", "partials_f32": "false"}
        if name.startswith("explicit"):
            inputs["split_ranges"] = np.array([[lo, hi] for (_, lo, hi) in plan], dtype=np.int32)
            inputs["num_splits"] = counts
        else:
            params["num_sms"] = str(num_sms)
        save_case("splitk_" + name, "attention_splitk", params, inputs,
                  {"o": o_out, "lse": l_out, "o_accum": o_acc, "lse_accum": l_acc,
                   "num_splits": counts,
                   "split_ranges": np.array([[lo, hi] for (_, lo, hi) in plan], dtype=np.int32)})


# ---------------------------------------------------------------- sparse
def sparse_cases():
    sq, skv, hq, hkv, d, dv, topk = 3, 10, 4, 1, 16, 12, 6
    q, kv = rand(sq, hq, d), rand(skv, hkv, d)
    idx = RNG.integers(0, skv, size=(sq, hkv, topk)).astype(np.int32)
    idx[0, 0, 1] = -1
    idx[1, 0, 2] = skv
    idx[1, 0, 3] = -5
    idx[2, 0, :] = -1  # a row with nothing valid
    topk_length = np.array([6, 4, 6], dtype=np.int32)
    sink = rand(hq)
    scale = 0.3
    o = torch.zeros(sq, hq, dv, dtype=torch.float64)
    lse = torch.zeros(sq, hq, dtype=torch.float64)
    mx = torch.zeros(sq, hq, dtype=torch.float64)
    for i in range(sq):
        ids = [int(t) for t in idx[i, 0, :topk_length[i]] if 0 <= t < skv]
        if not ids:
            lse[i] = float("inf")
            mx[i] = NEG_INF
            continue
        keys = torch.tensor(kv[ids, 0])  # [n, d]
        s = torch.tensor(q[i]) @ keys.t() * scale  # [hq, n]
        l = torch.logsumexp(s, -1)
        out = torch.softmax(s, -1) @ keys[:, :dv]
        o[i] = out / (1 + torch.exp(torch.tensor(sink) - l)).unsqueeze(-1)
        lse[i], mx[i] = l, s.max(-1).values
    save_case("sparse_attention", "sparse_attention",
              {"scale": str(scale), "head_dim_v": str(dv)},
              {"q": q, "kv": kv, "indices": idx, "topk_length": topk_length, "attn_sink": sink},
              {"o": o, "lse": lse, "max_logits": mx})


# ---------------------------------------------------------------- fp8 (DeepGEMM recipes)
def e4m3_value(code):
    sign = -1.0 if code & 0x80 else 1.0
    exp, man = (code >> 3) & 0xF, code & 0x7
    if exp == 0xF and man == 0x7:
        return float("nan")
    if exp == 0:
        return sign * man * 2.0 ** -9
    return sign * (1 + man / 8) * 2.0 ** (exp - 7)


E4M3 = np.array([e4m3_value(c) for c in range(256)])


def encode_e4m3(x):
    """Round float32 values to e4m3fn codes, nearest with ties to the even code."""
    pos = np.array([E4M3[c] for c in range(127)])  # codes 0..126, increasing
    out = np.zeros(x.shape, dtype=np.uint8)
    for idx, val in np.ndenumerate(x.astype(np.float64)):
        if math.isnan(val):
            out[idx] = 0x7F
            continue
        a = abs(val)
        dist = np.abs(pos - a)
        best = np.flatnonzero(dist == dist.min())
        code = int(best[0]) if len(best) == 1 else int(best[best % 2 == 0][0])
        if a > 464:
            code = 0x7F
        out[idx] = code | (0x80 if val < 0 or (val == 0 and math.copysign(1, val) < 0) else 0)
    return out


def quantize(x, group_rows, ue8m0):
    """DeepGEMM per_token_cast_to_fp8 (group_rows 1) / per_block_cast_to_fp8 (128)."""
    t = torch.tensor(x, dtype=torch.float32)
    m, n = t.shape
    pm, pn = -(-m // group_rows) * group_rows, -(-n // 128) * 128
    padded = torch.zeros(pm, pn, dtype=torch.float32)
    padded[:m, :n] = t
    view = padded.view(pm // group_rows, group_rows, pn // 128, 128)
    amax = view.abs().amax(dim=(1, 3), keepdim=True).clamp(1e-4)
    sf = amax / 448.0
    if ue8m0:
        sf = torch.pow(2.0, torch.ceil(torch.log2(sf.abs())))
    scaled = (view * (1.0 / sf)).view(pm, pn)[:m, :n]
    return encode_e4m3(scaled.numpy()), sf.view(pm // group_rows, pn // 128).numpy()


def fp8_cases():
    x = rand(5, 200, lo=-3, hi=3).astype(np.float32)
    for gran, rows in (("token", 1), ("block", 128)):
        for ue8m0 in (False, True):
            data, scales = quantize(x, rows, ue8m0)
            save_case(f"fp8_quant_{gran}_{'ue8m0' if ue8m0 else 'plain'}", "fp8_quant",
                      {"granularity": gran, "ue8m0": "true" if ue8m0 else "false"},
                      {"x": x}, {"data": data, "scales": scales}, dtypes={"data": "f8_e4m3fn"},
                      tol=0.0)
    # torch's amax propagates NaN (the group's scale and codes become NaN); inf gives an
    # infinite scale (finite values code to 0, the inf to NaN).
    bad = x.copy()
    bad[0, 0], bad[0, 1], bad[2, 150] = np.nan, 448, np.inf
    for gran, rows in (("token", 1), ("block", 128)):
        data, scales = quantize(bad, rows, False)
        save_case(f"fp8_quant_{gran}_nan_inf", "fp8_quant", {"granularity": gran},
                  {"x": bad}, {"data": data, "scales": scales}, dtypes={"data": "f8_e4m3fn"},
                  tol=0.0)
    data, scales = quantize(x, 1, False)
    deq = E4M3[data] * np.repeat(scales.astype(np.float64), 128, axis=1)[:, :200]
    save_case("fp8_dequant", "fp8_dequant", {"granularity": "token"},
              {"data": data, "scales": scales}, {"x": deq}, dtypes={"data": "f8_e4m3fn"})

    def dq(codes, sf, rows):
        s = np.repeat(np.repeat(sf.astype(np.float64), rows, 0), 128, 1)
        return E4M3[codes] * s[: codes.shape[0], : codes.shape[1]]

    m, n, k, groups = 6, 130, 260, 3
    a, sa = quantize(rand(m, k), 1, False)
    b, sb = quantize(rand(n, k), 128, False)
    d = torch.tensor(dq(a, sa, 1)) @ torch.tensor(dq(b, sb, 128)).t()
    save_case("fp8_gemm", "fp8_gemm", {}, {"a": a, "sa": sa, "b": b, "sb": sb}, {"d": d},
              dtypes={"a": "f8_e4m3fn", "b": "f8_e4m3fn"})

    bs = [quantize(rand(n, k), 128, True) for _ in range(groups)]
    m_indices = np.array([0, 0, 2, -1, 1, -1], dtype=np.int32)
    d = torch.zeros(m, n, dtype=torch.float64)
    for r in range(m):
        g = m_indices[r]
        if g >= 0:
            d[r] = torch.tensor(dq(bs[g][0], bs[g][1], 128)) @ torch.tensor(dq(a, sa, 1)[r])
    save_case("fp8_gemm_contiguous", "fp8_gemm", {},
              {"a": a, "sa": sa, "b": np.stack([x[0] for x in bs]),
               "sb": np.stack([x[1] for x in bs]), "m_indices": m_indices}, {"d": d},
              dtypes={"a": "f8_e4m3fn", "b": "f8_e4m3fn"})

    max_m, masked_m = 4, np.array([3, 0, 4], dtype=np.int32)
    aq = [quantize(rand(max_m, k), 1, False) for _ in range(groups)]
    d = torch.zeros(groups, max_m, n, dtype=torch.float64)
    for g in range(groups):
        rows = masked_m[g]
        d[g, :rows] = (torch.tensor(dq(aq[g][0], aq[g][1], 1)[:rows]) @
                       torch.tensor(dq(bs[g][0], bs[g][1], 128)).t())
    save_case("fp8_gemm_masked", "fp8_gemm", {},
              {"a": np.stack([x[0] for x in aq]), "sa": np.stack([x[1] for x in aq]),
               "b": np.stack([x[0] for x in bs]), "sb": np.stack([x[1] for x in bs]),
               "masked_m": masked_m}, {"d": d}, dtypes={"a": "f8_e4m3fn", "b": "f8_e4m3fn"})

    ga, gb = rand(7, 33).astype(np.float32), rand(9, 33).astype(np.float16)
    save_case("gemm", "gemm", {}, {"a": ga, "b": gb},
              {"d": torch.tensor(ga, dtype=torch.float64) @ torch.tensor(gb, dtype=torch.float64).t()})


def main():
    torch.manual_seed(0)
    attention_cases()
    paged_cases()
    splitk_cases()
    sparse_cases()
    fp8_cases()
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"torch": torch.__version__, "numpy": np.__version__, "cases": CASES}, f, indent=1)


if __name__ == "__main__":
    main()
