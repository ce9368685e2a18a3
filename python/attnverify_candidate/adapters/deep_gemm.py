"""DeepGEMM (pip package deep_gemm, github.com/deepseek-ai/DeepGEMM) as a candidate for
fp8_gemm cases.

    [candidate]
    command = ["python3", "-m", "attnverify_candidate.adapters.deep_gemm", "{cases}"]

The entry point is found by introspection and recorded in the metadata ("entry"):
  plain      fp8_gemm_nt((a, sa), (b, sb), d)   [2025-07 on; fp8_fp4_gemm_nt's alias later]
             gemm_fp8_fp8_bf16_nt((a, sa), (b, sb), d)                     [before]
  contiguous m_grouped_fp8_gemm_nt_contiguous((a, sa), (b, sb), d, m_indices)
             m_grouped_gemm_fp8_fp8_bf16_nt_contiguous(lhs, rhs, out, m_indices)
  masked     m_grouped_fp8_gemm_nt_masked((a, sa), (b, sb), d, masked_m, expected_m)
             m_grouped_gemm_fp8_fp8_bf16_nt_masked(lhs, rhs, out, masked_m, expected_m)
Scales are passed as the float32 tensors attnverify generates: sa per token and 128
channels [m, ceil(k/128)] (1x128), sb per 128x128 block [ceil(n/128), ceil(k/128)];
DeepGEMM itself moves them into the TMA-aligned (and, on SM100, UE8M0-packed) layout it
needs. A case with ue8m0=true has power-of-two scales, which that packing keeps exactly;
with ue8m0=false on SM100 the packing rounds the scales and the comparison shows it.
The output d is bf16, allocated here ([m, n], [m_sum, n] or [groups, max_m, n]).
"""
import sys

from attnverify_candidate.adapters import _common as c

PIP = "deep_gemm (build it from github.com/deepseek-ai/DeepGEMM: ./install.sh)"

ENTRIES = {
    "plain": ("fp8_gemm_nt", "gemm_fp8_fp8_bf16_nt"),
    "contiguous": ("m_grouped_fp8_gemm_nt_contiguous", "m_grouped_gemm_fp8_fp8_bf16_nt_contiguous"),
    "masked": ("m_grouped_fp8_gemm_nt_masked", "m_grouped_gemm_fp8_fp8_bf16_nt_masked"),
}


def library():
    return c.import_library("deep_gemm", PIP, "the deep_gemm adapter calls DeepGEMM")


def entry(dg, form):
    """(name, function) of the installed entry point for form plain/contiguous/masked."""
    for name in ENTRIES[form]:
        fn = getattr(dg, name, None)
        if fn is not None:
            return name, fn
    raise c.AdapterError("deep_gemm %s has none of %s" % (c.library_version(dg, "deep_gemm"),
                                                        ", ".join(ENTRIES[form])))


def run_case(case, device):
    if case.op != "fp8_gemm":
        raise c.unsupported(case, "deep_gemm", "this op (it runs fp8_gemm)")
    dg = library()
    x = c.CaseTensors(case, device)
    torch = x.torch
    a, sa, b, sb = x.get("a"), x.get("sa", "f32"), x.get("b"), x.get("sb", "f32")
    n = b.shape[-2]
    if x.has("m_indices"):
        form = "contiguous"
        extra = (x.get("m_indices", "i32"),)
        shape = (a.shape[0], n)
    elif x.has("masked_m"):
        form = "masked"
        masked = x.numpy("masked_m")
        extra = (x.get("masked_m", "i32"), int(max(int(masked.max()) if masked.size else 0, 1)))
        shape = (a.shape[0], a.shape[1], n)
    else:
        form = "plain"
        extra = ()
        shape = (a.shape[0], n)
    name, fn = entry(dg, form)
    d = torch.zeros(shape, dtype=torch.bfloat16, device=device)
    fn((a, sa), (b, sb), d, *extra)
    meta = {"adapter": "deep_gemm", "library": "deep_gemm",
            "library_version": c.library_version(dg, "deep_gemm"), "entry": name,
            "kernel_path": name, "form": form,
            "scales": "sa 1x128 f32, sb 128x128 f32" +
                      (" (powers of two: ue8m0)" if case.op_param("ue8m0", False) else "")}
    return {"d": c.to_numpy(d)}, meta


if __name__ == "__main__":
    sys.exit(c.main(run_case, "deep_gemm"))
