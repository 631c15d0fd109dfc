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


def compiled_of(what):
    """The jax Compiled behind an input, or None for a text, a file or a folder (a Lowered is
    compiled here; optimized_hlo compiles it too, and jax keeps no cache of that)."""
    if hasattr(what, "as_text") and hasattr(what, "compile"):  # Lowered
        return what.compile()
    if hasattr(what, "as_text") and hasattr(what, "cost_analysis"):  # Compiled
        return what
    return None


def compile_facts(compiled):
    """What jax knows of a compile that its text does not carry, for the diff's environment
    (``--environment``): the jax and jaxlib versions of this process, and XLA's own
    ``cost_analysis()`` of the executable (its scalar entries: flops, transcendentals, bytes
    accessed, ...; the per-operand ones, named with ``{}``, are left out). Numbers stay numbers:
    the core writes them. A cost analysis the backend does not give is left out, not guessed."""
    import jax
    import jaxlib

    facts = {"jax": jax.__version__, "jaxlib": getattr(jaxlib, "__version__", None) or jaxlib.version.__version__}
    try:
        cost = compiled.cost_analysis()
    except Exception:  # a backend without one (XlaRuntimeError "Unimplemented"): nothing to say
        cost = None
    if isinstance(cost, (list, tuple)):  # jax 0.4: one dict per computation; the entry's is the first
        cost = cost[0] if cost else None
    for k, v in sorted((cost or {}).items()):
        if "{" not in k and isinstance(v, (int, float)) and not isinstance(v, bool):
            facts[f"cost_analysis.{k}"] = v
    return facts


def dump_folder_path(x):
    """The path of an ``--xla_dump_to`` folder or of its archive (.tar.gz, .tgz, .tar, .zip) when
    ``x`` names one (a path, or a one-line string that is an existing path), else None."""
    if isinstance(x, str) and ("\n" in x or len(x) > 4096):
        return None
    if not isinstance(x, (str, os.PathLike)):
        return None
    p = Path(x)
    try:
        if p.is_dir() or (p.is_file() and p.name.endswith((".tar.gz", ".tgz", ".tar", ".zip"))):
            return p.resolve()
    except OSError:
        return None
    return None


def profile_paths(what) -> list:
    """The profiles named by ``what`` (one path, or a list or tuple of them: files, or folders),
    resolved, in the order given: what ``hloscope timeline PROFILE...`` is given. Raises
    FileNotFoundError for a path that is not there, or a folder that holds no profile."""
    items = list(what) if isinstance(what, (list, tuple)) else [what]
    if not items:
        raise ValueError("give a profile: a jax.profiler.trace folder, a .xplane.pb / .trace.json.gz file, "
                         "or a list of them (one per process or host)")
    out = []
    for x in items:
        if not isinstance(x, (str, os.PathLike)):
            raise TypeError(f"hloscope cannot read a {type(x).__name__} as a profile: give the path of a "
                            "jax.profiler.trace folder or of a .xplane.pb / .trace.json.gz file (or a list of them)")
        p = Path(x)
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or folder (give the log_dir passed to jax.profiler.trace, "
                                    "a run folder under its plugins/profile/, or a profile file)")
        if p.is_dir():
            _folder_profiles(p)  # the CLI's error, here and now: a folder without a profile
        out.append(p.resolve())
    return out


def profile_names(paths) -> list:
    """The names the CLI is given for ``paths`` (each linked under it, so its text names the files
    as a user in their folder would: ``profile.xplane.pb``, ``process_0``): the base name, else
    the shortest tail of the path no other argument shares (jax names every process's file
    ``<hostname>.xplane.pb``); never one that reads as an option."""
    parts = [Path(p).parts[1:] or (Path(p).name,) for p in paths]

    def tail(ps, k):
        return "/".join(ps[-k:])

    names = []
    for i, ps in enumerate(parts):
        k = 1
        while k < len(ps) and any(j != i and parts[j] != ps and tail(parts[j], k) == tail(ps, k) for j in range(len(parts))):
            k += 1
        name = tail(ps, k)
        names.append("./" + name if name.startswith("-") else name)
    return names


_PROFILE_SUFFIXES = (".xplane.pb", ".trace.json.gz", ".trace.json")


def _folder_profiles(folder: Path) -> list:
    """The profile files the CLI reads from a folder (core/cli/profiles.c, folder_files): a
    log_dir's newest ``plugins/profile/<run>/`` (runs are named by their start time), else the
    folder itself; in it every ``.xplane.pb``, else every ``.trace.json.gz``, else every
    ``.trace.json``, in byte order of their names."""
    runs_dir = folder / "plugins" / "profile"
    src = folder
    if runs_dir.is_dir():
        runs = sorted(str(d) for d in runs_dir.iterdir() if not d.name.startswith(".") and d.is_dir())
        if runs:
            src = Path(runs[-1])
    names = sorted(e.name for e in src.iterdir() if not e.name.startswith("."))
    for suffix in _PROFILE_SUFFIXES:
        found = [src / n for n in names if n.endswith(suffix) and not (src / n).is_dir()]
        if found:
            return found
    raise FileNotFoundError(f"{folder}: no .xplane.pb or .trace.json(.gz) in this folder (jax.profiler.trace writes "
                            "them under plugins/profile/<run>/)")


def profile_files(paths) -> list:
    """The files the CLI reads for ``hloscope timeline PATHS...`` (core/cli/profiles.c,
    hs_cli_load_profiles): a file as given, a folder's profiles (``_folder_profiles``)."""
    out = []
    for p in paths:
        p = Path(p)
        out.extend(_folder_profiles(p) if p.is_dir() else [p])
    return out


def memory_text(exc_or_text) -> str:
    """The text of an out-of-memory error: an ``XlaRuntimeError`` (any exception) or its text."""
    if isinstance(exc_or_text, BaseException):
        return str(exc_or_text)
    return _read(exc_or_text)


# The optimized HLO beside a dump's memory text: the core's rule (hs_dumpset_sibling_hlo), which the
# CLI applies itself to a report it is given by path. Kept here for the widget only, which is built
# in Python before any core runs; it goes when Python asks the core in-process (issue 33, item 3).
_MEMORY_SUFFIXES = ("-buffer-assignment-values.txt", "-buffer-assignment.txt", "-memory-usage-report.txt")


def memory_path(exc_or_text):
    """The file to read when ``exc_or_text`` names one (a path, or a one-line string naming an
    existing file), else None (an exception or the text of one)."""
    if isinstance(exc_or_text, os.PathLike):
        return Path(exc_or_text)
    if isinstance(exc_or_text, str) and "\n" not in exc_or_text and len(exc_or_text) < 4096:
        try:
            p = Path(exc_or_text)
            if p.is_file():
                return p
        except (OSError, ValueError):
            pass
    return None


def memory_sibling_hlo(path: Path):
    """The dump's optimized HLO beside a buffer assignment or memory-usage report, or None (for the
    widget; the text and JSON come from the CLI, which finds it by the core's rule)."""
    for suffix in _MEMORY_SUFFIXES:
        if path.name.endswith(suffix):
            sib = path.with_name(path.name[: -len(suffix)] + ".txt")
            return sib if sib.is_file() else None
    return None


def _is_jaxpr_object(x) -> bool:
    """A jax ClosedJaxpr (``jax.make_jaxpr(f)(x)``) or Jaxpr: their str() is the jaxpr text."""
    return type(x).__name__ in ("ClosedJaxpr", "Jaxpr") and hasattr(x, "eqns")


def decisions_file(what, *args, **kwargs):
    """(file name, text) of what ``hloscope decisions`` reads, from any accepted input:

    - a text (jaxpr, StableHLO or optimized HLO: the core tells them apart) or its file;
    - a ``ClosedJaxpr`` (``jax.make_jaxpr(f)(x)``): its jaxpr;
    - a plain or jitted function and its arguments: its jaxpr (``jax.make_jaxpr``);
    - a ``Lowered``: its StableHLO (what XLA received); a ``Compiled``: its optimized HLO.
    """
    if isinstance(what, os.PathLike):
        if args or kwargs:
            raise TypeError("arguments are only taken with a function")
        return Path(what).name, _read(what)
    if isinstance(what, (str, bytes, bytearray, memoryview)):
        if args or kwargs:
            raise TypeError("give one text: a jaxpr, StableHLO or optimized HLO")
        return "dump.txt", _read(what)
    if _is_jaxpr_object(what):
        return "jaxpr.txt", str(what)
    if callable(what) and not hasattr(what, "as_text") and not hasattr(what, "lower"):
        import jax

        return "jaxpr.txt", str(jax.make_jaxpr(what)(*args, **kwargs))
    if hasattr(what, "lower") and not hasattr(what, "as_text"):  # a jitted function: its jaxpr
        import jax

        return "jaxpr.txt", str(jax.make_jaxpr(what)(*args, **kwargs))
    if args or kwargs:
        raise TypeError(f"arguments are only taken with a function, not with {type(what).__name__}")
    if hasattr(what, "as_text") and hasattr(what, "compile"):  # Lowered
        return "stablehlo.mlir", what.as_text()
    if hasattr(what, "as_text"):  # Compiled
        return "after_optimizations.txt", what.as_text()
    raise TypeError(
        f"hloscope cannot read a {type(what).__name__}: give a jaxpr (jax.make_jaxpr(f)(x)), a function with "
        "its arguments, a jax Lowered or Compiled, or the text of a jaxpr, StableHLO or HLO dump")


def _wants_text(name: str) -> bool:
    """The names whose text the core reads: hs_dumpset_wants_bytes's rule, kept here because this
    Python reads files for a widget before any core runs (the widget asks the core again,
    passesWantsBytes, and drops what it does not read)."""
    if name == "compile_options.textproto" or (name.startswith("module_") and name.endswith(".debug_options")):
        return True
    return (name.startswith("module_") and name.endswith(".txt")
            and not name.endswith(("-buffer-assignment.txt", "-memory-usage-report.txt",
                                   "-buffer-assignment-values.txt", "-live-range.txt")))


def dump_entries(folder: Path, depth: int = 0, out=None):
    """A dump folder's files as the CLI reads them (core/cli/passes.c, add_dir): every file under
    it (8 levels), by its own name, with its text when the core reads it."""
    out = [] if out is None else out
    with os.scandir(folder) as it:  # any order: the core sorts the names (hs_dumpset_json)
        paths = [Path(e.path) for e in it]
    for p in paths:
        if p.name.startswith("."):
            continue
        if p.is_dir():
            if depth < 8:
                dump_entries(p, depth + 1, out)
        elif p.is_file():
            text = p.read_text(encoding="utf-8", errors="replace") if _wants_text(p.name) else None
            out.append({"name": p.name, "data": text})
    return out


def report_inputs(x, index: int) -> dict:
    """{file name: text, bytes or Path} of one input of ``hloscope.report``: a file or folder (a
    path, read where it is), a jax Lowered (its StableHLO and optimized HLO), a Compiled, an
    exception (an out-of-memory error's text), a text, or bytes (a profile)."""
    n = f"input{index + 1}"
    if isinstance(x, os.PathLike) or (isinstance(x, str) and "\n" not in x and len(x) < 4096 and _exists(x)):
        p = Path(x)
        return {f"{n}-{p.name}": p.resolve()}
    if isinstance(x, BaseException):
        return {f"{n}.oom.txt": str(x)}
    if isinstance(x, (bytes, bytearray, memoryview)):
        return {f"{n}.bin": bytes(x)}
    if isinstance(x, str):
        return {f"{n}.txt": x}
    left, right = hlo_pair(x)
    out = {}
    if left is not None:
        out[f"{n}.stablehlo.mlir"] = left
    if right is not None:
        out[f"{n}.after_optimizations.txt"] = right
    return out


def _exists(s: str) -> bool:
    try:
        return Path(s).exists()
    except (OSError, ValueError):
        return False
