"""The hloscope CLI in this process: ``static/hloscope-cli.wasm`` (the C CLI itself, core/cli's
``main()``, compiled to a WASI command) run in wasmtime. No Node, no native CLI, no subprocess:
argv parsing, the folder walk, the sibling rules and every byte of text are the CLI's own.

A cold start (nothing cached) answers from a quick compile while the optimized one is made on a
thread beside it. The compiled module is cached in the user's cache folder (``$XDG_CACHE_HOME/hloscope`` or
``~/.cache/hloscope``; ``~/Library/Caches/hloscope`` on macOS; ``%LOCALAPPDATA%\\hloscope\\Cache`` on
Windows; ``$HLOSCOPE_CACHE_DIR`` overrides), keyed by the wasm's sha256, wasmtime's version and
the machine; written atomically, with a sha256 of its own beside it, so an entry that is cut
short or damaged is compiled again, never loaded.

The guest sees the host's file system: "/" is preopened as "/", and the host's working
directory (or ``cwd=``) is passed in ``HLOSCOPE_WASI_CWD``, which core/cli/wasi_fs.c resolves
relative paths against, so paths are printed exactly as given. wasmtime reads no symbolic link
whose target is absolute; the ones on the way to the arguments are passed in
``HLOSCOPE_WASI_LINKS`` (an absolute link deeper inside a folder the CLI walks stays unreadable).

``python -m hloscope._wasm ARGS`` and the ``hloscope`` console script run it as the CLI.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WASM = HERE / "static" / "hloscope-cli.wasm"
REPO_WASM = HERE.parents[2] / "wasm" / "gen" / "hloscope-cli.wasm"  # a source checkout's build

_state = None  # (engine, linker, module): the best code this process has (see _load)
_lock = __import__("threading").Lock()
_optimizing = None  # the thread compiling the optimized module after a cold start
_runs = itertools.count()
_scratch_dir = None


def _scratch():
    """A folder of this process's for the guest's stdout and stderr files, removed at exit."""
    global _scratch_dir
    if _scratch_dir is None:
        import atexit
        import shutil

        _scratch_dir = tempfile.mkdtemp(prefix="hloscope-wasi-")
        atexit.register(shutil.rmtree, _scratch_dir, True)
    return _scratch_dir


def cache_dir() -> Path:
    """The folder holding the compiled module."""
    env = os.environ.get("HLOSCOPE_CACHE_DIR")
    if env:
        return Path(env)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "hloscope"
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "hloscope" / "Cache"
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base and os.path.isabs(base) else Path.home() / ".cache") / "hloscope"


def wasm_path():
    """The CLI's wasm: the package's own, else a source checkout's build; None when neither."""
    for p in (WASM, REPO_WASM):
        if p.is_file():
            return p
    return None


def _wasmtime_version() -> str:
    try:
        from importlib.metadata import version

        return version("wasmtime")
    except Exception:  # no metadata (a vendored copy): the library file itself names the build
        import wasmtime

        st = Path(wasmtime.__file__).stat()
        return f"unknown-{st.st_size}-{int(st.st_mtime)}"


def _cache_path(wasm: bytes) -> Path:
    import platform

    key = hashlib.sha256(wasm).hexdigest()[:32]
    tag = f"{_wasmtime_version()}-{sys.platform}-{platform.machine()}".replace(os.sep, "_")
    return cache_dir() / f"hloscope-cli-{key}-wasmtime-{tag}.cwasm"


def _load_cached(engine, path: Path):
    """The module from the cache, or None (missing, damaged, or of another wasmtime/engine)."""
    import wasmtime

    try:
        data = path.read_bytes()
        want = path.with_suffix(".sha256").read_text().strip()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != want:
        return None  # cut short or damaged: never handed to wasmtime, which trusts what it loads
    try:
        return wasmtime.Module.deserialize(engine, data)
    except (wasmtime.WasmtimeError, ValueError, TypeError):
        return None


def _store_cached(module, path: Path) -> None:
    """Writes the compiled module and its sha256 atomically (a temporary file renamed into place);
    a cache that cannot be written (read-only home) is no error: the next process compiles again."""
    try:
        data = bytes(module.serialize())
        path.parent.mkdir(parents=True, exist_ok=True)
        for target, payload in ((path, data), (path.with_suffix(".sha256"), hashlib.sha256(data).hexdigest().encode())):
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=target.suffix)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(payload)
                os.replace(tmp, target)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
    except Exception:
        pass


def _engine(quick):
    """A wasmtime Engine: the optimizing one (cached modules), or, quick, one whose compile takes
    about 0.4x the CPU time for code about 1.8x slower (the first answer of a cold start)."""
    import wasmtime

    config = wasmtime.Config()
    if quick:
        config.cranelift_opt_level = "none"
        config.cranelift_flag_set("regalloc_algorithm", "single_pass")
    return wasmtime.Engine(config)


def _parts(engine, module):
    import wasmtime

    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    return engine, linker, module


def _load():
    """(engine, linker, module): the best code this process has. A cache miss (the first use after
    install or upgrade) compiles quickly to answer at once and, on a thread beside it, compiles the
    optimized module, caches it and moves this process to it; the process waits for that thread
    at exit (once), so that the next one starts warm. HLOSCOPE_WASM_COMPILE=full: the optimized
    compile only, before the first answer."""
    global _state, _optimizing
    if _state is not None:
        return _state
    with _lock:
        if _state is not None:
            return _state
        import wasmtime

        where = wasm_path()
        if where is None:
            raise RuntimeError(f"{WASM} is missing: this hloscope package was built without its wasm "
                               "(npm run build:wasm, then tools/build-wheel.sh)")
        wasm = where.read_bytes()
        path = _cache_path(wasm)
        engine = _engine(False)
        module = _load_cached(engine, path)
        if module is not None:
            _state = _parts(engine, module)
            return _state
        if os.environ.get("HLOSCOPE_WASM_COMPILE") != "full":
            try:
                quick = _engine(True)
                state = _parts(quick, wasmtime.Module(quick, wasm))
            except Exception:  # a wasmtime without the quick settings: the optimized compile alone
                state = None
            if state is not None:
                import atexit
                import threading

                _state = state
                _optimizing = threading.Thread(target=_optimize, args=(engine, wasm, path), daemon=True,
                                               name="hloscope-wasm-compile")
                _optimizing.start()
                atexit.register(_finish_optimizing)
                return _state
        module = wasmtime.Module(engine, wasm)
        _store_cached(module, path)
        _state = _parts(engine, module)
        return _state


def _optimize(engine, wasm, path):
    """The thread beside a cold start: the optimized module, cached, and used from now on."""
    global _state
    try:
        import wasmtime

        module = wasmtime.Module(engine, wasm)
    except Exception:
        return
    _store_cached(module, path)
    _state = _parts(engine, module)


def _finish_optimizing():
    if _optimizing is not None and _optimizing.is_alive():
        _optimizing.join(timeout=300)


def _absolute_links(paths):
    """The symbolic links with an absolute target on the way to each of paths (absolute), each
    under its path with its folders' links resolved, as core/cli/wasi_fs.c meets them: wasmtime
    reads no absolute link target, so the guest is told them (HLOSCOPE_WASI_LINKS)."""
    links, todo, seen = {}, list(paths), set()
    while todo and len(seen) < 4096:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        parts = [c for c in p.split(os.sep) if c]
        for i in range(1, len(parts) + 1):
            prefix = os.sep + os.sep.join(parts[:i])
            key = os.path.join(os.path.realpath(os.path.dirname(prefix)), os.path.basename(prefix))
            if key in links or not os.path.islink(key):
                continue
            target = os.readlink(key)
            if os.path.isabs(target):
                links[key] = target
                todo.append(target)
    return links


def _guest_env(cwd, argv):
    where = os.path.realpath(cwd or os.getcwd())
    env = [("HLOSCOPE_WASI_CWD", where)]
    if os.name != "nt":
        paths = [where] + [a if os.path.isabs(a) else os.path.join(where, a) for a in argv if a and not a.startswith("-")]
        links = _absolute_links(p for p in paths if os.path.lexists(p))
        if links:
            env.append(("HLOSCOPE_WASI_LINKS", "\n".join(f"{k}\t{v}" for k, v in links.items())))
    # what the CLI reads of its environment (report's page template)
    env += [(k, v) for k, v in os.environ.items() if k.startswith("HLOSCOPE_") and not k.startswith("HLOSCOPE_WASI_")]
    return env


def _run_start(store, linker, module):
    """Runs the command's _start: its exit status (0 when main returned 0)."""
    import wasmtime

    instance = linker.instantiate(store, module)
    start = instance.exports(store)["_start"]
    try:
        start(store)
        return 0
    except wasmtime.ExitTrap as e:
        return e.code
    except wasmtime.Trap as e:  # a crash of the guest (out of memory past 4 GiB, a stack overflow)
        raise RuntimeError(f"hloscope (wasm) stopped: {e.message if hasattr(e, 'message') else e}") from None


def run(argv, *, cwd=None, stdin=None):
    """Runs ``hloscope ARGV...`` in this process: (exit status, stdout bytes, stderr bytes).
    ``cwd``: the folder relative paths are read from (the process's own by default);
    ``stdin``: bytes for an argument ``-`` (none by default)."""
    import wasmtime

    engine, linker, module = _load()
    wasi = wasmtime.WasiConfig()
    argv = [str(a) for a in argv]
    wasi.argv = ["hloscope", *argv]
    wasi.env = _guest_env(cwd, argv)
    wasi.preopen_dir("/", "/")
    # stdout and stderr to files (wasmtime 51's stdout_custom calls back from its own threads and
    # aborted the process under load): one folder for the process, two files per run
    n = next(_runs)
    out, err, inp = (os.path.join(_scratch(), f"{os.getpid()}.{n}.{k}") for k in ("stdout", "stderr", "stdin"))
    wasi.stdout_file = out
    wasi.stderr_file = err
    if stdin is not None:
        with open(inp, "wb") as f:
            f.write(stdin)
        wasi.stdin_file = inp
    try:
        store = wasmtime.Store(engine)
        store.set_wasi(wasi)
        rc = _run_start(store, linker, module)
        del store
        with open(out, "rb") as f:
            o = f.read()
        with open(err, "rb") as f:
            e = f.read()
    finally:
        for p in (out, err, inp):
            try:
                os.unlink(p)
            except OSError:
                pass
    return rc, o, e


def main(argv=None) -> int:
    """The ``hloscope`` console script: the CLI with this process's argv, stdin, stdout, stderr."""
    import wasmtime

    args = sys.argv[1:] if argv is None else list(argv)
    try:
        engine, linker, module = _load()
    except RuntimeError as e:
        print(f"hloscope: {e}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    wasi = wasmtime.WasiConfig()
    wasi.argv = ["hloscope", *args]
    wasi.env = _guest_env(None, args)
    wasi.preopen_dir("/", "/")
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store = wasmtime.Store(engine)
    store.set_wasi(wasi)
    try:
        return _run_start(store, linker, module)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 134


if __name__ == "__main__":
    sys.exit(main())
