import triton
import triton.language as tl


@triton.jit
def _norm_fwd(X, Y, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(Y + row * stride + cols, x / tl.sum(x * x, axis=0), mask=cols < n_cols)


@triton.jit
def _norm_fwd_blocked(X, Y, stride, n_rows, n_cols, BLOCK_ROW: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_ROW + tl.arange(0, BLOCK_ROW)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(X + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    tl.store(Y + rows[:, None] * stride + cols[None, :], x, mask=mask)
