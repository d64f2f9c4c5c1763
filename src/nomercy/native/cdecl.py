"""The C types of the native kernels' parameters, written as annotations.

A kernel says what each parameter is (``def step(s: I32Array, R: I64Array, seat: int, ...)``)
and ``scripts/native_c.py`` reads the annotation, never the parameter's name: a new
parameter without one is refused. Each alias is a numpy array type for readers and type
checkers, with its C element and dimensions attached (:class:`CType`), so the kernels still
run as plain Python. ``int`` is a C ``int64_t``, ``float`` a ``double``.
"""

from __future__ import annotations

from typing import Annotated, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt


class CType(NamedTuple):
    """An array parameter's C element (``i32``, ``f64``, ...) and number of dimensions."""

    elem: str
    ndim: int


I32Array: TypeAlias = Annotated[npt.NDArray[np.int32], CType("i32", 1)]
I32Array2: TypeAlias = Annotated[npt.NDArray[np.int32], CType("i32", 2)]
I64Array: TypeAlias = Annotated[npt.NDArray[np.int64], CType("i64", 1)]
I64Array2: TypeAlias = Annotated[npt.NDArray[np.int64], CType("i64", 2)]
U64Array: TypeAlias = Annotated[npt.NDArray[np.uint64], CType("u64", 1)]
U64Array2: TypeAlias = Annotated[npt.NDArray[np.uint64], CType("u64", 2)]
U32Array2: TypeAlias = Annotated[npt.NDArray[np.uint32], CType("u32", 2)]
#: ``uint8`` or ``bool`` elements (a boolean mask).
U8Array: TypeAlias = Annotated[npt.NDArray[np.uint8], CType("u8", 1)]
I8Array: TypeAlias = Annotated[npt.NDArray[np.int8], CType("i8", 1)]
I8Array2: TypeAlias = Annotated[npt.NDArray[np.int8], CType("i8", 2)]
F64Array: TypeAlias = Annotated[npt.NDArray[np.float64], CType("f64", 1)]
F32Array: TypeAlias = Annotated[npt.NDArray[np.float32], CType("f32", 1)]
F32Array2: TypeAlias = Annotated[npt.NDArray[np.float32], CType("f32", 2)]

#: Every alias by its name: what the translator accepts as an array annotation.
ARRAYS: dict[str, CType] = {
    name: alias.__metadata__[0]
    for name, alias in list(globals().items())
    if getattr(alias, "__metadata__", None) and isinstance(alias.__metadata__[0], CType)
}
