"""Translate the native kernels (restricted Python) into one C extension, _engine.c.

    python scripts/native_c.py            # write src/nomercy/native/_engine.c
    python scripts/native_c.py --check    # exit 1 when the file is not current

The C is made at build time, never committed: the package build's hook (hatch_build.py)
runs this script in a checkout, for the sdist (which ships the C), a wheel or an editable
install, and ``make native`` does the same in place; a wheel built from the sdist only
compiles the C it ships.

The kernels in src/nomercy/native/ are C-like Python: int32 table vectors and a few other
numpy arrays, integer and float scalars, loops over ranges, constants from layout.py.
This translator reads their syntax trees (marked by ``_compiled.kernel`` and
``_compiled.inline``). A kernel's parameters say their C types by annotation (the array
aliases of ``nomercy.native.cdecl``, ``int`` for int64, ``float`` for double), never by
name: a kernel parameter without one is refused. From there it infers a C type for every
value as numba did (integers are int64, ``np.uint64`` values unsigned, ``/`` and floats
double, comparisons boolean), specialises each function for the argument types it is
called with (an inline helper takes its callers' types), and writes:

- one static C function per specialisation (``inline`` helpers always inlined);
- the module's global arrays and constants as static data, frozen at translation time;
- for every ``kernel``, a Python-callable wrapper (METH_FASTCALL) that takes numpy arrays
  through the buffer protocol (no numpy headers: the extension builds with a C compiler
  and Python's headers alone) and checks their element type and dimensions.

The C names the layout's integer constants (layout.py and slots.py) by ``#define`` and puts
a ``#line`` directive before each statement naming its kernel's file and line, so that a
compiler's message or a debugger points at the kernel (``generate(sources)`` translates
any list of functions: tests/native/test_translation.py compiles its own).

Python semantics kept: floor division and modulo, int64 wrap-around, a range loop's
variable, int32 stores that wrap. Not supported (the translator says where): negative
indices other than literals, loops over anything but ranges, keyword arguments.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "nomercy" / "native" / "_engine.c"
MODULES = ("kernels", "heuristic", "encode", "sim", "vector", "playout", "policy")

CTYPE = {
    "i64": "int64_t",
    "u64": "uint64_t",
    "f64": "double",
    "b": "int64_t",
    "i32": "int32_t",
    "u8": "uint8_t",
    "f32": "float",
    "i8": "int8_t",
    "u32": "uint32_t",
    "i16": "int16_t",
}
#: numpy dtype kind/size -> element name.
DTYPES = {
    ("i", 4): "i32",
    ("i", 8): "i64",
    ("u", 8): "u64",
    ("u", 1): "u8",
    ("b", 1): "u8",
    ("f", 8): "f64",
    ("f", 4): "f32",
    ("i", 1): "i8",
    ("u", 4): "u32",
    ("i", 2): "i16",
}
ELEMS = ("i32", "i64", "u64", "u8", "f64", "f32", "i8", "u32", "i16")


class Untranslatable(Exception):
    pass


def scalar_of(elem: str) -> str:
    """The value type of an array element once loaded (numba widens small ints to int64)."""
    if elem in ("f64", "f32"):
        return "f64"
    if elem == "u64":
        return "u64"
    return "i64"


def unify(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, tuple) or isinstance(b, tuple):
        raise Untranslatable(f"cannot unify {a} and {b}")
    if "f64" in (a, b):
        return "f64"
    if "u64" in (a, b):
        return "u64"
    return "i64"


def arith(a: str, b: str) -> str:
    if "f64" in (a, b):
        return "f64"
    if "u64" in (a, b):
        return "u64"
    return "i64"


def tname(t: Any) -> str:
    if isinstance(t, tuple) and t[0] == "A":
        return f"A_{t[1]}"
    if isinstance(t, tuple) and t[0] == "T":
        return "T_" + "_".join(x if isinstance(x, str) else tname(x) for x in t[1])
    if t is None:
        return "void"
    return CTYPE[t]


class Program:
    def __init__(self, sources: list[tuple[str, Any]] | None = None) -> None:
        if sources is None:
            os.environ["NOMERCY_NATIVE_SOURCE"] = "1"
            sys.path.insert(0, str(ROOT / "src"))
            import importlib

            for name in MODULES:
                importlib.import_module(f"nomercy.native.{name}")
            from nomercy.native import _compiled

            sources = list(_compiled.SOURCES)
        self.sources = sources
        self.kind = {fn: kind for kind, fn in self.sources}
        self.specs: dict[tuple[Any, ...], tuple[str, Any]] = {}
        self.bodies: list[str] = []
        self.protos: list[str] = []
        self.globals: dict[tuple[str, str], tuple[str, Any]] = {}
        self.global_defs: list[str] = []
        self.tuples: dict[Any, str] = {}
        self.count = 0
        # The layout's integer constants (offsets, rule slots, action codes: layout.py and
        # slots.py), which the C names by #define rather than as bare numbers.
        from nomercy.native import layout

        self.layout = {
            k: v for k, v in vars(layout).items() if k.isupper() and type(v) is int and not k.startswith("_")
        }
        self.defines: dict[str, str] = {}

    # -- globals -------------------------------------------------------------------------
    def global_array(self, module: str, name: str, value: Any) -> tuple[str, Any]:
        key = (module, name)
        if key in self.globals:
            return self.globals[key]
        import numpy as np

        arr = np.ascontiguousarray(value)
        elem = DTYPES.get((arr.dtype.kind, arr.dtype.itemsize))
        if elem is None or arr.ndim > 3:
            raise Untranslatable(f"global {module}.{name}: dtype {arr.dtype}")
        cname = f"G_{module}_{name}"
        flat = arr.reshape(-1)
        if elem in ("f64", "f32"):
            items = ", ".join(repr(float(x)) for x in flat)
        elif elem == "u64":
            items = ", ".join(f"{int(x)}ULL" for x in flat)
        else:
            items = ", ".join(f"{int(x)}LL" if elem == "i64" else str(int(x)) for x in flat)
        shape = list(arr.shape) + [0] * (3 - arr.ndim)
        self.global_defs.append(
            f"static {CTYPE[elem]} {cname}_data[{max(flat.size, 1)}] = {{{items or '0'}}};\n"
            f"static A_{elem} {cname} = {{{cname}_data, {shape[0]}, {shape[1]}, {shape[2]}}};"
        )
        self.globals[key] = (cname, ("A", elem, arr.ndim))
        return self.globals[key]

    def tuple_type(self, t: Any) -> str:
        name = tname(t)
        if t not in self.tuples:
            fields = " ".join(f"{tname(x)} f{i};" for i, x in enumerate(t[1]))
            self.tuples[t] = f"typedef struct {{ {fields} }} {name};"
        return name

    # -- specialisation ----------------------------------------------------------------------
    def specialise(self, fn: Any, argtypes: tuple[Any, ...]) -> tuple[str, Any]:
        key = (fn, argtypes)
        if key in self.specs:
            return self.specs[key]
        self.count += 1
        mod = fn.__module__.rsplit(".", 1)[-1]
        cname = f"f_{mod}_{fn.__name__}_{self.count}"
        self.specs[key] = (cname, "pending")
        gen = FunctionGen(self, fn, argtypes, cname)
        ret = gen.run()
        self.specs[key] = (cname, ret)
        return cname, ret


class FunctionGen:
    def __init__(self, prog: Program, fn: Any, argtypes: tuple[Any, ...], cname: str) -> None:
        self.prog = prog
        self.fn = fn
        self.mod = fn.__module__.rsplit(".", 1)[-1]
        self.g = fn.__globals__
        src = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(src).body[0]
        assert isinstance(tree, ast.FunctionDef)
        self.tree = tree
        self.params = [a.arg for a in tree.args.args]
        if len(self.params) != len(argtypes):
            raise Untranslatable(f"{fn.__name__}: {len(argtypes)} arguments for {self.params}")
        self.argtypes = argtypes
        self.cname = cname
        self.env: dict[str, Any] = dict(zip(self.params, argtypes, strict=True))
        self.ret: Any = None
        self.returns_value = False
        self.tmp = 0
        # Where the source is, for the C's #line directives and the errors.
        self.first = inspect.getsourcelines(fn)[1]
        self.file = source_path(fn)

    def line(self, node: ast.AST) -> int:
        """``node``'s line in its source file."""
        return int(self.first + getattr(node, "lineno", 1) - 1)

    def err(self, node: ast.AST, msg: str) -> Untranslatable:
        return Untranslatable(
            f"{self.fn.__module__}.{self.fn.__name__} ({self.file} line {self.line(node)}): {msg}"
        )

    def run(self) -> Any:
        # Infer the locals' types: passes over the body until nothing changes.
        for _ in range(8):
            before = dict(self.env)
            ret_before = self.ret
            self.infer_block(self.tree.body)
            if before == self.env and ret_before == self.ret:
                break
        if self.ret is not None and isinstance(self.ret, tuple) and self.ret[0] == "T":
            self.prog.tuple_type(self.ret)
        body = self.block(self.tree.body, 1)
        kind = self.prog.kind[self.fn]
        attr = "static inline __attribute__((always_inline))" if kind == "inline" else "static"
        # A parameter rebound to a wider type (``n = np.uint64(n)``) is a local of that type.
        widened = {p for p, t in zip(self.params, self.argtypes, strict=True) if self.env[p] != t}
        params = ", ".join(
            f"{tname(t)} {'_p_' + p if p in widened else p}"
            for p, t in zip(self.params, self.argtypes, strict=True)
        )
        proto = f"{attr} {tname(self.ret)} {self.cname}({params or 'void'})"
        decls = "".join(f"    {tname(self.env[p])} {p} = ({tname(self.env[p])})_p_{p};\n" for p in widened)
        decls += "".join(
            f"    {tname(t)} {v} = {{0}};\n" if isinstance(t, tuple) else f"    {tname(t)} {v} = 0;\n"
            for v, t in self.env.items()
            if v not in self.params and t is not None
        )
        self.prog.protos.append(proto + ";")
        here = f'#line {self.line(self.tree)} "{self.file}"\n'
        self.prog.bodies.append(f"{here}{proto} {{\n{decls}{body}}}\n")
        return self.ret

    # -- inference -----------------------------------------------------------------------------
    def infer_block(self, stmts: list[ast.stmt]) -> None:
        for st in stmts:
            self.infer_stmt(st)

    def bind(self, target: ast.expr, t: Any) -> None:
        if isinstance(target, ast.Name):
            if t is None:
                return
            old = self.env.get(target.id)
            if target.id in self.params and old != t and not (isinstance(old, str) and isinstance(t, str)):
                raise self.err(target, f"parameter {target.id} rebound to {t}")
            self.env[target.id] = unify(old, t) if not isinstance(t, tuple) or old is None else t
        elif isinstance(target, ast.Tuple):
            if t is None:
                return
            if not (isinstance(t, tuple) and t[0] == "T"):
                raise self.err(target, "unpacking a non-tuple")
            for el, et in zip(target.elts, t[1], strict=True):
                self.bind(el, et)

    def infer_stmt(self, st: ast.stmt) -> None:
        if isinstance(st, ast.Assign):
            t = self.typeof(st.value)
            for tg in st.targets:
                self.bind(tg, t)
        elif isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name):
                a = self.env.get(st.target.id)
                b = self.typeof(st.value)
                if a is not None and b is not None:
                    self.bind(st.target, self.binop_type(st.op, a, b))
        elif isinstance(st, ast.For):
            self.bind(st.target, "i64")
            self.infer_block(st.body)
        elif isinstance(st, ast.While):
            self.infer_block(st.body)
        elif isinstance(st, ast.If):
            self.infer_block(st.body)
            self.infer_block(st.orelse)
        elif isinstance(st, ast.Return):
            t = None if st.value is None else self.typeof(st.value)
            if st.value is not None:
                if t is not None:
                    if isinstance(t, tuple):
                        self.ret = t if self.ret is None else self.ret
                    else:
                        self.ret = unify(self.ret, t)
                self.returns_value = True

    def typeof(self, e: ast.expr) -> Any:
        try:
            return self.expr(e)[1]
        except KeyError:
            return None

    def binop_type(self, op: ast.operator, a: Any, b: Any) -> Any:
        if isinstance(op, ast.Div):
            return "f64"
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and a == "b" and b == "b":
            return "b"
        return arith(a, b)

    # -- statements ---------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt], depth: int) -> str:
        """The statements' C, each after a ``#line`` naming its line in the kernel's file."""
        out = []
        for st in stmts:
            code = self.stmt(st, depth)
            if code:
                out.append(f'#line {self.line(st)} "{self.file}"\n{code}')
        return "".join(out)

    def new_tmp(self) -> str:
        self.tmp += 1
        return f"_t{self.tmp}"

    def store(self, target: ast.expr, code: str, t: Any, depth: int) -> str:
        ind = "    " * depth
        if isinstance(target, ast.Name):
            if isinstance(t, tuple) != isinstance(self.env[target.id], tuple):
                raise self.err(target, f"{target.id} bound to a {t}")
            return f"{ind}{target.id} = {self.cast(code, t, self.env[target.id])};\n"
        if isinstance(target, ast.Subscript):
            ref, et = self.subscript_ref(target)
            if isinstance(t, tuple):
                raise self.err(target, f"storing a {t} into an array")
            return f"{ind}{ref} = {self.cast(code, t, et)};\n"
        if isinstance(target, ast.Tuple):
            tmp = self.new_tmp()
            out = f"{ind}{{ {tname(t)} {tmp} = {code};\n"
            for i, (el, et) in enumerate(zip(target.elts, t[1], strict=True)):
                out += self.store(el, f"{tmp}.f{i}", et, depth + 1)
            return out + f"{ind}}}\n"
        raise self.err(target, f"cannot assign to {ast.dump(target)}")

    def cast(self, code: str, src: Any, dst: Any) -> str:
        if src == dst or isinstance(dst, tuple) or dst is None:
            return code
        if dst in ("i32", "u8", "f32", "i8", "u32", "i16"):
            if src == "f64" and dst not in ("f32",):
                return f"({CTYPE[dst]})(int64_t)({code})"
            return f"({CTYPE[dst]})({code})"
        if dst == "b":
            return f"(int64_t)(({code}) != 0)"
        if src == "f64" and dst in ("i64", "u64"):
            return f"({CTYPE[dst]})({code})"
        return f"({CTYPE[dst]})({code})"

    def stmt(self, st: ast.stmt, depth: int) -> str:
        ind = "    " * depth
        if isinstance(st, ast.Expr):
            if isinstance(st.value, ast.Constant):
                return ""  # a docstring
            code, _ = self.expr(st.value)
            return f"{ind}{code};\n"
        if isinstance(st, ast.Pass):
            return ""
        if isinstance(st, ast.Assert):
            return ""
        if isinstance(st, ast.Assign):
            if len(st.targets) != 1:
                raise self.err(st, "chained assignment")
            target = st.targets[0]
            if isinstance(target, ast.Tuple) and isinstance(st.value, ast.Tuple):
                temps = []
                out = f"{ind}{{\n"
                for el in st.value.elts:
                    code, t = self.expr(el)
                    tmp = self.new_tmp()
                    temps.append((tmp, t))
                    out += f"{ind}    {tname(t)} {tmp} = {code};\n"
                for tg, (tmp, t) in zip(target.elts, temps, strict=True):
                    out += self.store(tg, tmp, t, depth + 1)
                return out + f"{ind}}}\n"
            code, t = self.expr(st.value)
            return self.store(target, code, t, depth)
        if isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name):
                load = ast.Name(id=st.target.id, ctx=ast.Load())
            elif isinstance(st.target, ast.Subscript):
                load = ast.Subscript(value=st.target.value, slice=st.target.slice, ctx=ast.Load())
            else:
                raise self.err(st, "augmented assignment target")
            ast.copy_location(load, st)
            value = ast.BinOp(left=load, op=st.op, right=st.value)
            ast.copy_location(value, st)
            code, t = self.expr(value)
            return self.store(st.target, code, t, depth)
        if isinstance(st, ast.If):
            out = f"{ind}if ({self.cond(st.test)}) {{\n{self.block(st.body, depth + 1)}{ind}}}"
            if st.orelse:
                out += f" else {{\n{self.block(st.orelse, depth + 1)}{ind}}}"
            return out + "\n"
        if isinstance(st, ast.While):
            if st.orelse:
                raise self.err(st, "while ... else")
            return f"{ind}while ({self.cond(st.test)}) {{\n{self.block(st.body, depth + 1)}{ind}}}\n"
        if isinstance(st, ast.For):
            return self.for_range(st, depth)
        if isinstance(st, ast.Break):
            return f"{ind}break;\n"
        if isinstance(st, ast.Continue):
            return f"{ind}continue;\n"
        if isinstance(st, ast.Return):
            if st.value is None:
                return f"{ind}return;\n" if self.ret is None else f"{ind}return 0;\n"
            if isinstance(st.value, ast.Tuple):
                parts = [self.expr(el) for el in st.value.elts]
                fields = ", ".join(self.cast(c, t, rt) for (c, t), rt in zip(parts, self.ret[1], strict=True))
                return f"{ind}return ({tname(self.ret)}){{{fields}}};\n"
            code, t = self.expr(st.value)
            return f"{ind}return {self.cast(code, t, self.ret)};\n"
        raise self.err(st, f"statement {type(st).__name__}")

    def for_range(self, st: ast.For, depth: int) -> str:
        ind = "    " * depth
        it = st.iter
        if st.orelse or not (
            isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
        ):
            raise self.err(st, "a for loop over anything but range()")
        if not isinstance(st.target, ast.Name):
            raise self.err(st, "a for loop target that is not a name")
        args = [self.expr(a)[0] for a in it.args]
        step = "1"
        negative: bool | None = False
        if len(args) == 1:
            start, stop = "0", args[0]
        elif len(args) == 2:
            start, stop = args
        else:
            start, stop, step = args
            s = it.args[2]
            if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub):
                negative = True
            elif not isinstance(s, ast.Constant):
                negative = None  # known only when the loop runs
        k = self.new_tmp()
        e = self.new_tmp()
        d = self.new_tmp()
        if negative is None:
            test = f"({d} > 0 ? {k} < {e} : {k} > {e})"
        else:
            test = f"{k} {'>' if negative else '<'} {e}"
        return (
            f"{ind}{{ int64_t {e} = {stop}; int64_t {d} = {step};\n"
            f"{ind}for (int64_t {k} = {start}; {test}; {k} += {d}) {{\n"
            f"{ind}    {st.target.id} = {k};\n{self.block(st.body, depth + 1)}{ind}}} }}\n"
        )

    def cond(self, e: ast.expr) -> str:
        return self.scalar(e)[0]

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, e: ast.expr) -> tuple[str, Any]:
        m = getattr(self, f"e_{type(e).__name__}", None)
        if m is None:
            raise self.err(e, f"expression {type(e).__name__}")
        return m(e)  # type: ignore[no-any-return]

    def e_Constant(self, e: ast.Constant) -> tuple[str, Any]:
        v = e.value
        if isinstance(v, bool):
            return ("1" if v else "0"), "b"
        if isinstance(v, int):
            return self.int_lit(v)
        if isinstance(v, float):
            return repr(v), "f64"
        if v is None:
            return "0", "i64"
        raise self.err(e, f"constant {v!r}")

    @staticmethod
    def int_lit(v: int) -> tuple[str, str]:
        if v > 2**63 - 1:
            return f"{v}ULL", "u64"
        if v == -(2**63):
            return "INT64_MIN", "i64"
        return f"{v}LL" if v >= 0 else f"({v}LL)", "i64"

    def e_Name(self, e: ast.Name) -> tuple[str, Any]:
        if e.id in self.env:
            return e.id, self.env[e.id]
        if e.id in ("True", "False"):
            return ("1" if e.id == "True" else "0"), "b"
        if e.id not in self.g:
            raise KeyError(e.id)
        v = self.g[e.id]
        if type(v) is int and self.prog.layout.get(e.id) == v:  # the layout's name, #defined
            self.prog.defines[e.id] = self.int_lit(v)[0]
            return e.id, self.int_lit(v)[1]
        return self.global_value(e, v, e.id)

    def global_value(self, e: ast.expr, v: Any, name: str) -> tuple[str, Any]:
        import numpy as np

        if isinstance(v, (bool, np.bool_)):
            return ("1" if v else "0"), "b"
        if isinstance(v, np.unsignedinteger):
            return f"{int(v)}ULL", "u64"
        if isinstance(v, (int, np.integer)):
            return self.int_lit(int(v))
        if isinstance(v, (float, np.floating)):
            return repr(float(v)), "f64"
        if isinstance(v, np.ndarray):
            owner = getattr(self.fn, "__module__", "m").rsplit(".", 1)[-1]
            return self.prog.global_array(owner, name, v)
        raise self.err(e, f"global {name} of type {type(v).__name__}")

    def e_Attribute(self, e: ast.Attribute) -> tuple[str, Any]:
        if isinstance(e.value, ast.Name) and e.value.id not in self.env:
            obj = self.g.get(e.value.id)
            if obj is not None and hasattr(obj, e.attr):
                return self.global_value(e, getattr(obj, e.attr), f"{e.value.id}_{e.attr}")
        raise self.err(e, f"attribute {ast.dump(e)}")

    def e_UnaryOp(self, e: ast.UnaryOp) -> tuple[str, Any]:
        code, t = self.scalar(e.operand)
        if isinstance(e.op, ast.Not):
            return f"(!({code}))", "b"
        if isinstance(e.op, ast.USub):
            if isinstance(e.operand, ast.Constant):
                return (
                    self.int_lit(-e.operand.value) if isinstance(e.operand.value, int) else (f"(-{code})", t)
                )
            return f"(-({code}))", ("i64" if t == "b" else t)
        if isinstance(e.op, ast.Invert):
            if t == "b":
                raise self.err(e, "~ on a boolean")
            return f"(~({code}))", t
        if isinstance(e.op, ast.UAdd):
            return code, t
        raise self.err(e, "unary operator")

    def scalar(self, e: ast.expr) -> tuple[str, Any]:
        code, t = self.expr(e)
        if not isinstance(t, str):
            raise self.err(e, f"a {t} where a number is needed")
        return code, t

    def e_BinOp(self, e: ast.BinOp) -> tuple[str, Any]:
        a, ta = self.scalar(e.left)
        b, tb = self.scalar(e.right)
        t = self.binop_type(e.op, ta, tb)
        op = e.op
        if t == "f64":
            a, b = f"(double)({a})", f"(double)({b})"
        elif t in ("i64", "u64"):
            a, b = self.cast(a, ta, t), self.cast(b, tb, t)
        if isinstance(op, ast.Add):
            return f"({a} + {b})", t
        if isinstance(op, ast.Sub):
            return f"({a} - {b})", t
        if isinstance(op, ast.Mult):
            if t == "i64":  # int64 wrap-around without C's signed-overflow trap
                return f"(int64_t)((uint64_t)({a}) * (uint64_t)({b}))", t
            return f"({a} * {b})", t
        if isinstance(op, ast.Div):
            return f"({a} / {b})", "f64"
        if isinstance(op, ast.FloorDiv):
            if t == "f64":
                return f"floor({a} / {b})", t
            if t == "u64":
                return f"({a} / {b})", t
            return f"py_floordiv({a}, {b})", t
        if isinstance(op, ast.Mod):
            if t == "f64":
                return f"py_fmod({a}, {b})", t
            if t == "u64":
                return f"({a} % {b})", t
            return f"py_mod({a}, {b})", t
        if isinstance(op, ast.LShift):
            if t == "i64":
                return f"(int64_t)((uint64_t)({a}) << ({b}))", t
            return f"({a} << {b})", t
        if isinstance(op, ast.RShift):
            return f"({a} >> {b})", t
        if isinstance(op, ast.BitAnd):
            return f"({a} & {b})", t
        if isinstance(op, ast.BitOr):
            return f"({a} | {b})", t
        if isinstance(op, ast.BitXor):
            return f"({a} ^ {b})", t
        if isinstance(op, ast.Pow):
            if t == "f64":
                return f"pow({a}, {b})", t
            return f"py_ipow({a}, {b})", t
        raise self.err(e, "binary operator")

    def e_BoolOp(self, e: ast.BoolOp) -> tuple[str, Any]:
        parts = [self.expr(v) for v in e.values]
        if all(t == "b" for _, t in parts):
            op = " && " if isinstance(e.op, ast.And) else " || "
            return "(" + op.join(c for c, _ in parts) + ")", "b"
        # Python's value semantics: a or b is a when a is true, else b.
        t = parts[0][1]
        for _, pt in parts[1:]:
            t = unify(t, pt)
        code, _ = parts[-1]
        code = self.cast(code, parts[-1][1], t)
        for c, pt in reversed(parts[:-1]):
            c = self.cast(c, pt, t)
            if isinstance(e.op, ast.Or):
                code = f"(({c}) ? ({c}) : ({code}))"
            else:
                code = f"(!({c}) ? ({c}) : ({code}))"
        return code, t

    def e_Compare(self, e: ast.Compare) -> tuple[str, Any]:
        ops = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
        left = self.scalar(e.left)
        parts = []
        for op, right in zip(e.ops, e.comparators, strict=True):
            r = self.scalar(right)
            if type(op) not in ops:
                raise self.err(e, "comparison operator")
            a, b = left[0], r[0]
            if {left[1], r[1]} == {"u64", "i64"} or {left[1], r[1]} == {"u64", "b"}:
                a, b = f"(double)({a})", f"(double)({b})"
            parts.append(f"({a} {ops[type(op)]} {b})")
            left = r
        return ("(" + " && ".join(parts) + ")") if len(parts) > 1 else parts[0], "b"

    def e_IfExp(self, e: ast.IfExp) -> tuple[str, Any]:
        c = self.cond(e.test)
        a, ta = self.expr(e.body)
        b, tb = self.expr(e.orelse)
        if isinstance(ta, tuple) or isinstance(tb, tuple):
            if ta != tb:
                raise self.err(e, "conditional over different arrays")
            return f"(({c}) ? {a} : {b})", ta
        t = unify(ta, tb)
        return f"(({c}) ? {self.cast(a, ta, t)} : {self.cast(b, tb, t)})", t

    def e_Tuple(self, e: ast.Tuple) -> tuple[str, Any]:
        parts = [self.expr(x) for x in e.elts]
        t = ("T", tuple(p[1] for p in parts))
        name = self.prog.tuple_type(t)
        return f"(({name}){{{', '.join(p[0] for p in parts)}}})", t

    def index_parts(self, sl: ast.expr) -> list[ast.expr]:
        return list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]

    def subscript_ref(self, e: ast.Subscript) -> tuple[str, Any]:
        """An element of an array: its C lvalue and element type."""
        base, bt = self.expr(e.value)
        if not (isinstance(bt, tuple) and bt[0] == "A"):
            raise self.err(e, "indexing a non-array")
        idx = self.index_parts(e.slice)
        if len(idx) != bt[2] or any(isinstance(i, ast.Slice) for i in idx):
            raise self.err(e, "an element reference needs every index")
        codes = [self.index_code(i, base, d) for d, i in enumerate(idx)]
        if bt[2] == 1:
            flat = codes[0]
        elif bt[2] == 2:
            flat = f"({codes[0]}) * {base}.n1 + ({codes[1]})"
        else:
            flat = f"(({codes[0]}) * {base}.n1 + ({codes[1]})) * {base}.n2 + ({codes[2]})"
        return f"{base}.p[{flat}]", bt[1]

    def index_code(self, i: ast.expr, base: str, dim: int) -> str:
        if isinstance(i, ast.UnaryOp) and isinstance(i.op, ast.USub) and isinstance(i.operand, ast.Constant):
            return f"{base}.n{dim} - {i.operand.value}"
        code, t = self.expr(i)
        if t not in ("i64", "u64", "b"):
            raise self.err(i, f"index of type {t}")
        return code

    def e_Subscript(self, e: ast.Subscript) -> tuple[str, Any]:
        base, bt = self.expr(e.value)
        if isinstance(bt, tuple) and bt[0] == "T":
            if not isinstance(e.slice, ast.Constant):
                raise self.err(e, "a tuple index that is not a literal")
            return f"{base}.f{e.slice.value}", bt[1][e.slice.value]
        if base.endswith("__shape"):
            arr = base[: -len("__shape")]
            if not isinstance(e.slice, ast.Constant):
                raise self.err(e, "shape[i] with i not a literal")
            return f"{arr}.n{e.slice.value}", "i64"
        if not (isinstance(bt, tuple) and bt[0] == "A"):
            raise self.err(e, f"indexing a {bt}")
        idx = self.index_parts(e.slice)
        elem, ndim = bt[1], bt[2]
        if len(idx) == ndim and not any(isinstance(i, ast.Slice) for i in idx):
            ref, et = self.subscript_ref(e)
            if et == "f32":
                return f"(double)({ref})", "f64"
            st = scalar_of(et)
            return f"(({CTYPE[st]}){ref})", st
        if len(idx) == 1 and isinstance(idx[0], ast.Slice):
            if ndim != 1:
                raise self.err(e, "slicing a multi-dimensional array")
            sl = idx[0]
            if sl.step is not None:
                raise self.err(e, "a slice with a step")
            lo = self.expr(sl.lower)[0] if sl.lower is not None else "0"
            hi = self.expr(sl.upper)[0] if sl.upper is not None else f"{base}.n0"
            tmp_lo = f"({lo})"
            return f"((A_{elem}){{{base}.p + {tmp_lo}, ({hi}) - {tmp_lo}, 0, 0}})", ("A", elem, 1)
        if (
            ndim == 2
            and len(idx) == 2
            and isinstance(idx[1], ast.Slice)
            and not isinstance(idx[0], ast.Slice)
        ):
            sl = idx[1]
            if sl.step is not None:
                raise self.err(e, "a slice with a step")
            r = self.index_code(idx[0], base, 0)
            lo = self.expr(sl.lower)[0] if sl.lower is not None else "0"
            hi = self.expr(sl.upper)[0] if sl.upper is not None else f"{base}.n1"
            return (
                f"((A_{elem}){{{base}.p + ({r}) * {base}.n1 + ({lo}), ({hi}) - ({lo}), 0, 0}})",
                ("A", elem, 1),
            )
        if len(idx) < ndim and not any(isinstance(i, ast.Slice) for i in idx):
            if ndim == 2:
                r = self.index_code(idx[0], base, 0)
                return f"((A_{elem}){{{base}.p + ({r}) * {base}.n1, {base}.n1, 0, 0}})", ("A", elem, 1)
            if ndim == 3 and len(idx) == 1:
                r = self.index_code(idx[0], base, 0)
                return (
                    f"((A_{elem}){{{base}.p + ({r}) * {base}.n1 * {base}.n2, {base}.n1, {base}.n2, 0}})",
                    ("A", elem, 2),
                )
        raise self.err(e, "this subscript")

    def e_Call(self, e: ast.Call) -> tuple[str, Any]:
        if e.keywords:
            raise self.err(e, "keyword arguments")
        f = e.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in self.env:
            lib = self.g.get(f.value.id)
            name = f"{getattr(lib, '__name__', '')}.{f.attr}"
            return self.builtin(e, name)
        if isinstance(f, ast.Name) and f.id not in self.env:
            if f.id in ("len", "min", "max", "abs", "int", "float", "bool", "range") and f.id not in self.g:
                return self.builtin(e, f.id)
            target = self.g.get(f.id)
            if target is None:
                raise KeyError(f.id)
            if target in self.prog.kind:
                args = [self.expr(a) for a in e.args]
                cname, ret = self.prog.specialise(target, tuple(t for _, t in args))
                if ret == "pending":
                    raise self.err(e, "recursion")
                return f"{cname}({', '.join(c for c, _ in args)})", ret
            raise self.err(e, f"call of {f.id}, which is not a kernel")
        raise self.err(e, f"call {ast.dump(f)}")

    def builtin(self, e: ast.Call, name: str) -> tuple[str, Any]:
        args = [self.expr(a) for a in e.args]
        if name in ("numpy.int64", "int", "numpy.intp"):
            ((c, t),) = args
            return (f"(int64_t)({c})", "i64") if t != "i64" else (c, t)
        if name == "numpy.int32":
            ((c, _),) = args
            return f"(int64_t)(int32_t)({c})", "i64"
        if name == "numpy.uint64":
            ((c, t),) = args
            if t == "f64":
                return f"(uint64_t)(int64_t)({c})", "u64"
            return f"(uint64_t)({c})", "u64"
        if name in ("numpy.float64", "float"):
            ((c, _),) = args
            return f"(double)({c})", "f64"
        if name in ("bool", "numpy.bool_"):
            ((c, _),) = args
            return f"(int64_t)(({c}) != 0)", "b"
        if name == "len":
            ((c, t),) = args
            return f"{c}.n0", "i64"
        if name in ("min", "max"):
            if len(args) != 2:
                raise self.err(e, f"{name} of {len(args)} values")
            (a, ta), (b, tb) = args
            t = unify(ta, tb)
            if t == "b":
                t = "i64"
            fn = {"f64": "py_%s_f", "u64": "py_%s_u"}.get(t, "py_%s_i") % name
            return f"{fn}({self.cast(a, ta, t)}, {self.cast(b, tb, t)})", t
        if name in ("abs", "numpy.abs"):
            ((c, t),) = args
            return (f"fabs({c})", "f64") if t == "f64" else (f"py_abs_i({c})", "i64")
        math_fns = {"exp", "log", "sqrt", "floor", "ceil", "tanh", "log1p", "expm1"}
        short = name.split(".")[-1]
        if name.split(".")[0] in ("numpy", "math") and short in math_fns:
            ((c, _),) = args
            return f"{short}((double)({c}))", "f64"
        raise self.err(e, f"call of {name}")


def _shape_attr(gen: FunctionGen, e: ast.Attribute) -> tuple[str, Any]:
    if e.attr == "shape":
        code, t = gen.expr(e.value)
        if isinstance(t, tuple) and t[0] == "A":
            return f"{code}__shape", "shape"
    if e.attr == "size":
        code, t = gen.expr(e.value)
        if isinstance(t, tuple) and t[0] == "A":
            dims = [f"{code}.n{d}" for d in range(t[2])]
            return "(" + " * ".join(dims) + ")", "i64"
    return FunctionGen.e_Attribute(gen, e)


FunctionGen.e_Attribute = _shape_attr  # type: ignore[method-assign]

PRELUDE = r"""/* Generated by scripts/native_c.py from the kernels in src/nomercy/native/ (kernels.py
 * and the rest) at build time: do not edit; edit the Python kernels and run `make native`. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#endif

/* The module's name: _engine, or _engine_v3 for the build for x86-64-v3 processors
 * (AVX2, BMI2, FMA), which nomercy.native._compiled loads where _engine.cpu_v3() says the
 * processor has them (hatch_build.py builds both on x86-64). */
#ifndef NOMERCY_MODULE
#define NOMERCY_MODULE _engine
#endif
#define NOMERCY_STR2(x) #x
#define NOMERCY_STR(x) NOMERCY_STR2(x)
#define NOMERCY_CAT2(a, b) a##b
#define NOMERCY_CAT(a, b) NOMERCY_CAT2(a, b)

static inline int64_t py_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline int64_t py_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline double py_fmod(double a, double b) {
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline int64_t py_ipow(int64_t a, int64_t b) {
    int64_t r = 1;
    while (b-- > 0) r *= a;
    return r;
}
static inline int64_t py_min_i(int64_t a, int64_t b) { return b < a ? b : a; }
static inline int64_t py_max_i(int64_t a, int64_t b) { return b > a ? b : a; }
static inline uint64_t py_min_u(uint64_t a, uint64_t b) { return b < a ? b : a; }
static inline uint64_t py_max_u(uint64_t a, uint64_t b) { return b > a ? b : a; }
static inline double py_min_f(double a, double b) { return b < a ? b : a; }
static inline double py_max_f(double a, double b) { return b > a ? b : a; }
static inline int64_t py_abs_i(int64_t a) { return a < 0 ? -a : a; }
"""

ARG_HELPERS = r"""
static int arg_i64(PyObject *o, int64_t *out, int pos) {
    PyObject *n = PyNumber_Index(o);
    if (n == NULL) {
        PyErr_Format(PyExc_TypeError, "argument %d: an integer is needed", pos);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    if (overflow > 0) {
        v = (long long)PyLong_AsUnsignedLongLongMask(n);  /* below 2**64: the same bits */
    }
    Py_DECREF(n);
    if (overflow < 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Format(PyExc_OverflowError, "argument %d: out of the 64-bit range", pos);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

static int arg_f64(PyObject *o, double *out, int pos) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "argument %d: a number is needed", pos);
        return -1;
    }
    *out = v;
    return 0;
}

/* An element type's name and how numpy's buffer describes it. */
static int format_is(const char *fmt, Py_ssize_t itemsize, char kind, Py_ssize_t size) {
    char c = fmt ? fmt[0] : 'B';
    if (c == '<' || c == '=' || c == '@' || c == '|') c = fmt[1];
    if (itemsize != size) return 0;
    switch (kind) {
    case 'i': return c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q' || c == 'n';
    case 'u': return c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N' || c == '?';
    case 'f': return c == 'f' || c == 'd';
    }
    return 0;
}

static int arg_array(PyObject *o, Py_buffer *view, int ndim, char kind, Py_ssize_t size,
                     void **p, int64_t *n, const char *what, int pos) {
    if (PyObject_GetBuffer(o, view, PyBUF_RECORDS) != 0) {
        PyErr_Clear();
        if (PyObject_GetBuffer(o, view, PyBUF_RECORDS_RO) != 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "argument %d: a %dd array of %s is needed", pos, ndim, what);
            return -1;
        }
    }
    if (view->ndim != ndim || !format_is(view->format, view->itemsize, kind, size)) {
        PyErr_Format(PyExc_TypeError, "argument %d: a %dd array of %s is needed (got %dd of '%s')",
                     pos, ndim, what, view->ndim, view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_ValueError, "argument %d: the array must be C-contiguous", pos);
        PyBuffer_Release(view);
        return -1;
    }
    *p = view->buf;
    n[0] = n[1] = n[2] = 0;
    for (int d = 0; d < ndim; d++) n[d] = view->shape[d];
    return 0;
}
"""

ELEM_DESC = {
    "i32": ("i", 4, "int32"),
    "i64": ("i", 8, "int64"),
    "u64": ("u", 8, "uint64"),
    "u8": ("u", 1, "uint8 or bool"),
    "f64": ("f", 8, "float64"),
    "f32": ("f", 4, "float32"),
    "i8": ("i", 1, "int8"),
    "u32": ("u", 4, "uint32"),
    "i16": ("i", 2, "int16"),
}


def source_path(fn: Any) -> str:
    """``fn``'s file as the C's #line names it: from the repository's root where it is in it."""
    path = Path(inspect.getsourcefile(fn) or "?").resolve()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


#: Where a #line directive sends the compiler back to the C file itself (set in generate).
C_HERE = "#line __C__"


def _tree(fn: Any) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    assert isinstance(tree, ast.FunctionDef)
    return tree


def param_types(fn: Any) -> tuple[Any, ...]:
    """The C types of ``fn``'s parameters, from their annotations: an array alias of
    ``nomercy.native.cdecl`` (``I32Array``, ...), ``int`` (int64) or ``float`` (double).
    A parameter without one is refused: its name says nothing of its type."""
    from nomercy.native import cdecl

    where = f"{fn.__module__}.{fn.__name__}"
    out: list[Any] = []
    for a in _tree(fn).args.args:
        ann = a.annotation
        if ann is None:
            raise Untranslatable(
                f"{where}: parameter {a.arg} has no annotation (an array type of "
                "nomercy.native.cdecl such as I32Array, or int, or float)"
            )
        name = ann.attr if isinstance(ann, ast.Attribute) else getattr(ann, "id", None)
        if name == "int":
            out.append("i64")
        elif name == "float":
            out.append("f64")
        elif name in cdecl.ARRAYS:
            ctype = cdecl.ARRAYS[name]
            out.append(("A", ctype.elem, ctype.ndim))
        else:
            raise Untranslatable(f"{where}: parameter {a.arg}: {ast.unparse(ann)} is not a kernel type")
    return tuple(out)


def wrapper(prog: Program, fn: Any) -> tuple[str, str]:
    params = list(inspect.signature(fn).parameters)
    types = param_types(fn)
    cname, ret = prog.specialise(fn, types)
    wname = f"w_{cname}"
    lines = [
        f"static PyObject *{wname}(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {{",
        f"    if (nargs != {len(params)}) {{",
        f'        PyErr_Format(PyExc_TypeError, "{fn.__name__}() takes {len(params)} arguments '
        '(%zd given)", nargs);',
        "        return NULL;",
        "    }",
    ]
    views = [i for i, t in enumerate(types) if isinstance(t, tuple)]
    lines.extend(f"    Py_buffer v{i}; int h{i} = 0;" for i in views)
    call_args = []
    lines.append("    PyObject *result = NULL;")
    for i, (p, t) in enumerate(zip(params, types, strict=True)):
        if isinstance(t, tuple):
            kind, size, desc = ELEM_DESC[t[1]]
            lines.append(f"    A_{t[1]} a{i}; int64_t n{i}[3]; void *p{i};")
            lines.append(
                f"    if (arg_array(args[{i}], &v{i}, {t[2]}, '{kind}', {size}, &p{i}, n{i}, "
                f'"{desc} ({p})", {i + 1}) != 0) goto done;'
            )
            lines.append(
                f"    h{i} = 1; a{i}.p = p{i}; a{i}.n0 = n{i}[0]; a{i}.n1 = n{i}[1]; a{i}.n2 = n{i}[2];"
            )
        elif t == "f64":
            lines.append(f"    double a{i}; if (arg_f64(args[{i}], &a{i}, {i + 1}) != 0) goto done;")
        else:
            lines.append(f"    int64_t a{i}; if (arg_i64(args[{i}], &a{i}, {i + 1}) != 0) goto done;")
        call_args.append(f"a{i}")
    call = f"{cname}({', '.join(call_args)})"
    if ret is None:
        lines.append(f"    {call};")
        lines.append("    result = Py_None; Py_INCREF(result);")
    else:
        lines.append(f"    {tname(ret)} r = {call};")
        lines.append(f"    result = {to_py('r', ret)};")
    lines.append("done:")
    lines.extend(f"    if (h{i}) PyBuffer_Release(&v{i});" for i in views)
    lines.append("    return result;")
    lines.append("}")
    doc = (
        (inspect.getdoc(fn) or "")
        .split("\n\n")[0]
        .replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", " ")
    )
    entry = f'    {{"{prog_export_name(fn)}", (PyCFunction)(void (*)(void)){wname}, METH_FASTCALL, "{doc}"}},'
    return "\n".join(lines) + "\n", entry


def prog_export_name(fn: Any) -> str:
    return f"{fn.__module__.rsplit('.', 1)[-1]}_{fn.__name__}"


def to_py(code: str, t: Any) -> str:
    if t == "b":
        return f"PyBool_FromLong((long)({code}))"
    if t == "i64":
        return f"PyLong_FromLongLong({code})"
    if t == "u64":
        return f"PyLong_FromUnsignedLongLong({code})"
    if t == "f64":
        return f"PyFloat_FromDouble({code})"
    if isinstance(t, tuple) and t[0] == "T":
        fmt = "".join("N" for _ in t[1])
        items = ", ".join(to_py(f"{code}.f{i}", x) for i, x in enumerate(t[1]))
        return f'Py_BuildValue("({fmt})", {items})'  # N: each item's new reference is taken
    raise Untranslatable(f"returning {t} to Python")


CPU_V3 = r"""
static PyObject *w_cpu_v3(PyObject *self, PyObject *unused) {
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    return PyBool_FromLong(__builtin_cpu_supports("x86-64-v3") != 0);
#else
    Py_RETURN_FALSE;
#endif
}

"""


def generate(
    sources: list[tuple[str, Any]] | None = None, c_file: str = "src/nomercy/native/_engine.c"
) -> str:
    """The C extension of ``sources`` ((kind, function) pairs; by default every kernel of
    :data:`MODULES`)."""
    prog = Program(sources)
    wrappers = []
    entries = []
    exported = set()
    for kind, fn in prog.sources:
        name = prog_export_name(fn)
        if kind == "kernel":
            w, entry = wrapper(prog, fn)
        elif name in exported:
            continue
        else:
            # An inline helper is exported too where every parameter is annotated (tests
            # and tools call some from Python); the others stay C-only, typed by each caller.
            if not all(a.annotation is not None for a in _tree(fn).args.args):
                continue
            w, entry = wrapper(prog, fn)
        exported.add(name)
        wrappers.append(w)
        entries.append(entry)
    arrays = "".join(f"typedef struct {{ {CTYPE[e]} *p; int64_t n0, n1, n2; }} A_{e};\n" for e in ELEMS)
    module = (
        CPU_V3
        + "static PyMethodDef methods[] = {\n"
        + "\n".join(entries)
        + '\n    {"cpu_v3", (PyCFunction)(void (*)(void))w_cpu_v3, METH_NOARGS, '
        + '"Whether this processor runs the x86-64-v3 build."},'
        + "\n    {NULL, NULL, 0, NULL}\n};\n\n"
        + "static struct PyModuleDef engine_module = {PyModuleDef_HEAD_INIT, NOMERCY_STR(NOMERCY_MODULE),\n"
        + '    "The native engine\'s kernels, compiled ahead of time (generated by scripts/native_c.py).",\n'
        + "    -1, methods, NULL, NULL, NULL, NULL};\n\n"
        + "PyMODINIT_FUNC NOMERCY_CAT(PyInit_, NOMERCY_MODULE)(void) {\n"
        + "    return PyModule_Create(&engine_module);\n}\n"
    )
    defines = "".join(f"#define {k} {v}\n" for k, v in sorted(prog.defines.items()))
    text = (
        PRELUDE
        + "\n/* The layout's names (nomercy/native/layout.py and slots.py). */\n"
        + defines
        + "\n"
        + arrays
        + "\n"
        + "\n".join(prog.tuples.values())
        + "\n\n"
        + "\n".join(prog.global_defs)
        + "\n\n"
        + "\n".join(prog.protos)
        + "\n\n"
        + "\n".join(prog.bodies)
        + C_HERE
        + "\n"
        + ARG_HELPERS
        + "\n"
        + "\n".join(wrappers)
        + "\n"
        + module
    )
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line == C_HERE:
            lines[i] = f'#line {i + 2} "{c_file}"'
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when _engine.c is not current")
    parser.add_argument("--out", type=Path, default=OUT)
    ns = parser.parse_args()
    text = generate()
    if ns.check:
        if not ns.out.exists() or ns.out.read_text() != text:
            print(f"{ns.out} is not current: run make native (python hatch_build.py)", file=sys.stderr)
            return 1
        return 0
    if ns.out.exists() and ns.out.read_text() == text:  # untouched: make compiles nothing again
        print(f"{ns.out.relative_to(ROOT)} is current")
        return 0
    ns.out.write_text(text)
    print(f"wrote {ns.out} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
