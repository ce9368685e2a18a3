import pytest
import torch

from kernels import quantize, dequantize


@pytest.mark.parametrize("group", [32, 64, 128, 256])
def test_round_trip_error(group):
    x = torch.randn(512, 512)
    err = (dequantize(quantize(x, group), group) - x).abs().mean()
    if group <= 32:
        assert err < 0.05
    elif group <= 128:
        assert err < 0.06
    else:
        assert err < 0.08
