"""The stand-ins have exactly the recorded signatures, and the adapters pick the entry
point each recorded version has."""
import inspect

import pytest

from conftest import REAL_TORCH
from signatures import DEEP_GEMM, FLASH_ATTN, FLASH_MLA

pytestmark = pytest.mark.skipif(REAL_TORCH, reason="the library stand-ins run on the torch stand-in")


def _recorded(sig):
    out = []
    for p in sig.parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            out.append("*" + p.name)
        elif p.kind == p.VAR_KEYWORD:
            out.append("**" + p.name)
        elif p.default is p.empty:
            out.append(p.name)
        else:
            out.append("%s=%r" % (p.name, p.default))
    return out


@pytest.mark.parametrize("table,maker", [(FLASH_MLA, "flash_mla"), (DEEP_GEMM, "deep_gemm"),
                                         (FLASH_ATTN, "flash_attn")])
def test_standins_have_the_recorded_signatures(table, maker):
    from standins import libs
    for version, functions in table.items():
        mod = getattr(libs, maker)(version)
        for name, params in functions.items():
            assert _recorded(inspect.signature(getattr(mod, name))) == params, (version, name)


def test_flash_mla_generation_is_read_from_get_mla_metadata():
    from standins import libs
    from attnverify_candidate.adapters import flash_mla
    gens = {v: flash_mla.api_generation(libs.flash_mla(v)) for v in FLASH_MLA}
    assert gens == {"2025-02 (first release)": "tile_scheduler_metadata",
                    "2025-09 (sparse and fp8 kernels)": "tile_scheduler_metadata",
                    "1.0 (2026-01)": "sched_meta"}


def test_deep_gemm_entry_point_per_version():
    from standins import libs
    from attnverify_candidate.adapters import deep_gemm
    old, new = (libs.deep_gemm(v) for v in DEEP_GEMM)
    assert deep_gemm.entry(old, "plain")[0] == "gemm_fp8_fp8_bf16_nt"
    assert deep_gemm.entry(new, "plain")[0] == "fp8_gemm_nt"
    assert deep_gemm.entry(old, "masked")[0] == "m_grouped_gemm_fp8_fp8_bf16_nt_masked"
    assert deep_gemm.entry(new, "contiguous")[0] == "m_grouped_fp8_gemm_nt_contiguous"
