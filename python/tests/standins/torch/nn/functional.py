"""scaled_dot_product_attention with PyTorch's documented signature and semantics:
[..., L, E] x [..., S, E]; is_causal is top-left (tril of ones(L, S)); a boolean mask
keeps True, a float mask is added; output in the query's dtype."""
import math

import numpy as np

import torch as _torch


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    q, k, v = (t._a.astype(np.float64) for t in (query, key, value))
    s = (q @ np.swapaxes(k, -1, -2)) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if is_causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    if attn_mask is not None:
        m = attn_mask._a
        s = np.where(m, s, -np.inf) if m.dtype == np.bool_ else s + m
    with np.errstate(invalid="ignore"):
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
    return _torch.Tensor(np.asarray(p @ v, np.float32), query.dtype, query.device).to(query.dtype)
