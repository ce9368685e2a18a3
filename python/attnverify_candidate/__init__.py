"""Helpers for attnverify candidates (numpy only; torch optional, not needed).

attnverify writes each case to work/cases/<id>/ (inputs.safetensors + case.json) and an
index work/cases.json, then runs your command. Format: doc/formats/candidate-protocol.md.

    from attnverify_candidate import iter_cases
    for case in iter_cases(sys.argv[1]):          # the {cases} placeholder
        x = case.inputs()                          # name -> np.ndarray (floats as float32)
        splits = case.knob("num_splits", 1)        # invariance variants set knobs
        case.save({"o": o, "lse": lse}, metadata={"kernel": "splitkv", "num_splits": "4"})

Adapters for real libraries (flash_mla, deep_gemm, flash_attn, torch_sdpa) are in
attnverify_candidate.adapters; the pytest plugin is pytest_attnverify (doc/python.md).

Floating inputs (bf16, f16, fp8) arrive as float32 numpy arrays holding the exact
values; padded layouts (case.json "storage_shape") arrive as the strided views the op
reads. save() rounds each output to the dtype case.json expects (bf16 round-to-nearest-even)
and writes out/outputs.safetensors with your metadata in __metadata__.
"""
import json
import os
import struct

import numpy as np

__version__ = "0.1.0"

_ST_DTYPES = {
    "F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
    "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_,
}
_NAME_TO_ST = {"f64": "F64", "f32": "F32", "f16": "F16", "bf16": "BF16", "f8_e4m3fn": "F8_E4M3",
               "f8_e5m2": "F8_E5M2", "i64": "I64", "i32": "I32", "i16": "I16", "i8": "I8", "u8": "U8",
               "bool": "BOOL"}


def _fp8_table(exp_bits, man_bits, bias, has_inf):
    vals = np.zeros(256, dtype=np.float64)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        top = (1 << exp_bits) - 1
        if has_inf and e == top:
            vals[code] = sign * np.inf if m == 0 else np.nan
        elif not has_inf and e == top and m == (1 << man_bits) - 1:
            vals[code] = np.nan
        elif e == 0:
            vals[code] = sign * m / (1 << man_bits) * 2.0 ** (1 - bias)
        else:
            vals[code] = sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return vals.astype(np.float32)


_E4M3 = _fp8_table(4, 3, 7, False)
_E5M2 = _fp8_table(5, 2, 15, True)


def bf16_to_float32(raw_u16):
    return (raw_u16.astype(np.uint32) << 16).view(np.float32)


def float_to_bf16_bits(x):
    """Round to nearest even; NaN stays NaN."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), rounded)


def read_safetensors(path):
    """Returns ({name: np.ndarray}, metadata). bf16/fp8 are decoded to float32."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {}) or {}
    base = 8 + n
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = data[base + begin:base + end]
        shape = tuple(info["shape"])
        dt = info["dtype"]
        if dt == "BF16":
            arr = bf16_to_float32(np.frombuffer(raw, dtype="<u2")).reshape(shape)
        elif dt in ("F8_E4M3", "F8_E5M2"):
            table = _E4M3 if dt == "F8_E4M3" else _E5M2
            arr = table[np.frombuffer(raw, dtype=np.uint8)].reshape(shape)
        else:
            arr = np.frombuffer(raw, dtype=np.dtype(_ST_DTYPES[dt]).newbyteorder("<")).reshape(shape)
        out[name] = arr
    return out, meta


def write_safetensors(path, tensors, metadata=None):
    """tensors: {name: (np.ndarray, dtype name as in case.json)}. Written atomically."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, (arr, dtype) in tensors.items():
        st = _NAME_TO_ST[dtype]
        if st == "BF16":
            blob = float_to_bf16_bits(np.asarray(arr, dtype=np.float32)).astype("<u2").tobytes()
        elif st.startswith("F8"):
            raise ValueError("fp8 outputs: encode them yourself")
        else:
            blob = np.ascontiguousarray(arr, dtype=np.dtype(_ST_DTYPES[st]).newbyteorder("<")).tobytes()
        header[name] = {"dtype": st, "shape": list(np.shape(arr)), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    os.replace(tmp, path)


class Case:
    def __init__(self, case_dir):
        self.dir = case_dir
        with open(os.path.join(case_dir, "case.json")) as f:
            self.spec = json.load(f)
        self.id = self.spec["id"]
        self.op = self.spec["op"]
        self.params = self.spec["params"]
        self.op_params = self.spec["op_params"]
        self.dtype = self.spec["dtype"]
        self.outputs = self.spec["outputs"]
        # Knobs the kernel may use but that must not change the result beyond rounding
        # (e.g. {"num_splits": 4}). `variant` is only in the full record `attnverify cases
        # --export` writes; `numerics` does not tell a candidate which cases are variants.
        self.variant = self.spec.get("variant", "base")
        self.knobs = self.spec.get("knobs", {}) or {}
        # Absolute, or relative to this case's folder (a work folder whose path is not UTF-8).
        self.out_dir = os.path.join(case_dir, self.spec.get("out_dir") or "out")

    def knob(self, key, default=None):
        """A knob from case.json (e.g. knob("num_splits", 1)); default when absent."""
        return self.knobs.get(key, default)

    def op_param(self, key, default=None):
        v = self.op_params.get(key)
        if v is None:
            return default
        if v in ("true", "false"):
            return v == "true"
        try:
            return int(v)
        except ValueError:
            return float(v)

    def stored_inputs(self):
        """{name: np.ndarray} as stored (padded rows included); see inputs()."""
        tensors, _ = read_safetensors(os.path.join(self.dir, self.spec["inputs_file"]))
        return tensors

    def inputs(self):
        tensors = self.stored_inputs()
        for name, layout in self.spec["inputs"].items():
            if "storage_shape" in layout:  # padded rows: the op reads the leading elements
                tensors[name] = tensors[name][..., :layout["shape"][-1]]
        return tensors

    def save(self, outputs, metadata=None):
        os.makedirs(self.out_dir, exist_ok=True)
        tensors = {}
        for name, spec in self.outputs.items():
            arr = np.asarray(outputs[name])
            if list(arr.shape) != spec["shape"]:
                raise ValueError("%s: output %s has shape %s, case.json expects %s" % (self.id, name, arr.shape, spec["shape"]))
            tensors[name] = (arr, spec["dtype"])
        write_safetensors(os.path.join(self.out_dir, "outputs.safetensors"), tensors, metadata)


def iter_cases(cases_json):
    with open(cases_json) as f:
        index = json.load(f)
    # Each "dir" is absolute, or relative to cases.json's folder (attnverify writes it so
    # when the work folder's path is not UTF-8 and cannot be a JSON string).
    base = os.path.dirname(os.path.abspath(cases_json))
    for entry in index["cases"]:
        yield Case(os.path.join(base, entry["dir"]))
