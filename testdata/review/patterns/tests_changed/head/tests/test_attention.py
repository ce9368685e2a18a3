import pytest
import torch

from kernels import attention, reference


@pytest.mark.parametrize("dtype", [torch.float16])
@pytest.mark.parametrize("B, H, T, D", [
    (2, 4, 2048, 64),
    (2, 4, 4000, 64),
    (1, 2, 8192, 128),
])
def test_forward(B, H, T, D, dtype):
    q = torch.randn(B, H, T, D, dtype=dtype, device="cuda")
    out = attention(q, q, q)
    ref = reference(q, q, q)
    torch.testing.assert_close(out, ref, atol=1e-2, rtol=1e-3)


@pytest.mark.skipif(torch.cuda.get_device_capability()[0] < 9, reason="sm90 only")
@pytest.mark.parametrize("causal", [False, True, None])
@pytest.mark.parametrize("B, H, T, D", [
    (2, 4, 2048, 64),
    (2, 4, 4000, 64),
])
def test_backward(B, H, T, D, causal):
    q = torch.randn(B, H, T, D, device="cuda", requires_grad=True)
    out = attention(q, q, q, causal=causal)
    out.sum().backward()
    assert q.grad is not None
    assert (out - reference(q, q, q, causal=causal)).abs().max() < 0.01


@pytest.mark.skip(reason="needs sm100")
@pytest.mark.parametrize(
    "shape",
    [
        (1, 1, 128, 64),
        (1, 2, 256, 64),
        (2, 2, 512, 128),
        (2, 4, 1024, 128),
        (4, 4, 2048, 128),
        (4, 8, 4096, 256),
    ],
)
def test_sm100_only(shape):
    assert attention is not None
