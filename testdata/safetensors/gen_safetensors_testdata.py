#!/usr/bin/env python3
"""Regenerates testdata/safetensors/: files for src/tensor/safetensors_test.cc.

Valid files are written by the reference `safetensors` package (safetensors.numpy.save_file;
bf16 and fp8 arrays come from ml_dtypes). Malformed files are built byte by byte here, since
no writer produces them. For every file, cases.json records what attnverify must do (accept,
or reject with a status code and a message fragment) and what the reference reader
(safetensors.deserialize, the Rust crate underneath) did with it, so the test can check
that we reject nothing the reference accepts except where a deviation is written down.

Usage: python3 testdata/safetensors/gen_safetensors_testdata.py   (from anywhere)
Needs: safetensors, numpy, ml_dtypes (versions are written into cases.json).
"""

import json
import pathlib
import struct

import ml_dtypes
import numpy as np
import safetensors
from safetensors.numpy import save_file

HERE = pathlib.Path(__file__).resolve().parent

# Exactly representable in every floating dtype below, including fp8 E4M3 / E5M2.
FLOATS = [-2.0, -0.5, 0.0, 0.25, 1.5, 3.0]


def valid_tensors():
    """name -> numpy array, for each file written by save_file."""
    files = {}
    files["all_dtypes.safetensors"] = (
        {
            "bool": np.array([[True, False, True], [False, False, True]]),
            "u8": np.array([[0, 1, 127], [128, 254, 255]], dtype=np.uint8),
            "i8": np.array([[-128, -1, 0], [1, 64, 127]], dtype=np.int8),
            "i16": np.array([[-32768, -2, 0], [3, 1000, 32767]], dtype=np.int16),
            "i32": np.array([[-(2**31), -5, 0], [7, 2**20, 2**31 - 1]], dtype=np.int32),
            "i64": np.array([[-(2**40), -9, 0], [11, 2**33, 2**40]], dtype=np.int64),
            "f16": np.array([FLOATS[:3], [65504.0, 2.0**-24, 0.099975586]], dtype=np.float16),
            "bf16": np.array([FLOATS[:3], [3.140625, 2.0**-126, -65536.0]], dtype=ml_dtypes.bfloat16),
            "f32": np.array([FLOATS[:3], [0.1, 2.0**-149, 3.4028234663852886e38]], dtype=np.float32),
            "f64": np.array([FLOATS[:3], [0.1, 5e-324, 1.7976931348623157e308]], dtype=np.float64),
            "f8_e4m3": np.array([FLOATS[:3], [448.0, 2.0**-9, -0.0]], dtype=ml_dtypes.float8_e4m3fn),
            "f8_e5m2": np.array([FLOATS[:3], [57344.0, 2.0**-16, 1.75]], dtype=ml_dtypes.float8_e5m2),
        },
        None,
    )
    files["scalar_and_empty.safetensors"] = (
        {
            "scalar": np.array(2.5, dtype=np.float32),
            "empty": np.zeros((0,), dtype=np.float32),
            "empty_3d": np.zeros((2, 0, 3), dtype=np.int16),
            "row": np.array([1, 2, 3], dtype=np.int32),
        },
        None,
    )
    # One metadata key: the reference writer keeps metadata in a hash map, so with more
    # keys the header bytes would change from run to run.
    files["metadata.safetensors"] = (
        {"weight": np.array(FLOATS, dtype=np.float16).reshape(2, 3)},
        {"format": "pt"},
    )
    many = {}
    dtypes = [np.float32, np.float16, np.int8, ml_dtypes.bfloat16, np.int64, np.uint8]
    for i in range(200):
        dtype = dtypes[i % len(dtypes)]
        shape = (i % 3 + 1, i % 4 + 1)
        many[f"layers.{i}.w"] = (np.arange(np.prod(shape)) % 7 + i % 5).astype(dtype).reshape(shape)
    files["many_tensors.safetensors"] = (many, None)
    return files


def raw(header, data=b"", length=None):
    """8-byte little-endian header length, header bytes, data: the format by hand."""
    hb = header.encode() if isinstance(header, str) else header
    return struct.pack("<Q", len(hb) if length is None else length) + hb + data


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def js(obj):
    return json.dumps(obj, separators=(",", ":"))


F32X2 = js({"a": entry("F32", [2], 0, 8)})
A = '"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}'

# (file, bytes, expected code, message fragment, deviation from the reference or None).
# Code "ok" means attnverify accepts the file.
MALFORMED = [
    ("empty_file.safetensors", b"", "InvalidInput", "too short for the 8-byte header length", None),
    ("truncated_length.safetensors", b"\x10\x00\x00", "InvalidInput", "too short", None),
    ("header_too_large.safetensors", raw("{}", length=100_000_001), "InvalidInput",
     "header length 100000001 is above the limit of 100000000 bytes", None),
    ("header_length_huge.safetensors", raw("{}", length=2**64 - 1), "InvalidInput",
     "is above the limit", None),
    ("header_past_end.safetensors", raw("{}", length=1000), "InvalidInput",
     "header length 1000 is more than the 2 bytes after the length field", None),
    ("header_truncated.safetensors", raw(F32X2)[:30], "InvalidInput", "is more than the", None),
    ("header_not_utf8.safetensors", raw(b'{"a\xff":{}}'), "InvalidInput",
     "header is not valid UTF-8 (byte 3 of the header)", None),
    ("header_surrogate_utf8.safetensors", raw(b'{"\xed\xa0\x80":1}'), "InvalidInput",
     "not valid UTF-8", None),
    ("header_empty.safetensors", raw(""), "InvalidInput", "must begin with '{'", None),
    ("header_array.safetensors", raw("[]"), "InvalidInput", "must begin with '{'", None),
    ("header_leading_space.safetensors", raw(" " + F32X2, b"\0" * 8), "InvalidInput",
     "must begin with '{'",
     "the specification says the header MUST begin with '{'; serde_json skips leading whitespace"),
    ("header_bad_json.safetensors", raw('{"a":'), "InvalidInput", "header is not valid JSON", None),
    ("header_trailing_garbage.safetensors", raw("{}x"), "InvalidInput", "header is not valid JSON", None),
    ("header_nul_padding.safetensors", raw("{}\0\0\0\0\0\0"), "InvalidInput",
     "header is not valid JSON", None),
    ("hole.safetensors", raw(js({"a": entry("F32", [1], 0, 4), "b": entry("F32", [1], 8, 12)}), b"\0" * 12),
     "InvalidInput", 'tensor "b": data_offsets [8, 12] leave bytes [4, 8) of the data buffer unused', None),
    ("hole_at_start.safetensors", raw(js({"a": entry("F32", [1], 4, 8)}), b"\0" * 8),
     "InvalidInput", 'tensor "a": data_offsets [4, 8] leave bytes [0, 4)', None),
    ("overlap.safetensors", raw(js({"a": entry("F32", [2], 0, 8), "b": entry("F32", [1], 4, 8)}), b"\0" * 8),
     "InvalidInput", 'tensor "b": data_offsets [4, 8] overlap the previous tensor, which ends at 8', None),
    ("end_before_begin.safetensors",
     raw(js({"a": entry("U8", [2], 0, 2), "b": entry("U8", [0], 2, 1)}), b"\0\0"),
     "InvalidInput", 'tensor "b": data_offsets [2, 1] end before they begin', None),
    ("size_mismatch.safetensors", raw(js({"o": entry("F32", [2, 3], 0, 100)}), b"\0" * 100),
     "InvalidInput", 'tensor "o": data_offsets [0, 100] hold 100 bytes but shape [2, 3] of F32 needs 24', None),
    ("trailing_bytes.safetensors", raw(F32X2, b"\0" * 9), "InvalidInput",
     "the tensors cover 8 bytes of data but the file holds 9 after the header (trailing bytes)", None),
    ("data_truncated.safetensors", raw(F32X2, b"\0" * 7), "InvalidInput",
     "cover 8 bytes of data but the file holds 7 after the header (truncated file?)", None),
    ("offsets_huge.safetensors",
     raw(js({"a": entry("U8", [2**60], 0, 2**60)}), b"\0" * 4), "InvalidInput",
     "(truncated file?)", None),
    ("duplicate_tensor.safetensors", raw("{" + A + "," + A + "}", b"\0" * 8), "InvalidInput",
     'duplicate key "a"', "the specification forbids duplicate keys; serde keeps the last one"),
    ("duplicate_escaped_name.safetensors",
     raw('{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"\\u0061":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}'),
     "InvalidInput", 'duplicate key "a"', "the specification forbids duplicate keys; serde keeps the last one"),
    ("duplicate_field.safetensors",
     raw('{"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}}', b"\0" * 8),
     "InvalidInput", 'tensor "a": duplicate field "dtype"', None),
    ("duplicate_metadata.safetensors", raw('{"__metadata__":{},"__metadata__":{}}'), "InvalidInput",
     'duplicate key "__metadata__"', None),
    ("duplicate_metadata_key.safetensors", raw('{"__metadata__":{"k":"1","k":"2"}}'), "InvalidInput",
     '__metadata__: duplicate key "k"', "the specification forbids duplicate keys; serde keeps the last one"),
    ("metadata_value_number.safetensors", raw('{"__metadata__":{"k":1}}'), "InvalidInput",
     '__metadata__: value of "k" must be a string, got a number', None),
    ("metadata_value_object.safetensors", raw('{"__metadata__":{"k":{"x":"y"}}}'), "InvalidInput",
     "must be a string, got an object", None),
    ("metadata_not_object.safetensors", raw('{"__metadata__":"pt"}'), "InvalidInput",
     "__metadata__ must be an object of strings, got a string", None),
    ("metadata_null.safetensors", raw('{"__metadata__":null}'), "ok", "", None),
    ("unknown_dtype.safetensors", raw(js({"a": entry("F31", [2], 0, 8)}), b"\0" * 8), "InvalidInput",
     'tensor "a": unknown dtype "F31"', None),
    ("lowercase_dtype.safetensors", raw(js({"a": entry("f32", [2], 0, 8)}), b"\0" * 8), "InvalidInput",
     'unknown dtype "f32"', None),
    ("dtype_as_map.safetensors",
     raw('{"a":{"dtype":{"F32":null},"shape":[2],"data_offsets":[0,8]}}', b"\0" * 8), "InvalidInput",
     "dtype must be a string, got an object",
     "serde reads an enum from a one-key map too; the format documents only strings"),
    ("entry_as_array.safetensors", raw('{"a":["F32",[2],[0,8]]}', b"\0" * 8), "InvalidInput",
     "entry must be an object",
     "serde reads a struct from an array too; the format documents only objects"),
    ("entry_not_object.safetensors", raw('{"a":5}'), "InvalidInput", "entry must be an object", None),
    ("negative_shape.safetensors", raw(js({"a": entry("F32", [-1], 0, 4)}), b"\0" * 4), "InvalidInput",
     'tensor "a": shape must hold non-negative integers, got -1', None),
    ("negative_zero_shape.safetensors", raw('{"a":{"dtype":"F32","shape":[-0],"data_offsets":[0,0]}}'),
     "InvalidInput", "got -0", None),
    ("float_shape.safetensors", raw('{"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}', b"\0" * 8),
     "InvalidInput", "shape must hold integers, got 2.0", None),
    ("shape_not_array.safetensors", raw('{"a":{"dtype":"F32","shape":2,"data_offsets":[0,8]}}', b"\0" * 8),
     "InvalidInput", "shape must be an array of integers, got a number", None),
    ("unknown_field.safetensors",
     raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"strides":[1]}}', b"\0" * 8),
     "InvalidInput", 'tensor "a": unknown field "strides"',
     "serde ignores unknown fields; we refuse them because a field we ignore might change "
     "the meaning of the bytes (strides, byte order)"),
    ("missing_field.safetensors", raw('{"a":{"dtype":"F32","data_offsets":[0,8]}}', b"\0" * 8),
     "InvalidInput", 'tensor "a": missing field "shape"', None),
    ("offsets_three.safetensors", raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,8]}}', b"\0" * 8),
     "InvalidInput", "data_offsets must hold exactly 2 integers", None),
    ("offsets_one.safetensors", raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[8]}}', b"\0" * 8),
     "InvalidInput", "data_offsets must hold exactly 2 integers, got 1", None),
    ("offsets_too_big.safetensors",
     raw('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551616]}}', b"\0" * 8),
     "InvalidInput", "data_offsets must hold integers, got 18446744073709551616", None),
    ("numel_overflow.safetensors",
     raw(js({"a": entry("F64", [2**32, 2**32], 0, 0)})), "InvalidInput", "has too many elements", None),
    ("bytes_overflow.safetensors",
     raw(js({"a": entry("F64", [2**62], 0, 0)})), "InvalidInput", "needs more than 2^64 bits", None),
    ("f4_odd.safetensors", raw(js({"a": entry("F4", [3], 0, 2)}), b"\0" * 2), "InvalidInput",
     "needs 12 bits, which does not end on a byte boundary", None),
    ("unsupported_u16.safetensors", raw(js({"a": entry("U16", [2], 0, 4)}), b"\0" * 4), "Unsupported",
     'tensor "a": dtype U16 is not supported', "well-formed, but attnverify has no U16"),
    ("unsupported_f8_e8m0.safetensors", raw(js({"a": entry("F8_E8M0", [2], 0, 2)}), b"\0" * 2),
     "Unsupported", "dtype F8_E8M0 is not supported", "well-formed, but attnverify has no F8_E8M0"),
    ("unsupported_f4.safetensors", raw(js({"a": entry("F4", [4], 0, 2)}), b"\0" * 2),
     "Unsupported", "dtype F4 is not supported", "well-formed, but attnverify has no F4"),
    ("rank_65.safetensors", raw(js({"a": entry("U8", [1] * 65, 0, 1)}), b"\0"), "Unsupported",
     'tensor "a": rank above 64', "we cap the rank at numpy's 64 to bound memory"),
    ("dim_above_int64.safetensors", raw(js({"a": entry("U8", [0, 2**63], 0, 0)})), "Unsupported",
     "dimension 9223372036854775808 is above 2^63 - 1",
     "our shapes are int64 like PyTorch's; only zero-element tensors can hit this"),
    # Accepted: the reference crate sorts entries by offset and so do we.
    ("out_of_order.safetensors",
     raw(js({"b": entry("I32", [1], 4, 8), "a": entry("F32", [1], 0, 4)}), b"\0\0\x80\x3f\x05\0\0\0"),
     "ok", "", None),
    ("padding_whitespace.safetensors", raw(F32X2 + " \n\t\r", b"\0" * 8), "ok", "", None),
    ("empty_object.safetensors", raw("{}"), "ok", "", None),
    ("zero_size_between.safetensors",
     raw(js({"a": entry("U8", [2], 0, 2), "e": entry("F32", [0, 5], 2, 2), "b": entry("U8", [1], 2, 3)}),
         b"\1\2\3"), "ok", "", None),
]


def values(arr):
    return [float(x) for x in np.asarray(arr).astype(np.float64).reshape(-1)]


def reference_verdict(data):
    try:
        tensors = safetensors.deserialize(data)
        return "ok: " + ", ".join(sorted(name for name, _ in tensors))
    except Exception as e:  # noqa: BLE001 — any refusal is a verdict
        return "error: " + str(e)


def main():
    expected = {}
    cases = []
    for fname, (tensors, metadata) in valid_tensors().items():
        save_file(tensors, str(HERE / fname), metadata=metadata)
        (HERE / fname).chmod(0o644)  # the writer creates files 0600
        data = (HERE / fname).read_bytes()
        header_len = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8 : 8 + header_len])
        # File order is the writer's (dtype alignment, then name), i.e. offset order.
        names = sorted((k for k in header if k != "__metadata__"),
                       key=lambda k: tuple(header[k]["data_offsets"]))
        expected[fname] = {
            "metadata": metadata or {},
            "tensors": [
                {
                    "name": k,
                    "dtype": header[k]["dtype"],
                    "shape": list(tensors[k].shape),
                    "values": values(tensors[k]),
                }
                for k in names
            ],
        }
        cases.append({"file": fname, "expect": "ok", "message": "",
                      "reference": reference_verdict(data)[:200], "deviation": None})
    for fname, data, code, message, deviation in MALFORMED:
        (HERE / fname).write_bytes(data)
        cases.append({"file": fname, "expect": code, "message": message,
                      "reference": reference_verdict(data)[:200], "deviation": deviation})
    versions = {"safetensors": safetensors.__version__, "numpy": np.__version__,
                "ml_dtypes": ml_dtypes.__version__}
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    (HERE / "cases.json").write_text(json.dumps({"versions": versions, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
