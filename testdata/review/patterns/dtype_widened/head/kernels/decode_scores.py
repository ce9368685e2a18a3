# Synthetic fixture (round 11): a Triton decode-score kernel and its host buffer.
import torch
import triton
import triton.language as tl


@triton.jit
def _scores_kernel(Q, K, Out, in_dtype: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + offs_d)
    k = tl.load(K + offs_n[:, None] * D + offs_d[None, :])
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    score = tl.sum(q[None, :] * k, 1)
    score = score.to(tl.float32)
    acc += score
    tl.store(Out + offs_n, acc)


def scores(q, k):
    out = torch.empty((k.shape[0],), dtype=torch.float32, device=q.device)
    _scores_kernel[(1,)](q, k, out, tl.float16, k.shape[0], q.shape[0])
    return out


@triton.jit
def _norm_grad_kernel(DY, X, R, DW, in_dtype: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    dy = tl.load(DY + offs[:, None] * BLOCK + offs[None, :])
    x = tl.load(X + offs[:, None] * BLOCK + offs[None, :])
    r = tl.load(R + offs)
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    dw += tl.sum((dy * (x * r[:, None]).to(in_dtype)).to(tl.float32), 0)
    scale = tl.load(R + offs).to(tl.float32)
    tl.store(DW + offs, dw * scale)
