"""Candidates that call real kernel libraries: one module per library, each with
run_case(case, device) -> (outputs, metadata) and a runner:

    python3 -m attnverify_candidate.adapters.flash_mla  WORK/cases.json   # FlashMLA
    python3 -m attnverify_candidate.adapters.deep_gemm  WORK/cases.json   # DeepGEMM
    python3 -m attnverify_candidate.adapters.flash_attn WORK/cases.json   # flash-attention
    python3 -m attnverify_candidate.adapters.torch_sdpa WORK/cases.json   # PyTorch SDPA

The device is $ATTNVERIFY_DEVICE (default cuda; torch_sdpa: cuda when available, else
cpu). doc/python.md lists what each maps and the [candidate] block for it.
"""
import importlib

NAMES = ("flash_mla", "deep_gemm", "flash_attn", "torch_sdpa")


def get(name):
    """The adapter module called `name`; ValueError naming the adapters otherwise."""
    if name not in NAMES:
        raise ValueError("no adapter %r (adapters: %s)" % (name, ", ".join(NAMES)))
    return importlib.import_module("attnverify_candidate.adapters." + name)
