"""What the API accepts, turned into the texts and files the core reads.

Nothing here imports jax unless it is handed a plain function to jit: jax objects are
recognised by what they offer (``Lowered``: ``as_text`` and ``compile``; ``Compiled``:
``as_text`` alone; a jitted function: ``lower``)."""
from __future__ import annotations

import os
from pathlib import Path


def _read(x) -> str:
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x).decode("utf-8", "replace")
    if isinstance(x, os.PathLike):
        return Path(x).read_text(encoding="utf-8", errors="replace")
    return x


def _is_stablehlo(text: str) -> bool:
    head = text.lstrip()[:4096]
    return head.startswith("module") or "func.func" in head or "stablehlo." in head


def _lower(fn, args, kwargs):
    if hasattr(fn, "lower"):
        return fn.lower(*args, **kwargs)
    import jax  # a plain function: jit it, as jax.jit(f).lower(x) would

    return jax.jit(fn).lower(*args, **kwargs)


def hlo_pair(what, *args, **kwargs):
    """(stablehlo_text or None, optimized_hlo_text or None) from any accepted input:

    - a jax ``Lowered`` (``jax.jit(f).lower(x)``): both sides (it is compiled here);
    - a jax ``Compiled`` (``.compile()``): the optimized HLO alone;
    - a jitted (or plain) function and its arguments: lowered and compiled here;
    - two texts (or files): StableHLO, optimized HLO;
    - one text (or file): optimized HLO, or StableHLO alone when it reads as StableHLO.
    """
    if isinstance(what, (str, bytes, bytearray, memoryview, os.PathLike)):
        first = _read(what)
        if args:
            if len(args) != 1 or kwargs:
                raise TypeError("give at most two texts: the StableHLO and the optimized HLO")
            return first, _read(args[0])
        return (first, None) if _is_stablehlo(first) else (None, first)
    if callable(what) and not hasattr(what, "as_text"):
        what = _lower(what, args, kwargs)
    elif args or kwargs:
        raise TypeError(f"arguments are only taken with a function, not with {type(what).__name__}")
    if hasattr(what, "as_text") and hasattr(what, "compile"):  # Lowered
        return what.as_text(), what.compile().as_text()
    if hasattr(what, "as_text"):  # Compiled
        text = what.as_text()
        if not isinstance(text, str):
            raise TypeError(f"{type(what).__name__}.as_text() gave {type(text).__name__}, not the module's text")
        return None, text
    raise TypeError(
        f"hloscope cannot read a {type(what).__name__}: give a jax Lowered (jax.jit(f).lower(x)), "
        "a Compiled (.compile()), a jitted function with its arguments, or the texts")


def optimized_hlo(what, *args, **kwargs) -> str:
    """The optimized HLO text of any accepted input (a Lowered is compiled)."""
    left, right = hlo_pair(what, *args, **kwargs)
    if right is None:
        raise ValueError("this is StableHLO (what XLA received); the census reads the optimized HLO: "
                         "give the Lowered, the Compiled (.compile()) or compiled.as_text()")
    return right


def profile_file(log_dir) -> Path:
    """The profile file of a ``jax.profiler.trace(log_dir)`` folder (or the file itself):
    ``plugins/profile/<newest run>/<host>.xplane.pb``, else ``<host>.trace.json.gz``."""
    p = Path(log_dir)
    if p.is_file():
        return p
    if not p.is_dir():
        raise FileNotFoundError(f"{p}: no such folder (give the log_dir passed to jax.profiler.trace)")
    for pattern in ("*.xplane.pb", "*.trace.json.gz", "*.trace.json"):
        runs = sorted({f.parent for f in p.glob(f"**/{pattern}")}, key=lambda d: d.name)
        if runs:
            return sorted(runs[-1].glob(pattern))[0]
    raise FileNotFoundError(f"{p}: no .xplane.pb or .trace.json.gz under it "
                            "(jax.profiler.trace writes them under plugins/profile/<date>/)")


def memory_text(exc_or_text) -> str:
    """The text of an out-of-memory error: an ``XlaRuntimeError`` (any exception) or its text."""
    if isinstance(exc_or_text, BaseException):
        return str(exc_or_text)
    return _read(exc_or_text)
