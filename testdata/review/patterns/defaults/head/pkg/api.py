# Synthetic fixture: a default changed in some places, not all.
from . import _ext


def mul(a, b, max_par=16):
    return _ext.mul(a, b, max_par)


def mul_layer(a, b, max_par=8):
    return _ext.mul(a, b, max_par)


def tile(a, block=64):
    BLOCK = 32
    return _ext.tile(a, block)
