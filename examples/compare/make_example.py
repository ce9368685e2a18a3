#!/usr/bin/env python3
"""Makes the bundled compare example (run once; outputs are committed).

An MLA-style decode step with speculative decoding (s_q = 2 query rows per sequence):
  q [b, s_q, h, d], one shared latent KV [b, s_k, 1, d], V = the first dv channels of K,
  causal mask aligned bottom-right (row i sees keys j <= i + s_k - s_q).
Files (safetensors, tensors "o" [b, s_q, h, dv] and "lse" [b, h, s_q]):
  reference.safetensors        float32 outputs of a float64 computation
  lowprec.safetensors          the same op run in bf16 (inputs, S, P, O rounded), f32 accum
  candidate_fixed.safetensors  a bf16 kernel's outputs: lowprec with a different summation order
  candidate_buggy.safetensors  the same kernel with the planted bug: the causal mask is
                               dropped for s_q > 1, so query row 0 also sees the newest key
Needs only numpy. Usage: python3 make_example.py [OUTDIR]
"""
import json
import struct
import sys

import numpy as np

B, SQ, H, D, DV, SK = 2, 2, 16, 64, 32, 40


def bf16_bits(x):
    """Round float32 to bfloat16 (nearest even) and return the uint16 codes."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16(x):
    return (bf16_bits(x).astype(np.uint32) << 16).view(np.float32)


def attention(q, k, v, rows_see, dtype_round=None, reverse=False):
    """Per (b, h, i): softmax(q.k * scale) over visible keys, in float64 or emulated bf16."""
    scale = 1.0 / np.sqrt(D)
    o = np.zeros((B, SQ, H, DV), np.float64)
    lse = np.zeros((B, H, SQ), np.float64)
    for b in range(B):
        for i in range(SQ):
            visible = rows_see(i)
            kk, vv = k[b, :visible, 0, :], v[b, :visible, 0, :]
            for h in range(H):
                qq = q[b, i, h, :]
                if dtype_round is None:
                    s = kk.astype(np.float64) @ qq.astype(np.float64) * scale
                    m = s.max()
                    p = np.exp(s - m)
                    o[b, i, h] = (p @ vv.astype(np.float64)) / p.sum()
                    lse[b, h, i] = m + np.log(p.sum())
                else:
                    s = (kk.astype(np.float32) @ qq.astype(np.float32)) * np.float32(scale)
                    s = dtype_round(s)
                    m = s.max()
                    p = np.exp(s - m).astype(np.float32)
                    denom = p[::-1].sum() if reverse else p.sum()
                    p = dtype_round(p)
                    acc = (p[::-1] @ vv[::-1].astype(np.float32)) if reverse else (p @ vv.astype(np.float32))
                    o[b, i, h] = dtype_round(acc / denom)
                    lse[b, h, i] = m + np.log(denom)
    return o, lse


def save_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, (dtype, arr) in tensors.items():
        raw = arr.tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    rng = np.random.default_rng(20261129)
    q = bf16(rng.standard_normal((B, SQ, H, D), dtype=np.float32))
    k = bf16(rng.standard_normal((B, SK, 1, D), dtype=np.float32))
    v = k[..., :DV]
    causal = lambda i: i + SK - SQ + 1          # bottom-right: keys 0 .. i + s_k - s_q
    no_mask = lambda i: SK                       # the bug: every row sees every key

    o_ref, lse_ref = attention(q, k, v, causal)
    o_low, lse_low = attention(q, k, v, causal, dtype_round=bf16)
    o_fix, lse_fix = attention(q, k, v, causal, dtype_round=bf16, reverse=True)
    o_bug, lse_bug = attention(q, k, v, lambda i: no_mask(i), dtype_round=bf16, reverse=True)

    f32 = lambda a: a.astype(np.float32)
    save_safetensors(f"{out}/reference.safetensors", {"o": ("F32", f32(o_ref)), "lse": ("F32", f32(lse_ref))})
    save_safetensors(f"{out}/lowprec.safetensors", {"o": ("BF16", bf16_bits(o_low)), "lse": ("F32", f32(lse_low))})
    save_safetensors(f"{out}/candidate_fixed.safetensors", {"o": ("BF16", bf16_bits(o_fix)), "lse": ("F32", f32(lse_fix))})
    save_safetensors(f"{out}/candidate_buggy.safetensors", {"o": ("BF16", bf16_bits(o_bug)), "lse": ("F32", f32(lse_bug))})


if __name__ == "__main__":
    main()
