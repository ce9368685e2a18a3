import pytest
import torch


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_new_kernel():
    assert torch.ones(2).sum() == 2
