#!/usr/bin/env python3
"""Writes the .npy/.npz files that src/tensor/npy_test.cc and npz_test.cc read.

Every valid file is written by numpy itself (np.save, np.lib.format.write_array,
np.savez, np.savez_compressed), so the tests check our reader against the real
format and our writer byte for byte against numpy's output. The malformed files
start from numpy output and break one thing each. Run from anywhere:

    python3 testdata/npy/gen_npy_testdata.py

The values are fixed formulas (no randomness), so rerunning with the same numpy
version reproduces the files exactly; the tests restate the same formulas.
"""

import io
import os
import struct
import zipfile

import numpy as np

OUT = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(OUT, name)


def save(name, array, **kwargs):
    np.save(path(name), array, **kwargs)


def write_version(name, array, version):
    with open(path(name), "wb") as f:
        np.lib.format.write_array(f, array, version=version)


def npy_bytes(array):
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


# Values of the (2, 3) per-dtype files, in row-major order (npy_test.cc: kFloatValues...).
FLOATS = np.array([-1.5, -0.75, 0.0, 0.75, 1.5, 2.25]).reshape(2, 3)
INTS = np.array([-74, -37, 0, 37, 74, 111]).reshape(2, 3)
INT64S = np.array([-2, -1, 0, 1, 2, 3]).reshape(2, 3) * 1_000_000_000_007
UINTS = np.array([0, 50, 100, 150, 200, 250]).reshape(2, 3)
BOOLS = np.array([True, False, False, True, True, False]).reshape(2, 3)


def write_dtypes():
    save("f8.npy", FLOATS.astype("<f8"))
    save("f4.npy", FLOATS.astype("<f4"))
    save("f2.npy", FLOATS.astype("<f2"))
    save("i1.npy", INTS.astype("i1"))
    save("i2.npy", INTS.astype("<i2"))
    save("i4.npy", INTS.astype("<i4"))
    save("i8.npy", INT64S.astype("<i8"))
    save("u1.npy", UINTS.astype("u1"))
    save("b1.npy", BOOLS)
    save("scalar_f8.npy", np.array(3.5))
    save("empty_f4_0x3.npy", np.zeros((0, 3), dtype="<f4"))
    # Fortran order: same logical values as f8.npy / i4 arange, column-major on disk.
    save("fortran_f8_2x3.npy", np.asfortranarray(FLOATS.astype("<f8")))
    save("fortran_i4_2x3x4.npy", np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4)))
    # Big-endian: same logical values as the little-endian files.
    save("be_f8.npy", FLOATS.astype(">f8"))
    save("be_f4.npy", FLOATS.astype(">f4"))
    save("be_f2.npy", FLOATS.astype(">f2"))
    save("be_i2.npy", INTS.astype(">i2"))
    save("be_i4.npy", INTS.astype(">i4"))
    save("be_i8.npy", INT64S.astype(">i8"))
    save("be_fortran_f4_2x3.npy", np.asfortranarray(FLOATS.astype(">f4")))
    # Header versions 2.0 (u32 length) and 3.0 (u32 length, utf-8 header).
    write_version("v2_f4.npy", FLOATS.astype("<f4"), (2, 0))
    write_version("v3_f4.npy", FLOATS.astype("<f4"), (3, 0))


def write_archives():
    members = {
        "q": FLOATS.astype("<f4"),
        "k": FLOATS.astype("<f2"),
        "lens": np.array([3, 1, 4], dtype="<i4"),
        "scale": np.array(0.125),
    }
    np.savez(path("savez_multi.npz"), **members)
    np.savez(path("savez_positional.npz"), np.arange(4, dtype="<f8"), INT64S.astype("<i8"))
    compressed = dict(members)
    # Repetitive data so deflate really compresses it.
    compressed["big"] = (np.arange(1024, dtype="<f4") % 7).reshape(32, 32)
    compressed["fortran"] = np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4))
    np.savez_compressed(path("savez_compressed_multi.npz"), **compressed)
    # A ZIP method we do not inflate (bzip2 = 12).
    with zipfile.ZipFile(path("bzip2.npz"), "w", compression=zipfile.ZIP_BZIP2) as z:
        z.writestr("a.npy", npy_bytes(np.arange(3, dtype="<f4")))


def write_malformed():
    good = npy_bytes(FLOATS.astype("<f8"))
    with open(path("bad_truncated_data.npy"), "wb") as f:
        f.write(good[:-8])
    with open(path("bad_magic.npy"), "wb") as f:
        f.write(b"\x93NUMPZ" + good[6:])
    # A well-formed version 1.0 header padded past numpy's 10000-byte safety limit.
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"
    header += b" " * (10048 - 10 - len(header) - 1) + b"\n"
    with open(path("bad_header_too_long.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + good[128:])
    save("bad_object.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
    save("bad_structured.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]))
    # How np.save stores ml_dtypes bfloat16: raw 2-byte void elements.
    save("bad_void_v2.npy", np.zeros(3, dtype="V2"))
    save("bad_unicode.npy", np.array(["ab", "c"]))
    save("bad_complex.npy", np.array([1 + 2j, 3 - 4j], dtype="<c8"))
    save("bad_uint16.npy", np.array([1, 2, 3], dtype="<u2"))
    with open(path("savez_multi.npz"), "rb") as f:
        archive = f.read()
    with open(path("bad_truncated.npz"), "wb") as f:
        f.write(archive[: len(archive) // 2])


if __name__ == "__main__":
    write_dtypes()
    write_archives()
    write_malformed()
    print("numpy", np.__version__, "wrote", OUT)
