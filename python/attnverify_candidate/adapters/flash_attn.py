"""flash-attention 2 (pip package flash-attn, github.com/Dao-AILab/flash-attention) as a
candidate for attention cases.

    [candidate]
    command = ["python3", "-m", "attnverify_candidate.adapters.flash_attn", "{cases}"]

  batched  flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=, causal=, window_size=,
           softcap=, alibi_slopes=, return_attn_probs=True) -> (out, softmax_lse, _)
  varlen   flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
           max_seqlen_k, ...same keywords...) -> (out, softmax_lse [h_q, total_q], _)
  paged, or batched with seqlens_k or a num_splits knob
           flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=, block_table=,
           softmax_scale=, causal=, window_size=, softcap=, alibi_slopes=, num_splits=,
           return_softmax_lse=True) -> (out, softmax_lse)
Causal is bottom-right in flash-attention since 2.1, as in attnverify. Keywords the
installed version lacks (window_size before 2.3, alibi_slopes before 2.4, softcap before
2.6, return_softmax_lse before 2.6) are dropped when the case does not need them and an
error naming the version when it does. Not mapped: the sink (flash-attention 2 has none),
lse_log2, varlen with seqlens_k (seqused_k is flash-attention 3's). A row that sees no
key gets LSE +inf from flash-attention; the adapter writes the case's empty_lse there.
"""
import math
import sys

import numpy as np

from attnverify_candidate.adapters import _common as c

PIP = "flash-attn (pip install flash-attn --no-build-isolation)"
DEFAULTS = {"window_size": (-1, -1), "softcap": 0.0, "alibi_slopes": None, "num_splits": 0,
            "deterministic": False}


def library():
    return c.import_library("flash_attn", PIP, "the flash_attn adapter calls flash-attention")


def _keywords(case, x, d):
    if x.has("sink"):
        raise c.unsupported(case, "flash_attn", "a sink (flash-attention 2 has no attn_sink)")
    if case.op_param("lse_log2", False):
        raise c.unsupported(case, "flash_attn", "lse_log2 (flash-attention returns ln)")
    kw = {"softmax_scale": float(case.op_param("scale", 1 / math.sqrt(d))),
          "causal": bool(case.op_param("causal", False)),
          "window_size": (int(case.op_param("window_left", -1)),
                          int(case.op_param("window_right", -1))),
          "softcap": float(case.op_param("softcap", 0.0)),
          "alibi_slopes": x.get("alibi_slopes", "f32") if x.has("alibi_slopes") else None}
    return kw


def run_case(case, device):
    if case.op != "attention":
        raise c.unsupported(case, "flash_attn", "this op (it runs attention)")
    fa = library()
    x = c.CaseTensors(case, device)
    q = x.get("q")
    kw = _keywords(case, x, q.shape[-1])
    splits = int(case.knob("num_splits", 0) or 0)
    if x.has("cu_seqlens_q"):
        if x.has("seqlens_k"):
            raise c.unsupported(case, "flash_attn", "varlen with seqlens_k (FA2 has no seqused_k)")
        cq, ck = x.numpy("cu_seqlens_q"), x.numpy("cu_seqlens_k")
        args = (q, x.get("k"), x.get("v"), x.get("cu_seqlens_q", "i32"), x.get("cu_seqlens_k", "i32"),
                int(np.diff(cq).max()) if len(cq) > 1 else 0,
                int(np.diff(ck).max()) if len(ck) > 1 else 0)
        out, lse, _ = c.call(fa.flash_attn_varlen_func, "flash_attn_varlen_func", args,
                             dict(kw, dropout_p=0.0, return_attn_probs=True), DEFAULTS)
        name = "flash_attn_varlen_func"
    elif x.has("k_cache") or x.has("seqlens_k") or splits > 1:
        paged = x.has("k_cache")
        k = x.get("k_cache" if paged else "k")
        v = x.get("v_cache" if paged else "v")
        if x.has("seqlens_k"):
            lengths = x.get("seqlens_k", "i32")
        else:
            torch = x.torch
            lengths = torch.from_numpy(np.full(q.shape[0], k.shape[1], np.int32)).to(device)
        kw.update(cache_seqlens=lengths, num_splits=splits, return_softmax_lse=True)
        if paged:
            kw["block_table"] = x.get("block_table", "i32")
        out, lse = c.call(fa.flash_attn_with_kvcache, "flash_attn_with_kvcache", (q, k, v), kw,
                          DEFAULTS)
        name = "flash_attn_with_kvcache"
    else:
        out, lse, _ = c.call(fa.flash_attn_func, "flash_attn_func", (q, x.get("k"), x.get("v")),
                             dict(kw, dropout_p=0.0, return_attn_probs=True), DEFAULTS)
        name = "flash_attn_func"
    meta = {"adapter": "flash_attn", "library": "flash_attn", "entry": name, "kernel_path": name,
            "library_version": c.library_version(fa, "flash-attn"),
            "num_splits": str(splits) if name == "flash_attn_with_kvcache" else "n/a"}
    # flash-attention writes +inf as the LSE of a row that sees no key (an empty sequence);
    # the case says what that row's LSE is (empty_lse, -inf for attention).
    lse = c.to_numpy(lse)
    empty = float(case.op_params.get("empty_lse", "-inf"))
    return {"o": c.to_numpy(out), "lse": np.where(np.isposinf(lse), empty, lse)}, meta


if __name__ == "__main__":
    sys.exit(c.main(run_case, "flash_attn"))
