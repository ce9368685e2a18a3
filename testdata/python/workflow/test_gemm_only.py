"""A project's test that handles one op of init's default sweep (gemm, in numpy) and skips
the others, as a kernel project with one GEMM kernel would write it.

ATTNVERIFY_TEST_MODE=marker selects the op with the plugin's marker instead of skipping;
ATTNVERIFY_TEST_MODE=wrong plants a bug (the last column is zeroed)."""
import os

import numpy as np
import pytest

MODE = os.environ.get("ATTNVERIFY_TEST_MODE", "skip")


def _gemm(av_case):
    x = av_case.inputs()
    d = np.asarray(x["a"], dtype=np.float32) @ np.asarray(x["b"], dtype=np.float32).T
    if MODE == "wrong":
        d[:, -1] = 0
    return {"d": d}


if MODE == "marker":
    @pytest.mark.attnverify(op="gemm")
    def test_gemm(av_case):
        av_case.check(_gemm(av_case))
else:
    def test_gemm(av_case):
        if av_case.op != "gemm":
            pytest.skip("%s is not this project's kernel" % av_case.op)
        av_case.check(_gemm(av_case))
