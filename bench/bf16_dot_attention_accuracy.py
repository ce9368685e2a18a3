#!/usr/bin/env python3
# Why the attention family's fast reference does not use AVX512-BF16 dot products for
# QK^T (doc/ops.md, "FP8 GEMM on AVX512-BF16"). Emulates a bf16 dot-product QK^T (vdpbf16ps: two exact products per lane summed into a
# float32 accumulator, two roundings) whose float32 accumulator is flushed into float64
# every `m` instructions, and measures the LSE error against exact float64 scores, on
# FlashMLA's shape (d = 576) with the sweep's large_logits (q, k ~ 8 N(0,1)) and near_tie
# generators. m = 1 is the most accurate such scheme (one f32 rounding per channel pair).
import numpy as np
rng = np.random.default_rng(0)
def bf16(x):
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7fff + ((b >> 16) & 1)) >> 16
    return (b << 16).astype(np.uint32).view(np.float32).astype(np.float64)
def scores(q, k, m):
    # q [d], k [n, d] -> approximate raw scores [n]
    n, d = k.shape
    prod = k * q  # exact in f64 (bf16 x bf16)
    odd, even = prod[:, 1::2], prod[:, 0::2]
    acc = np.zeros((n,), np.float32); out = np.zeros(n)
    for i in range(d // 2):
        acc = (acc.astype(np.float64) + odd[:, i]).astype(np.float32)  # one rounding
        acc = (acc.astype(np.float64) + even[:, i]).astype(np.float32)  # one rounding
        if (i + 1) % m == 0:
            out += acc.astype(np.float64); acc[:] = 0
    return out + acc.astype(np.float64)
def lse(s):
    mx = s.max(); return mx + np.log(np.exp(s - mx).sum())
d, n = 576, 4096
for gen in ["large_logits", "near_tie", "randn"]:
    for m in [1, 8, 288]:
        worst = 0
        for rep in range(8):
            if gen == "near_tie":
                base = rng.standard_normal(d)
                q = bf16(4 * rng.standard_normal(d)); k = bf16(base + 1e-3 * rng.standard_normal((n, d)))
            else:
                mul = 8.0 if gen == "large_logits" else 1.0
                q = bf16(mul * rng.standard_normal(d)); k = bf16(mul * rng.standard_normal((n, d)))
            exact = (k * q).sum(axis=1)  # f64 (error ~1e-16 relative)
            approx = scores(q, k, m)
            e = abs(lse(approx / 24.0) - lse(exact / 24.0))
            worst = max(worst, e)
        print(f"{gen:13s} flush every {m:3d} instr: worst |dLSE| over 8 rows of 4096 keys = {worst:.2e}")
