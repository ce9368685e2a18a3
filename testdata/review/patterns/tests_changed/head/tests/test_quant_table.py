import pytest
import torch

from kernels import quantize, dequantize

# Mean errors measured over many seeds, per group size.
EXPECTED_ERROR = {32: 0.041, 64: 0.047, 128: 0.052, 256: 0.066}


@pytest.mark.parametrize("group", [32, 64, 128, 256])
def test_round_trip_error(group):
    x = torch.randn(512, 512)
    err = (dequantize(quantize(x, group), group) - x).abs().mean()
    assert err < EXPECTED_ERROR[group] + 1e-3
