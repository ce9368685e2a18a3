"""The workflow's test file, written the way a kernel project would: one test over the
sweep's attention cases, the kernel being PyTorch's SDPA through attnverify's adapter.

    python -m pytest -q testdata/python/test_main_attention.py \
        --shapes testdata/python/shapes.json --tolerances testdata/python/tolerances.json

ATTNVERIFY_TEST_BUG=drop_last_key plants a bug (the last visible key of every row is
left out), so the plugin's failure message can be seen."""
import os

import numpy as np
import pytest

from attnverify_candidate.adapters import torch_sdpa


def test_main_attention(av_case):
    if av_case.op not in ("attention", "mla_decode"):
        pytest.skip("%s is not an attention op" % av_case.op)
    outputs, metadata = torch_sdpa.run_case(av_case, "cpu")
    if os.environ.get("ATTNVERIFY_TEST_BUG") == "drop_last_key":
        outputs["o"] = np.asarray(outputs["o"]) * 0.97
    av_case.check(outputs, metadata)
