#!/usr/bin/env python3
"""An independent numpy implementation of the normals of attnverify's generator "av-normal/3",
written from doc/formats/shapes-json.md ("Inputs"), not from the C++ source.

Usage: normals.py KEY COUNTER PAIRS OUT
Writes 2*PAIRS little-endian float64 values to OUT: Box-Muller pairs p = 0 .. PAIRS-1 of
the stream KEY whose uniforms are the stream's outputs COUNTER+2p+1 and COUNTER+2p+2.
The C++ test (SweepRngTest.NumpyImplementationOfTheDocumentedAlgorithmAgrees) compares
them bit for bit with av::NormalPairs. Every step is one IEEE-754 float64 operation,
which numpy rounds correctly and never fuses.
"""
import sys

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
LN2 = float.fromhex("0x1.62e42fefa39efp-1")
HALF_PI = float.fromhex("0x1.921fb54442d18p+0")
SQRT_HALF = float.fromhex("0x1.6a09e667f3bcdp-1")
LOG_C = [1.0 / (2 * k + 1) for k in range(11)]  # Python's / is correctly rounded
COS_C = [float.fromhex(h) for h in (
    "0x1.0000000000000p+0", "-0x1.0000000000000p-1", "0x1.5555555555555p-5", "-0x1.6c16c16c16c17p-10",
    "0x1.a01a01a01a01ap-16", "-0x1.27e4fb7789f5cp-22", "0x1.1eed8eff8d898p-29", "-0x1.93974a8c07c9dp-37",
    "0x1.ae7f3e733b81fp-45", "-0x1.6827863b97d97p-53", "0x1.e542ba4020225p-62", "-0x1.0ce396db7f853p-70")]
SIN_C = [float.fromhex(h) for h in (
    "0x1.0000000000000p+0", "-0x1.5555555555555p-3", "0x1.1111111111111p-7", "-0x1.a01a01a01a01ap-13",
    "0x1.71de3a556c734p-19", "-0x1.ae64567f544e4p-26", "0x1.6124613a86d09p-33", "-0x1.ae7f3e733b81fp-41",
    "0x1.952c77030ad4ap-49", "-0x1.2f49b46814157p-57", "0x1.71b8ef6dcf572p-66", "-0x1.761b41316381ap-75")]


def mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def normal_pairs(key, counter, pairs):
    p = np.arange(pairs, dtype=np.uint64)
    c = np.uint64(counter) + np.uint64(2) * p
    key = np.uint64(key)
    a = mix(key + (c + np.uint64(1)) * GOLDEN)
    b = mix(key + (c + np.uint64(2)) * GOLDEN)
    u1 = ((a >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0**-53
    u2 = (b >> np.uint64(11)).astype(np.float64) * 2.0**-53

    # ln u1 = e ln2 + 2 s P(s^2), u1 = m 2^e, m in [sqrt(1/2), sqrt(2)), s = (m-1)/(m+1).
    m, e = np.frexp(u1)  # m in [0.5, 1), exact
    e = e.astype(np.float64)
    low = m < SQRT_HALF
    m = np.where(low, m * 2.0, m)
    e = np.where(low, e - 1.0, e)
    s = (m - 1.0) / (m + 1.0)
    t = s * s
    poly = np.full_like(t, LOG_C[10])
    for k in range(9, -1, -1):
        poly = poly * t + LOG_C[k]
    ln = e * LN2 + (2.0 * s) * poly
    r = np.sqrt(-2.0 * ln)

    four = 4.0 * u2
    q = np.trunc(four)
    x = (four - q) * HALF_PI
    x2 = x * x
    cos_p = np.full_like(x2, COS_C[11])
    sin_p = np.full_like(x2, SIN_C[11])
    for k in range(10, -1, -1):
        cos_p = cos_p * x2 + COS_C[k]
        sin_p = sin_p * x2 + SIN_C[k]
    sin_p = x * sin_p
    odd = (q == 1) | (q == 3)
    cos_abs = np.where(odd, sin_p, cos_p)
    sin_abs = np.where(odd, cos_p, sin_p)
    cos_v = np.where((q == 1) | (q == 2), -cos_abs, cos_abs)
    sin_v = np.where(q >= 2, -sin_abs, sin_abs)
    out = np.empty(2 * pairs, dtype=np.float64)
    out[0::2] = r * cos_v
    out[1::2] = r * sin_v
    return out


def main():
    key, counter, pairs, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with np.errstate(over="ignore"):
        normal_pairs(key, counter, pairs).astype("<f8").tofile(path)


if __name__ == "__main__":
    main()
