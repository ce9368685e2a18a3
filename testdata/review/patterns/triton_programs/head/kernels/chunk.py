# Synthetic fixture: Triton program ids and block pointers.
import triton
import triton.language as tl


@triton.jit
def _chunk_kernel(K, O, T, K_DIM: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr):
    i_t = tl.program_id(1)
    i_bh = tl.program_id(0)
    p_k = tl.make_block_ptr(K + i_bh * T * K_DIM, (K_DIM, T), (1, K_DIM), (0, i_t * BT), (BK, BT), (0, 1))
    b_k = tl.load(p_k, boundary_check=(0, 1))
    tl.store(O + i_bh * T + i_t * BT + tl.arange(0, BT), tl.sum(b_k, 0))


@triton.jit
def _scale_kernel(X, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)


def chunk(k, o, T, K, BT, BK, B, H):
    grid = (B * H, triton.cdiv(T, BT))
    _chunk_kernel[grid](k, o, T, K, BT, BK)
