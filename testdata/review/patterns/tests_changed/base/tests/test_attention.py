import pytest
import torch

from kernels import attention, reference


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("B, H, T, D", [
    (2, 4, 2048, 64),
    (2, 4, 4000, 32),
    (1, 2, 8192, 128),
])
def test_forward(B, H, T, D, dtype):
    q = torch.randn(B, H, T, D, dtype=dtype, device="cuda")
    out = attention(q, q, q)
    ref = reference(q, q, q)
    torch.testing.assert_close(out, ref, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("B, H, T, D", [
    (2, 4, 2048, 64),
    (2, 4, 4000, 32),
])
def test_backward(B, H, T, D, causal):
    q = torch.randn(B, H, T, D, device="cuda", requires_grad=True)
    out = attention(q, q, q, causal=causal)
    out.sum().backward()
    assert q.grad is not None
    torch.testing.assert_close(q.grad, reference(q, q, q, causal=causal, grad=True))
    assert (out - reference(q, q, q, causal=causal)).abs().max() < 0.02
