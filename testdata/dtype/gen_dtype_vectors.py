#!/usr/bin/env python3
"""Writes the golden conversion vectors for src/tensor/float_convert_test.cc.

Run once from the repository root:  python3 testdata/dtype/gen_dtype_vectors.py
Needs numpy (2.4.6 used) and ml_dtypes (0.6.0 used). README.md beside this script
describes the file layout. Expected codes come from the libraries wherever they round
correctly; where they do not (ml_dtypes rounds float64 through float32, so it can
double-round), they come from the exact integer reference `exact_encode` below, which
is itself checked against the libraries on every float32 input first.
"""

import math
import os
import struct
import sys

import ml_dtypes
import numpy as np

OUT = os.path.dirname(os.path.abspath(__file__))


class Fmt:
    def __init__(self, name, np_type, ebits, mbits, has_inf, max_code, qnan):
        self.name, self.np_type = name, np_type
        self.ebits, self.mbits, self.has_inf = ebits, mbits, has_inf
        self.bias = (1 << (ebits - 1)) - 1
        self.max_code, self.qnan = max_code, qnan  # magnitudes (sign bit clear)
        self.sign = 1 << (ebits + mbits)
        self.uint = np.uint16 if ebits + mbits == 15 else np.uint8


FORMATS = [
    Fmt("f16", np.float16, 5, 10, True, 0x7BFF, 0x7E00),
    Fmt("bf16", ml_dtypes.bfloat16, 8, 7, True, 0x7F7F, 0x7FC0),
    Fmt("f8_e4m3fn", ml_dtypes.float8_e4m3fn, 4, 3, False, 0x7E, 0x7F),
    Fmt("f8_e5m2", ml_dtypes.float8_e5m2, 5, 2, True, 0x7B, 0x7E),
]


def exact_encode(x, f):
    """Round the Python float (a double) x to format f once, ties to even, in integers."""
    sign = f.sign if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        return sign | f.qnan
    if math.isinf(x):
        return sign | (f.max_code + 1 if f.has_inf else f.qnan)
    num, den = abs(x).as_integer_ratio()  # den is a power of two
    if num == 0:
        return sign
    e = num.bit_length() - den.bit_length()  # 2^e <= |x| < 2^(e+1), as den = 2^k
    e = max(e, 1 - f.bias)
    shift = e - f.mbits  # quantum is 2^shift; r = |x| / quantum, rounded
    n, d = (num, den << shift) if shift >= 0 else (num << -shift, den)
    r, rem = divmod(n, d)
    if 2 * rem > d or (2 * rem == d and r & 1):
        r += 1
    code = ((e + f.bias - 1) << f.mbits) + r  # r == 2^mbits carries into the exponent
    if code > f.max_code:
        code = f.max_code + 1 if f.has_inf else f.qnan
    return sign | code


def is_nan_code(c, f):
    m = c & (f.sign - 1)
    if f.has_inf:
        return (m >> f.mbits) == (1 << f.ebits) - 1 and (m & ((1 << f.mbits) - 1)) != 0
    return m == f.qnan


def same_code(a, b, f):
    """Equal codes, or both NaN with the same sign (NaN payloads differ between libraries)."""
    if is_nan_code(a, f) or is_nan_code(b, f):
        return is_nan_code(a, f) and is_nan_code(b, f) and (a & f.sign) == (b & f.sign)
    return a == b


def lib_encode(values, f):
    """The library's codes for an array of float32 or float64 inputs."""
    with np.errstate(all="ignore"):
        return values.astype(f.np_type).view(f.uint).astype(np.uint32)


def f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def positive_values(f):
    """Every finite positive value of f, as float64, in code order."""
    codes = np.arange(f.max_code + 1, dtype=f.uint)
    return codes.view(f.np_type).astype(np.float64)


def f32_inputs(f):
    """Sweep (positive only; the test mirrors each record) plus special values."""
    vals = positive_values(f)
    top = math.ldexp(1.0, int(math.floor(math.log2(vals[-1]))) - f.mbits)  # ulp at max
    upper = np.append(vals[1:], vals[-1] + top)  # the would-be value above max
    mids = (vals + upper) / 2  # exact in float64 and in float32 for all four formats
    assert np.all(mids.astype(np.float32).astype(np.float64) == mids)
    m32 = mids.astype(np.float32)
    below = np.nextafter(m32, np.float32(0))
    above = np.nextafter(m32, np.float32(np.inf))
    sweep = np.concatenate([vals.astype(np.float32), m32, below, above]).view(np.uint32)
    specials = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                0x7F800001, 0xFFFFFFFF, 0x7F7FFFFF, 0xFF7FFFFF,  # NaNs (incl. signalling), FLT_MAX
                0x00000001, 0x80000001, 0x00000002, 0x00007FFF, 0x00008000, 0x00008001,
                0x0000C000, 0x00400000, 0x007FFFFF, 0x807FFFFF, 0x00800000]  # float32 subnormals
    big = [2 * vals[-1], 4 * vals[-1], 1e6, 1e9, 1e20, 1e38]
    specials += list(np.array(big + [-v for v in big], dtype=np.float32).view(np.uint32))
    # Negative copies of the edge cases: the biggest values, the overflow midpoint and
    # its neighbours, the smallest subnormal, its half, and the half's neighbours.
    edge = np.concatenate([sweep[[len(vals) - 1, 0, 1]], m32[[-1, 0]].view(np.uint32),
                           below[[-1, 0]].view(np.uint32), above[[-1, 0]].view(np.uint32)])
    specials += list(edge | np.uint32(0x80000000))
    return sweep, np.array(specials, dtype=np.uint32)


def f64_inputs(f):
    """Midpoints one double ulp and a relative 2^-30 away: float32 rounds both back onto
    the midpoint, so double -> float -> format double-rounds. For the 16-bit formats we
    take every midpoint of the subnormals, the lowest two and highest two binades, and
    every 8th code elsewhere, to keep the files small."""
    vals = positive_values(f)
    top = math.ldexp(1.0, int(math.floor(math.log2(vals[-1]))) - f.mbits)
    upper = np.append(vals[1:], vals[-1] + top)
    mids = (vals + upper) / 2
    idx = np.arange(len(vals))
    if f.mbits >= 7:
        binade = 1 << f.mbits
        keep = (idx < 3 * binade) | (idx >= len(vals) - 2 * binade) | (idx % 8 == 0)
        mids = mids[keep]
    rel = mids * 2.0**-30
    inputs = [np.nextafter(mids, 0), np.nextafter(mids, np.inf), mids - rel, mids + rel]
    for v in inputs:  # float32 cannot hold any of them: it rounds them onto the midpoint
        assert np.all(v.astype(np.float32).astype(np.float64) == mids)
    inputs.append(mids)
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 5e-324, -5e-324,
                2.2250738585072014e-308, 1e-300, -1e-300, 1e-50, 3.4028234663852886e38,
                3.4028235677973366e38, 1e39, -1e39, 1e300, 1.7976931348623157e308,
                -1.7976931348623157e308, 1 + 2.0**-8 + 2.0**-40, 1 + 2.0**-11 + 2.0**-40,
                1 + 2.0**-4 + 2.0**-40, 1 + 2.0**-3 + 2.0**-40, math.pi, -math.e, 0.1]
    return np.concatenate(inputs + [np.array(specials)])


def write(name, *columns):
    path = os.path.join(OUT, name)
    rows = np.rec.fromarrays(columns)
    with open(path, "wb") as fh:
        fh.write(rows.tobytes())
    print(f"{name}: {len(rows)} records, {os.path.getsize(path)} bytes")


def main():
    np.seterr(over="ignore")  # float32 overflow to inf is part of what we test
    print(f"numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}")
    # The claim doc/dtypes.md makes: ml_dtypes rounds float64 through float32.
    x = 1 + 2.0**-8 + 2.0**-40
    direct = exact_encode(x, FORMATS[1])
    ml = int(lib_encode(np.array([x]), FORMATS[1])[0])
    print(f"bf16({x!r}): exact 0x{direct:04x}, ml_dtypes 0x{ml:04x}"
          f" ({'rounds once' if ml == direct else 'double-rounds through float32'})")
    assert direct == 0x3F81
    y = 1 + 2.0**-11 + 2.0**-40
    assert int(lib_encode(np.array([y]), FORMATS[0])[0]) == exact_encode(y, FORMATS[0]) == 0x3C01

    for f in FORMATS:
        n = 1 << (f.ebits + f.mbits + 1)
        codes = np.arange(n, dtype=np.uint32).astype(f.uint)
        dec = codes.view(f.np_type).astype(np.float32).view(np.uint32)
        write(f"decode_{f.name}.bin", dec.astype("<u4"))

        sweep, specials = f32_inputs(f)
        bits = np.concatenate([sweep, specials])
        lib = lib_encode(bits.view(np.float32), f)
        mirror = lib_encode((bits ^ np.uint32(0x80000000)).view(np.float32), f)
        for b, c, m in zip(bits, lib, mirror):
            xv = float(f32([b])[0])
            assert same_code(int(c), exact_encode(xv, f), f), (f.name, hex(b), hex(c))
            assert same_code(int(m), int(c) ^ f.sign, f), (f.name, hex(b), "not symmetric")
        write(f"encode_f32_{f.name}.bin", bits.astype("<u4"), lib.astype("<u2"))

        d = f64_inputs(f)
        ref = np.array([exact_encode(float(v), f) for v in d], dtype=np.uint32)
        lib = lib_encode(d, f)
        via32 = lib_encode(d.astype(np.float32), f)
        wrong = [i for i in range(len(d)) if not same_code(int(lib[i]), int(ref[i]), f)]
        for i in wrong:  # every disagreement is the library rounding through float32
            assert same_code(int(lib[i]), int(via32[i]), f), (f.name, d[i])
        print(f"  {f.name}: library(float64) differs from the exact rounding on "
              f"{len(wrong)} of {len(d)} float64 inputs, all explained by float32 double rounding")
        if f.name == "f16":
            assert not wrong, "numpy float64 -> float16 is expected to round once"
        write(f"encode_f64_{f.name}.bin", d.view(np.uint64).astype("<u8"), ref.astype("<u2"))


if __name__ == "__main__":
    sys.exit(main())
