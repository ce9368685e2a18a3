# Synthetic fixture: the guards of Triton loads and stores.
import triton
import triton.language as tl


@triton.jit
def _row_max_kernel(X, Y, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=0.0)
    m = tl.max(x, axis=0)
    tl.store(Y + row, m)


@triton.jit
def _row_copy_kernel(X, Y, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols)
    y = tl.load(
        Y + row * stride + cols,
        mask=cols < n_cols,
        other=0.0,
    )
    tl.store(Y + row * stride + cols, x + y, mask=cols < n_cols)
