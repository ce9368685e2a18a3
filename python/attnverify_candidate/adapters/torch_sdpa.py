"""PyTorch's torch.nn.functional.scaled_dot_product_attention as a candidate, so anyone
with PyTorch has a working one (attention in every layout, and mla_decode).

    [candidate]
    command = ["python3", "-m", "attnverify_candidate.adapters.torch_sdpa", "{cases}"]

Each sequence runs on its own: q [1, h_q, s_q, d], k and v [1, h_q, s_k, d] (kv heads
repeated for GQA; paged caches gathered through block_table up to the sequence's length;
mla_decode's V is the first head_dim_v channels of the cached rows), with attn_mask built
from the case's rules: bottom-right causal and window (PyTorch's own is_causal is
top-left, so it is never used), keys past seqlens_k masked, ALiBi as an additive float
mask. SDPA returns no LSE: lse is torch.logsumexp of the same scaled, masked scores in
float32 (an empty row gets the case's empty_lse; lse_log2 divides by ln 2). A row that
sees no key (a causal query row past a short sequence, or an empty sequence) gets o = 0, the FlashAttention
convention the reference keeps; SDPA itself gives NaN there. Not mapped:
softcap and the sink (SDPA has neither). Device: $ATTNVERIFY_DEVICE, else cuda when
torch.cuda.is_available(), else cpu.
"""
import math
import os
import sys

import numpy as np

from attnverify_candidate.adapters import _common as c


def _visible(case, s_q, s_k, length):
    i = np.arange(s_q)[:, None] + length - s_q  # bottom-right: row i at key position
    j = np.arange(s_k)[None, :]
    left = int(case.op_param("window_left", -1))
    right = 0 if case.op_param("causal", False) else int(case.op_param("window_right", -1))
    ok = np.broadcast_to(j < length, (s_q, s_k)).copy()
    if right >= 0:
        ok &= j <= i + right
    if left >= 0:
        ok &= j >= i - left
    return ok, np.abs(i - j)


def _sequences(case, x):
    """(q [s_q, h_q, d], k [s_k, h_kv, d], v [s_k, h_kv, dv], alibi [h_q] or None) per
    sequence, and how to put the outputs back ("batched" or "varlen")."""
    q = x.numpy("q")
    alibi = x.numpy("alibi_slopes") if x.has("alibi_slopes") else None

    def slopes(bi):
        if alibi is None:
            return None
        return alibi[bi] if alibi.ndim == 2 else alibi

    seqs = []
    if case.op == "mla_decode" or x.has("k_cache"):
        kc = x.numpy("k_cache")
        if case.op == "mla_decode":
            vc = kc[..., :case.op_param("head_dim_v", 512)]
        else:
            vc = x.numpy("v_cache")
        table = x.numpy("block_table")
        lengths = x.numpy("cache_seqlens" if case.op == "mla_decode" else "seqlens_k")
        page = kc.shape[1]
        for bi in range(q.shape[0]):
            n = int(lengths[bi])
            blocks = table[bi, :(n + page - 1) // page].astype(np.int64)
            k = kc[blocks].reshape(-1, *kc.shape[2:])[:n]
            v = vc[blocks].reshape(-1, *vc.shape[2:])[:n]
            seqs.append((q[bi], k, v, slopes(bi)))
        return seqs, "batched"
    k, v = x.numpy("k"), x.numpy("v")
    if x.has("cu_seqlens_q"):
        cq, ck = x.numpy("cu_seqlens_q"), x.numpy("cu_seqlens_k")
        lengths = x.numpy("seqlens_k") if x.has("seqlens_k") else np.diff(ck)
        for bi in range(len(cq) - 1):
            seqs.append((q[cq[bi]:cq[bi + 1]], k[ck[bi]:ck[bi] + int(lengths[bi])],
                         v[ck[bi]:ck[bi] + int(lengths[bi])], slopes(bi)))
        return seqs, "varlen"
    lengths = x.numpy("seqlens_k") if x.has("seqlens_k") else [k.shape[1]] * q.shape[0]
    for bi in range(q.shape[0]):
        n = int(lengths[bi])
        seqs.append((q[bi], k[bi, :n], v[bi, :n], slopes(bi)))
    return seqs, "batched"


def run_case(case, device=None):
    if case.op not in ("attention", "mla_decode"):
        raise c.unsupported(case, "torch_sdpa", "this op (it runs attention and mla_decode)")
    if case.op_param("softcap", 0) != 0:
        raise c.unsupported(case, "torch_sdpa", "softcap (SDPA has none)")
    torch = c.torch_module()
    if device is None or (device == "cuda" and "ATTNVERIFY_DEVICE" not in os.environ
                          and not torch.cuda.is_available()):
        device = "cuda" if torch.cuda.is_available() else "cpu"
    x = c.CaseTensors(case, device)
    if x.has("sink"):
        raise c.unsupported(case, "torch_sdpa", "a sink (SDPA has none)")
    dt = c.torch_dtype(torch, case.spec["inputs"]["q"]["dtype"])
    sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if sdpa is None:
        raise c.AdapterError("torch %s has no scaled_dot_product_attention (PyTorch 2.0 and "
                             "later: pip install -U torch)" % getattr(torch, "__version__", "?"))
    seqs, form = _sequences(case, x)
    d = seqs[0][0].shape[-1]
    scale = case.op_param("scale", None)
    s = float(scale) if scale is not None else 1 / math.sqrt(d)
    empty = case.op_params.get("empty_lse", "+inf" if case.op == "mla_decode" else "-inf")
    os_, lses = [], []
    for q, k, v, alibi in seqs:
        s_q, h_q, _ = q.shape
        group = h_q // k.shape[1]
        k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
        if k.shape[0] == 0:  # an empty sequence: no key to attend, nothing to call SDPA on
            os_.append(np.zeros((s_q, h_q, v.shape[-1]), np.float32))
            lses.append(np.full((h_q, s_q), float(empty), np.float32))
            continue
        ok, dist = _visible(case, s_q, k.shape[0], k.shape[0])
        bias = np.where(ok, 0.0, -np.inf)[None]
        if alibi is not None:
            bias = np.where(ok, -np.asarray(alibi, np.float64)[:, None, None] * dist, -np.inf)
        bias = np.broadcast_to(bias, (h_q, s_q, k.shape[0])).astype(np.float32)[None]

        def tt(a, dtype=dt):  # [s, h, d] -> [1, h, s, d] on the device
            a = np.ascontiguousarray(a.transpose(1, 0, 2)[None], np.float32)
            return torch.from_numpy(a).to(device).to(dtype)

        qt, kt, vt = tt(q), tt(k), tt(v)
        mask = (torch.from_numpy(np.ascontiguousarray(bias)).to(device) if alibi is not None
                else torch.from_numpy(np.ascontiguousarray(np.isfinite(bias))).to(device))
        o = c.call(sdpa, "scaled_dot_product_attention", (qt, kt, vt),
                   {"attn_mask": mask, "dropout_p": 0.0, "is_causal": False, "scale": scale},
                   {"scale": None})
        scores = torch.matmul(qt.float(), kt.float().transpose(-2, -1)) * s
        lse = c.to_numpy(torch.logsumexp(scores + torch.from_numpy(bias).to(device), dim=-1))[0]
        lse = np.where(np.isneginf(lse), float(empty), lse)
        if case.op_param("lse_log2", False):
            lse = lse / math.log(2)
        o = c.to_numpy(o)[0].transpose(1, 0, 2)  # [s_q, h_q, dv]
        # A row that sees no key: SDPA gives NaN, the convention (FlashAttention's) is 0.
        o = np.where(ok.any(axis=-1)[:, None, None], o, 0).astype(o.dtype)
        os_.append(o)
        lses.append(lse)  # [h_q, s_q]
    if form == "varlen":
        outs = {"o": np.concatenate(os_, axis=0), "lse": np.concatenate(lses, axis=1)}
    else:
        outs = {"o": np.stack(os_), "lse": np.stack(lses)}
    entry = "scaled_dot_product_attention"
    meta = {"adapter": "torch_sdpa", "library": "torch", "entry": entry, "kernel_path": entry,
            "library_version": str(getattr(torch, "__version__", "unknown")), "device": str(device),
            "lse": "torch.logsumexp of the masked scores (SDPA returns none)"}
    return outs, meta


def main(argv=None):
    return c.main(lambda case, device: run_case(case, None if "ATTNVERIFY_DEVICE" not in os.environ
                                                  else device), "torch_sdpa", argv)


if __name__ == "__main__":
    sys.exit(main())
