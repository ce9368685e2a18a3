#!/usr/bin/env python3
"""Independent cross-check data for attnverify's comparison rules and metrics.

Writes cases under OUTDIR/<case>/ (cand.npy, ref.npy, optional low.npy) and
OUTDIR/expected.json. Every metric is computed here with numpy in float64 (math.fsum
for exactly rounded sums); every verdict with the anchor's own formula, written from
its documented behaviour:
  allclose          torch.testing.assert_close itself when torch is importable
                    (check_dtype=False), else |a-e| <= atol + rtol*|e| in float64
  flashmla          FlashMLA check_is_allclose: cast to float32, anomaly positions must
                    match and are zeroed, element passes if abs < atol or
                    abs/(|ref|+1e-6) < rtol (float32), |cos_diff| <= tol (float64,
                    0 when sum(ref^2) < 1e-12)
  cos_diff          DeepGEMM calc_diff < tol, over positions both finite after the gate
  lowprec_multiple  max|a-r| <= k * max|low-r| + atol
Usage: crosscheck.py OUTDIR   (prints "torch" or "numpy" as the allclose oracle)
"""
import json
import math
import os
import sys

import numpy as np

try:
    import torch
except Exception:  # torch is optional; the numpy formula stands in
    torch = None

TORCH_TOL = {np.float16: (1e-3, 1e-5), np.float32: (1.3e-6, 1e-5), np.float64: (1e-7, 1e-7)}


def metrics(a, r):
    a = a.astype(np.float64).ravel()
    r = r.astype(np.float64).ravel()
    keep = np.isfinite(a) & np.isfinite(r)
    a, r = a[keep], r[keep]
    d = a - r
    n = a.size
    if n == 0:
        return dict(compared=0, max_abs=0.0, max_rel=0.0, mean_abs=0.0, rmse=0.0, cos_diff=0.0, nmse=0.0)
    ad = np.abs(d)
    sq = math.fsum(d * d)
    aa, rr = math.fsum(a * a), math.fsum(r * r)
    return dict(
        compared=int(n),
        max_abs=float(ad.max()),
        max_rel=float((ad / (np.abs(r) + 1e-6)).max()),
        mean_abs=math.fsum(ad) / n,
        rmse=math.sqrt(sq / n),
        cos_diff=(sq / (aa + rr)) if aa + rr > 0 else 0.0,
        nmse=(sq / rr) if rr > 0 else (math.inf if sq > 0 else 0.0),
    )


def classes(x):
    x = x.astype(np.float64)
    return np.where(np.isnan(x), 1, np.where(np.isposinf(x), 2, np.where(np.isneginf(x), 3, 0)))


def gate_ok(a, r):
    return bool(np.array_equal(classes(a), classes(r)))


def allclose(a, r, rtol, atol):
    if torch is not None:
        try:
            torch.testing.assert_close(torch.from_numpy(a), torch.from_numpy(r), rtol=rtol, atol=atol,
                                       check_dtype=False)
            return True
        except AssertionError:
            return False
    a64, r64 = a.astype(np.float64), r.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = (a64 == r64) | (np.isfinite(np.abs(a64 - r64)) & (np.abs(a64 - r64) <= atol + np.abs(rtol * r64)))
    return bool(close.all())


def flashmla(a, r, atol, rtol, cos_tol):
    a = a.astype(np.float32).copy().ravel()
    r = r.astype(np.float32).copy().ravel()
    ok = True
    for kind in ("inf", "-inf", "nan"):
        if kind == "nan":
            am, rm = np.isnan(a), np.isnan(r)
        else:
            v = np.float32(kind)
            am, rm = a == v, r == v
        ok &= bool(np.array_equal(am, rm))
        a[am] = 0
        r[rm] = 0
    a64, r64 = a.astype(np.float64), r.astype(np.float64)
    rr = math.fsum(r64 * r64)
    cos = 0.0 if rr < 1e-12 else math.fsum((a64 - r64) ** 2) / (rr + math.fsum(a64 * a64))
    with np.errstate(invalid="ignore", over="ignore"):
        abs_err = np.abs(a - r)
        rel_err = abs_err / (np.abs(r) + np.float32(1e-6))
        passed = (abs_err < np.float32(atol)) | (rel_err < np.float32(rtol))
    return ok and bool(passed.all()) and abs(cos) <= cos_tol


def cos_rule(a, r, tol):
    if not gate_ok(a, r):
        return False
    m = metrics(a, r)
    a64, r64 = a.astype(np.float64).ravel(), r.astype(np.float64).ravel()
    keep = np.isfinite(a64) & np.isfinite(r64)
    denom = math.fsum(a64[keep] ** 2) + math.fsum(r64[keep] ** 2)
    return denom > 0 and m["cos_diff"] < tol


def lowprec(a, r, low, k, atol):
    if not gate_ok(a, r) or not gate_ok(low, r):
        return False
    bound = k * metrics(low, r)["max_abs"] + atol
    return metrics(a, r)["max_abs"] <= bound


def make_cases(rng):
    cases = []
    shapes = [(7,), (3, 5), (2, 3, 4), (2, 2, 3, 9), (1,), (129,), (64, 65)]
    dtypes = [np.float16, np.float32, np.float64]
    for i in range(60):
        shape = shapes[i % len(shapes)]
        ref_dt = dtypes[(i // 7) % 3]
        cand_dt = dtypes[(i // 3) % 3]
        ref = rng.standard_normal(shape) * (10.0 ** rng.integers(-3, 3))
        ref = ref.astype(ref_dt)
        scale = 10.0 ** rng.uniform(-8, -1)
        cand = (ref.astype(np.float64) + rng.standard_normal(shape) * scale * np.abs(ref.astype(np.float64)).max())
        cand = cand.astype(cand_dt)
        low = (ref.astype(np.float64) + rng.standard_normal(shape) * scale * rng.uniform(0.2, 2)
               * np.abs(ref.astype(np.float64)).max()).astype(np.float32)
        kind = i % 6
        if kind == 1 and ref.size > 2:  # matching NaN and inf positions
            flat_r, flat_c, flat_l = ref.reshape(-1), cand.reshape(-1), low.reshape(-1)
            flat_r[0] = flat_c[0] = flat_l[0] = np.nan
            flat_r[-1] = flat_c[-1] = flat_l[-1] = -np.inf
        if kind == 2 and ref.size > 1:  # a NaN only in the candidate
            cand.reshape(-1)[ref.size // 2] = np.nan
        if kind == 3:  # tiny reference
            ref = (ref.astype(np.float64) * 1e-9).astype(np.float32)
            cand = (-ref.astype(np.float64)).astype(np.float32)
            low = ref.copy()
        cases.append((f"case{i:02d}", cand, ref, low))
    zero = np.zeros((4, 4), np.float32)
    cases.append(("all_zero", zero, zero.copy(), zero.copy()))
    return cases


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(1234567)
    expected = {"allclose_oracle": "torch" if torch is not None else "numpy", "cases": []}
    for name, cand, ref, low in make_cases(rng):
        os.makedirs(os.path.join(out, name), exist_ok=True)
        np.save(os.path.join(out, name, "cand.npy"), cand)
        np.save(os.path.join(out, name, "ref.npy"), ref)
        np.save(os.path.join(out, name, "low.npy"), low)
        rt = max(TORCH_TOL[cand.dtype.type][0], TORCH_TOL[ref.dtype.type][0])
        at = max(TORCH_TOL[cand.dtype.type][1], TORCH_TOL[ref.dtype.type][1])
        expected["cases"].append({
            "name": name,
            "metrics": metrics(cand, ref),
            "verdicts": {
                "allclose": allclose(cand, ref, rt, at),
                "allclose_loose": allclose(cand, ref, 1e-2, 1e-3),
                "flashmla": flashmla(cand, ref, 1e-5, 1e-2, 1e-7),
                "flashmla_loose": flashmla(cand, ref, 1e-3, 5e-2, 1e-4),
                "cos_diff": cos_rule(cand, ref, 1e-3),
                "cos_diff_tight": cos_rule(cand, ref, 1e-9),
                "lowprec_multiple": lowprec(cand, ref, low, 2.0, 0.0),
            },
        })
    for case in expected["cases"]:  # JSON has no infinity: write it as a string
        case["metrics"] = {k: ("inf" if v == math.inf else v) for k, v in case["metrics"].items()}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    print(expected["allclose_oracle"])


if __name__ == "__main__":
    main()
