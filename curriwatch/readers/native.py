"""Compiled kernels without numba's start-up: numba compiles them once, later processes load their
machine code with llvmlite.

The kernels are plain Python functions (`event_scan.py`, `history_scan.py`) marked `@jit` (helpers)
or `@entry(signature)` (called from Python). The first process that needs them imports numba,
compiles every entry as a C-callable function, links them into one object file and keeps it in a
cache file; every later process loads that file with llvmlite in ~20 ms, where importing numba and
loading its own cache costs ~0.7 s (numba's first call also imports scipy.linalg). The kernels
allocate nothing and raise nothing (checked when compiling: the object may call nothing but
memcpy/memset), so they need none of numba's runtime.

The cache file is keyed by the kernels' source, llvmlite's version, the Python version and the
host CPU (name and features): a file built elsewhere is never loaded. It lives where numba keeps
its own cache: `$NUMBA_CACHE_DIR`, else the package's `__pycache__` when writable, else the user
cache folder. Without numba or llvmlite, with `CURRIWATCH_NO_JIT=1`, or when compiling fails,
`kernels()` is None and the readers use their numpy paths (same points, same issues).
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import re
import sys
import types

import numpy as np

_MARK = "_curriwatch_kernel"
_MAGIC = b"curriwatch-kernels 1\n"
MODULES = ("curriwatch.readers.event_scan", "curriwatch.readers.history_scan")
_ALLOWED = ("memcpy", "memset", "memmove")  # all compiled kernels may call: nothing of numba's runtime
_DTYPES = {"u1": (np.uint8, "uint8"), "u4": (np.uint32, "uint32"), "u8": (np.uint64, "uint64"),
           "i1": (np.int8, "int8"), "i8": (np.int64, "int64"), "f8": (np.float64, "float64")}


def jit(func):
    """A helper the kernels call (compiled with them; plain Python otherwise)."""
    setattr(func, _MARK, None)
    return func


def entry(signature: str):
    """An entry point: `"i8(u1[:], i8, f8[:,:])"` (a scalar return type, then arguments: scalars or
    C-ordered arrays of 1 or 2 dimensions)."""
    def mark(func):
        setattr(func, _MARK, signature)
        return func
    return mark


class Kernels:
    """The loaded entry points as Python callables taking numpy arrays and numbers."""

    def __init__(self, functions: dict) -> None:
        self.__dict__.update(functions)


_STATE: dict = {}  # "kernels": Kernels | None once tried; "engine": keeps the loaded code alive


def kernels() -> Kernels | None:
    """The compiled kernels of this process (loaded or built on first use), None when unavailable."""
    if "kernels" not in _STATE:
        _STATE["kernels"] = None
        if not os.environ.get("CURRIWATCH_NO_JIT"):
            try:
                _STATE["kernels"] = _load_or_build()
            except Exception:  # noqa: BLE001 - no compiler toolchain here: the numpy paths read the same
                _STATE["kernels"] = None
    return _STATE["kernels"]


def loaded() -> bool:
    """True once the kernels are loaded in this process (then they pay for any file size)."""
    return _STATE.get("kernels") is not None


def _entries() -> dict[str, tuple[types.FunctionType, str]]:
    import importlib

    out = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            sig = getattr(value, _MARK, None)
            if sig is not None and getattr(value, "__module__", None) == name:
                out[attr] = (value, sig)
    return out


def _parse(signature: str) -> tuple[str, list[tuple[str, int]]]:
    """("i8" | "none", [(dtype code, dimensions)]) of an entry signature."""
    ret, _, rest = signature.partition("(")
    return ret, [(code, dims.count(":")) for code, dims in re.findall(r"(\w+)(\[[:,\s]*\])?", rest)]


def _key() -> tuple[str, str]:
    """(cache key, CPU description) of this machine and these kernels."""
    import llvmlite
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    cpu = f"{llvm.get_host_cpu_name()} {llvm.get_host_cpu_features().flatten()}"
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("native.py", "event_scan.py", "history_scan.py"):
        with open(os.path.join(here, name), "rb") as f:
            h.update(f.read())
    h.update(f"{llvmlite.__version__} {sys.version_info[:2]} {sys.platform} {platform.machine()} {cpu}".encode())
    return h.hexdigest(), cpu


def _cache_dirs() -> list[str]:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return [os.path.join(os.environ["NUMBA_CACHE_DIR"], "curriwatch")]
    from platformdirs import user_cache_dir

    return [os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__"),
            os.path.join(user_cache_dir("curriwatch"), "kernels")]


def _load_or_build() -> Kernels:
    key, cpu = _key()
    name = f"kernels-{key[:24]}.o"
    for folder in _cache_dirs():
        loaded_code = _read_cache(os.path.join(folder, name), key)
        if loaded_code is not None:
            return _link(*loaded_code)
    obj, symbols = _build()
    for folder in _cache_dirs():
        if _write_cache(folder, name, key, cpu, obj, symbols):
            break
    return _link(obj, symbols)


def _read_cache(path: str, key: str) -> tuple[bytes, dict] | None:
    """(object code, entry -> symbol) from a cache file, None when absent, foreign or damaged."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    line, _, obj = data[len(_MAGIC):].partition(b"\n")
    try:
        header = json.loads(line)
    except ValueError:
        return None
    if header.get("key") != key or header.get("sha256") != hashlib.sha256(obj).hexdigest():
        return None
    return obj, header["symbols"]


def _write_cache(folder: str, name: str, key: str, cpu: str, obj: bytes, symbols: dict) -> bool:
    """Written whole or not at all (a temporary file renamed into place)."""
    header = json.dumps({"key": key, "cpu": cpu, "sha256": hashlib.sha256(obj).hexdigest(), "symbols": symbols})
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(_MAGIC + header.encode() + b"\n" + obj)
        os.replace(tmp, os.path.join(folder, name))
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False


def _link(obj: bytes, symbols: dict) -> Kernels:
    """Load the object code into this process and wrap each entry point."""
    import llvmlite.binding as llvm

    target = llvm.Target.from_default_triple()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target.create_target_machine(jit=True))
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    entries = _entries()
    functions = {}
    for name, (_func, sig) in entries.items():
        address = engine.get_function_address(symbols[name])
        if not address:
            raise RuntimeError(f"kernel {name} missing from the compiled code")
        functions[name] = _wrap(name, sig, address)
    _STATE["engine"] = engine
    return Kernels(functions)


def _wrap(name: str, sig: str, address: int):
    ret, args = _parse(sig)
    c_args = []
    for code, dims in args:
        c_args += [ctypes.c_void_p] + [ctypes.c_int64] * dims if dims else \
            [ctypes.c_double if code == "f8" else ctypes.c_int64]
    restype = ctypes.c_double if ret == "f8" else ctypes.c_int64
    cfunc = ctypes.CFUNCTYPE(restype, *c_args)(address)
    checks = [(np.dtype(_DTYPES[code][0]), dims) for code, dims in args]

    def call(*values):
        flat = []
        for value, (dtype, dims) in zip(values, checks, strict=True):
            if dims:  # a wrong dtype, shape or layout would be read as raw memory: refuse it
                if value.dtype != dtype or value.ndim != dims or not value.flags.c_contiguous:
                    raise TypeError(f"{name}: expected a C-contiguous {dtype}[{dims}d] array, got "
                                    f"{value.dtype}{value.shape}")
                flat.append(value.ctypes.data)
                flat.extend(value.shape)
            else:
                flat.append(value)
        return cfunc(*flat)

    call.__name__ = name
    return call


def _build() -> tuple[bytes, dict]:
    """Compile every entry with numba into one object file: (object code, entry -> symbol)."""
    import importlib

    import llvmlite.binding as llvm
    import numba
    from numba import types as nt

    entries = _entries()
    modules = [importlib.import_module(m) for m in MODULES]
    # compiled copies of every marked function, each reading a copy of its module's globals in
    # which the marked functions are the compiled copies (the modules themselves stay plain Python)
    namespaces = {m.__name__: dict(vars(m)) for m in modules}
    compiled: dict[int, object] = {}
    for m in modules:
        for value in vars(m).values():
            if hasattr(value, _MARK) and value.__module__ == m.__name__:
                copy = types.FunctionType(value.__code__, namespaces[m.__name__], value.__name__,
                                          value.__defaults__, value.__closure__)
                compiled[id(value)] = numba.njit(error_model="numpy")(copy)
    for ns in namespaces.values():
        for attr, value in list(ns.items()):
            if id(value) in compiled:
                ns[attr] = compiled[id(value)]

    def nb(code):
        return getattr(nt, _DTYPES[code][1])

    modules_ir, symbols = [], {}
    for name, (func, sig) in entries.items():
        ret, args = _parse(sig)
        params, c_types, call = [], [], []
        for k, (code, dims) in enumerate(args):
            if dims:
                shape = [f"n{k}_{d}" for d in range(dims)]
                params += [f"p{k}", *shape]
                c_types += [nt.CPointer(nb(code))] + [nt.int64] * dims
                call.append(f"carray(p{k}, ({', '.join(shape)},))")
            else:
                params.append(f"a{k}")
                c_types.append(nb(code))
                call.append(f"a{k}")
        src = f"def wrapper({', '.join(params)}):\n    return target({', '.join(call)})\n"
        scope = {"target": compiled[id(func)], "carray": numba.carray}
        exec(compile(src, f"<curriwatch kernel {name}>", "exec"), scope)  # noqa: S102 - our own source
        restype = nb(ret)
        cf = numba.cfunc(restype(*c_types), error_model="numpy")(scope["wrapper"])
        modules_ir.append(cf._library._final_module)
        symbols[name] = cf.native_name
    module = llvm.parse_bitcode(modules_ir[0].as_bitcode())
    for other in modules_ir[1:]:
        module.link_in(llvm.parse_bitcode(other.as_bitcode()))
    # only the entries stay visible; optimised as one module, the error paths of numba's wrappers
    # are proven dead (the kernels raise nothing) and go, with every call into numba's runtime
    for func in module.functions:
        if not func.is_declaration and func.name not in symbols.values():
            func.linkage = "internal"
    tm = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3,
        reloc="pic", codemodel="default", jit=True)
    builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=3))
    builder.getModulePassManager().run(module, builder)
    module.verify()
    needed = sorted({f.name for f in module.functions if f.is_declaration and not f.name.startswith("llvm.")}
                    | {g.name for g in module.global_variables if g.is_declaration})
    foreign = [n for n in needed if n not in _ALLOWED]
    if foreign:  # a kernel that allocates or raises would need numba's runtime
        raise RuntimeError(f"compiled kernels need numba's runtime for: {', '.join(foreign)}")
    return tm.emit_object(module), symbols
