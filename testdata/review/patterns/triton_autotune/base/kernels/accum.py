# Synthetic fixture: autotune added to kernels that accumulate into their output.
import triton
import triton.language as tl


@triton.jit
def _accum_kernel(X, O, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    o = tl.load(O + offs, mask=offs < n)
    tl.store(O + offs, o + tl.load(X + offs, mask=offs < n), mask=offs < n)


@triton.jit
def _accum_safe_kernel(X, O, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    o = tl.load(O + offs, mask=offs < n)
    tl.store(O + offs, o + tl.load(X + offs, mask=offs < n), mask=offs < n)
