"""A stand-in for the few PyTorch calls the adapters make, on numpy (tests only: torch
is not installed here). Tensors carry a dtype tag; .to(bfloat16 / float16) rounds the
values as torch would (round to nearest even), fp8 values arrive exact. Used only when
the real torch cannot be imported."""
import numpy as np

from attnverify_candidate import bf16_to_float32, float_to_bf16_bits

__version__ = "0.0-standin"


class dtype:
    def __init__(self, name, floating):
        self.name, self.is_floating_point = name, floating

    def __repr__(self):
        return "torch." + self.name


bfloat16 = dtype("bfloat16", True)
float16 = dtype("float16", True)
float32 = dtype("float32", True)
float64 = dtype("float64", True)
float8_e4m3fn = dtype("float8_e4m3fn", True)
float8_e5m2 = dtype("float8_e5m2", True)
int32 = dtype("int32", False)
int64 = dtype("int64", False)
uint8 = dtype("uint8", False)
bool = dtype("bool", False)  # noqa: A001 -- torch's name

_NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64,
       "uint8": np.uint8, "bool": np.bool_}


def _round(arr, dt):
    if dt is bfloat16:
        return bf16_to_float32(float_to_bf16_bits(arr.astype(np.float32)))
    if dt is float16:
        return arr.astype(np.float16).astype(np.float32)
    if dt in (float8_e4m3fn, float8_e5m2):
        return arr.astype(np.float32)
    return arr.astype(_NP[dt.name])


class Tensor:
    def __init__(self, arr, dt, device="cpu"):
        self._a, self.dtype, self.device = arr, dt, device

    shape = property(lambda self: tuple(self._a.shape))

    def to(self, *args, **kwargs):
        t = self
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, dtype):
                t = Tensor(_round(t._a, a), a, t.device)
            elif isinstance(a, str):
                t = Tensor(t._a, t.dtype, a)
        return t

    def float(self):
        return Tensor(self._a.astype(np.float32), float32, self.device)

    def cpu(self):
        return Tensor(self._a, self.dtype, "cpu")

    def detach(self):
        return self

    def numpy(self):
        return np.array(self._a)

    def stride(self, dim=None):
        s = tuple(x // self._a.itemsize for x in self._a.strides)
        return s if dim is None else s[dim]

    def is_contiguous(self):
        return self._a.flags["C_CONTIGUOUS"]

    def contiguous(self):
        return Tensor(np.ascontiguousarray(self._a), self.dtype, self.device)

    def transpose(self, a, b):
        return Tensor(np.swapaxes(self._a, a, b), self.dtype, self.device)

    def __getitem__(self, idx):
        return Tensor(self._a[idx], self.dtype, self.device)

    def __mul__(self, other):
        return Tensor(self._a * _arr(other), self.dtype, self.device)

    def __add__(self, other):
        return Tensor(self._a + _arr(other), self.dtype, self.device)

    def __matmul__(self, other):
        return matmul(self, other)


def _arr(x):
    return x._a if isinstance(x, Tensor) else x


def from_numpy(arr):
    arr = np.asarray(arr)
    name = {np.dtype(np.float32): float32, np.dtype(np.float64): float64,
            np.dtype(np.int32): int32, np.dtype(np.int64): int64,
            np.dtype(np.uint8): uint8, np.dtype(np.bool_): bool}[arr.dtype]
    return Tensor(arr, name)


def zeros(shape, dtype=float32, device="cpu"):
    return Tensor(np.zeros(shape, np.float32 if dtype.is_floating_point else _NP[dtype.name]),
                  dtype, device)


def matmul(a, b):
    return Tensor(np.matmul(a._a, b._a), a.dtype, a.device)


def logsumexp(t, dim):
    a = t._a.astype(np.float64)
    m = np.max(a, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - m), axis=dim)) + np.squeeze(m, axis=dim)
    return Tensor(out.astype(np.float32), float32, t.device)


class cuda:  # noqa: N801 -- torch's name
    @staticmethod
    def is_available():
        return False


from . import nn  # noqa: E402,F401
