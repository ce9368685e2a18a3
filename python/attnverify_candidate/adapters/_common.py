"""What every adapter shares: importing the library (a clear error naming the pip package
when it is absent), moving case tensors to torch and back, calling a library function
with only the keyword arguments its installed version has, and the runner that turns an
adapter into a candidate (`python3 -m attnverify_candidate.adapters.NAME CASES_JSON`).

Adapters never change a library's outputs: what the library returns is what attnverify
judges (conventions such as the LSE of an empty row are set in shapes.json's op
parameters, doc/python.md).
"""
import importlib
import inspect
import os
import sys

import numpy as np

from attnverify_candidate import iter_cases


class AdapterError(RuntimeError):
    """The case cannot be run through this library (missing feature, wrong op)."""


class MissingLibrary(AdapterError, ImportError):
    pass


def import_library(module, pip_name, purpose):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingLibrary("%s is not installed (%s: pip install %s): %s"
                             % (module, purpose, pip_name, e)) from e


def torch_module():
    return import_library("torch", "torch", "every adapter moves tensors with PyTorch")


def library_version(module, dist_name):
    v = getattr(module, "__version__", None)
    if v:
        return str(v)
    try:
        from importlib import metadata
        return metadata.version(dist_name)
    except Exception:  # noqa: BLE001 -- no metadata: say so rather than guess
        return "unknown"


def torch_dtype(torch, name):
    table = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
             "f8_e4m3fn": "float8_e4m3fn", "f8_e5m2": "float8_e5m2", "i32": "int32",
             "i64": "int64", "u8": "uint8", "bool": "bool"}
    return getattr(torch, table[name])


class CaseTensors:
    """A case's inputs as torch tensors on `device`, in the dtype case.json names.
    Padded layouts keep their strides: the stored rows go to the device and the logical
    view is taken there, so the library sees the strided tensor the op reads."""

    def __init__(self, case, device):
        self.case = case
        self.device = device
        self.torch = torch_module()
        self._stored = case.stored_inputs()

    def has(self, name):
        return name in self._stored

    def numpy(self, name):
        arr = self._stored[name]
        layout = self.case.spec["inputs"][name]
        if "storage_shape" in layout:
            arr = arr[..., :layout["shape"][-1]]
        return arr

    def get(self, name, dtype=None):
        torch = self.torch
        layout = self.case.spec["inputs"][name]
        want = dtype or layout["dtype"]
        arr = np.ascontiguousarray(self._stored[name])
        if want.startswith("i") or want in ("u8", "bool"):
            t = torch.from_numpy(arr.astype({"i32": np.int32, "i64": np.int64, "u8": np.uint8,
                                             "bool": np.bool_}.get(want, np.int32)))
            t = t.to(self.device)
        else:
            # float32 holds every bf16/f16/fp8 value exactly: the conversion is exact.
            t = torch.from_numpy(arr.astype(np.float32)).to(self.device)
            t = t.to(torch_dtype(torch, want))
        if "storage_shape" in layout:
            t = t[..., :layout["shape"][-1]]
        return t


def to_numpy(t):
    """A torch tensor's values as float32 / integer numpy (bf16 and fp8 widen exactly)."""
    t = t.detach() if hasattr(t, "detach") else t
    if t.dtype.is_floating_point:
        t = t.float()
    return t.cpu().numpy()


def call(fn, label, args, kwargs, defaults=None):
    """fn(*args, **kwargs) with only the keywords the installed `fn` takes. A keyword it
    does not take is an AdapterError when its value differs from `defaults[key]` (the case
    needs a feature this version lacks), else dropped."""
    defaults = defaults or {}
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = None  # a C binding without a signature: pass everything
    if params is not None and not any(p.kind == p.VAR_KEYWORD for p in params.values()):
        for key in list(kwargs):
            if key in params:
                continue
            if key in defaults and _same(kwargs[key], defaults[key]):
                del kwargs[key]
                continue
            raise AdapterError("%s of the installed version takes no %s= (the case needs %s=%r)"
                               % (label, key, key, kwargs[key]))
    return fn(*args, **kwargs)


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 -- tensors: not a default
        return False


def unsupported(case, adapter, what):
    return AdapterError("%s: the %s adapter cannot run %s (op %s)" % (case.id, adapter, what, case.op))


def default_device():
    return os.environ.get("ATTNVERIFY_DEVICE", "cuda")


def main(run_case, name, argv=None):
    """The candidate: runs every case of CASES_JSON through run_case(case, device) and saves
    its outputs and metadata. Exit 1 naming the case at the first case that cannot run."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python3 -m attnverify_candidate.adapters.%s CASES_JSON" % name,
              file=sys.stderr)
        return 2
    device = default_device()
    for case in iter_cases(argv[0]):
        try:
            outputs, metadata = run_case(case, device)
        except AdapterError as e:
            print("%s: %s" % (case.id, e), file=sys.stderr)
            return 1
        case.save(outputs, metadata=metadata)
    return 0
