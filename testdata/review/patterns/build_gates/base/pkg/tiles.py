# Synthetic fixture for the build-gate rules (written for review_patterns_test.cc).
import torch


def quant_blocks(q, k):
    return quantize(q, k, 64, 64)


def prepare(q, k):
    headdim = q.size(-1)
    q8, k8 = quant_blocks(q, k)
    return q8, k8, headdim
