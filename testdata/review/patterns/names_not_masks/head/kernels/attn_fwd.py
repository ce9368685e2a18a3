# Synthetic fixture (round 11): a Triton attention forward with a causal loop bound.
import triton
import triton.language as tl


@triton.jit
def _attn_fwd(Q, K, Out, N_CTX, CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        s = tl.load(K + offs_n)
        in_range = offs_n[None, :] < N_CTX
        if CAUSAL:
            s = tl.where((offs_m[:, None] >= offs_n[None, :]) & in_range, s, float("-inf"))
        m_i = tl.maximum(m_i, tl.max(s, 1))
    tl.store(Out + offs_m, m_i)


def attn_fwd(q, k, causal):
    out = q.new_empty(q.shape[0])
    _attn_fwd[(1,)](q, k, out, q.shape[0], causal, 64, 64)
    return out


def conv_then_attn(x, k, conv_mod):
    y = conv_mod.causal_conv1d_fwd(reorder_strided(x), k)
    return attn_fwd(y, k, True)


if __name__ == "__main__":
    import torch
    q = torch.randn(128, device="cuda")
    attn_fwd(
        q,
        q,
        causal=True,
    )
