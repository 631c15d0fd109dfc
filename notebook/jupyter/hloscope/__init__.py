"""hloscope in Jupyter, Colab and terminals: what the XLA compiler did with your jax program.

    import hloscope
    hloscope.xray(jax.jit(f).lower(x))       # StableHLO beside optimized HLO, fusion ops in copper
    print(hloscope.fusions(compiled))        # the fusion census, as `hloscope fusions` prints it
    hloscope.timeline("/tmp/trace")          # a jax.profiler.trace folder: time per run, per op
    hloscope.timeline([log0, log1])          # several processes' profiles read as one: per host
    hloscope.memory(err)                     # an out-of-memory XlaRuntimeError read into numbers
    hloscope.decisions(jax.make_jaxpr(f)(x)) # upcasts, broadcasts, remat marks, transposes
    hloscope.passes("/tmp/dump")             # an --xla_dump_to folder: the pass pipeline, step by step
    hloscope.diff(compiled_a, compiled_b)    # what changed between two compiles, by meaning
    hloscope.report(lowered, err, "/tmp/trace", path="bug.html")  # one HTML file to attach to a bug

Each call returns a Result: a widget in a notebook (the wasm core runs in the browser; nothing
is fetched), readable text in a terminal (``str()``: the CLI itself, compiled to WebAssembly and
run in this process by wasmtime; no Node, no native build), and ``.json()`` for the numbers.
Errors raise HloscopeError (``.code``, ``.line``, ``.column``); ``str()`` of a result that failed
is the error's text.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from . import _inputs, _text
from ._text import HloscopeError

__version__ = "0.1.0"
__all__ = ["xray", "fusions", "spills", "timeline", "memory", "passes", "decisions", "diff", "report", "Result",
           "HloscopeError", "ANALYSES"]


@dataclass(frozen=True)
class Analysis:
    """One entry of the API. ``missing`` names what the core lacks while the entry is off."""
    cli: Optional[str]           # the CLI command that prints it (and the JSON: --json)
    widget: Optional[str]        # the widget's kind (src/widget.js shows it)
    files: Callable              # (*args, **kwargs) -> {file name: text or bytes}, in CLI argument order
    missing: Optional[str] = None


def _xray_files(what, *args, **kwargs):
    left, right = _inputs.hlo_pair(what, *args, **kwargs)
    if right is None:
        raise ValueError("the x-ray needs the optimized HLO (what XLA decided): give the Lowered "
                         "(jax.jit(f).lower(x)), or both texts: hloscope.xray(stablehlo, compiled.as_text())")
    return {"stablehlo.mlir": left or "", "after_optimizations.txt": right}


def _hlo_file(what, *args, **kwargs):
    return {"after_optimizations.txt": _inputs.optimized_hlo(what, *args, **kwargs)}


def _timeline_files(log_dir_or_files, hlo=None, program=None):
    # The profiles are read by the CLI where they are (several: one per process or host, read
    # as one), each linked under a short name (a Path value); a folder's files are found by the
    # CLI, and by the widget with the same rule.
    paths = _inputs.profile_paths(log_dir_or_files)
    args = _inputs.profile_names(paths)
    files = dict(zip(args, paths))
    if hlo is not None:  # a Compiled, a Lowered, the optimized HLO text or its file: ops get their lines
        files["after_optimizations.txt"] = _inputs.optimized_hlo(hlo)
        args += ["--hlo", "after_optimizations.txt"]
    if program is not None:
        args += ["--program", str(program)]
    return files, args


def _decisions_file(what, *args, **kwargs):
    name, text = _inputs.decisions_file(what, *args, **kwargs)
    return {name: text}


def _memory_files(exc_or_text, hlo=None):
    files = {}
    path = _inputs.memory_path(exc_or_text)
    if path is not None:
        # A dump's report is read by the CLI where it is (its own path), and the CLI finds the dump's
        # optimized HLO beside it by the core's rule (hs_dumpset_sibling_hlo): no copy, no rule here.
        args = [str(path.resolve())]
    else:
        files["error.txt"] = _inputs.memory_text(exc_or_text)
        args = ["error.txt"]
    if hlo is not None:
        files["after_optimizations.txt"] = _inputs.optimized_hlo(hlo)
        args.append("after_optimizations.txt")
    return files, args


def _passes_files(dump_dir):
    # The CLI reads the folder (or archive, or listing) where it is: no copy, its own path.
    path = Path(dump_dir).resolve()
    if not path.exists():
        raise FileNotFoundError(f"{dump_dir}: no such folder (give the --xla_dump_to folder, a .tar.gz/.zip of it, "
                                "or a file holding its `ls` listing)")
    return {}, [str(path)]


def _profile_arg(side, p, files):
    # A profile of one side's runs: a path (a file, or a jax.profiler.trace log folder, which the
    # CLI reads where it is), or the bytes of a .xplane.pb / trace JSON (gzipped or not).
    if isinstance(p, (bytes, bytearray, memoryview)):
        b = bytes(p)
        name = (f"{side}.profile.trace.json.gz" if b[:2] == b"\x1f\x8b" else
                f"{side}.profile.trace.json" if b.lstrip()[:1] in (b"{", b"[") else f"{side}.profile.xplane.pb")
        files[name] = b
        return name
    path = Path(p)
    if not path.exists():
        raise FileNotFoundError(f"{p}: no such profile (give a .xplane.pb, a .trace.json.gz or the log_dir of jax.profiler.trace)")
    return str(path.resolve())


def _diff_files(a, b, profiles=None):
    # A dump folder or its archive is read by the CLI where it is (its own path); anything else
    # (a Compiled, a Lowered, which is compiled, the text or its file) is its optimized HLO.
    files, args = {}, []
    if profiles is not None:
        if len(profiles) != 2:
            raise ValueError("profiles=(A's profile, B's profile): one for each side")
        args += ["--profiles"] + [_profile_arg(s, p, files) for s, p in zip(("a", "b"), profiles)]
    sides, facts = [], {}
    for side, x in (("a", a), ("b", b)):
        folder = _inputs.dump_folder_path(x)
        if folder is not None:
            sides.append(str(folder))
            continue
        compiled = _inputs.compiled_of(x)  # a jax object: its text, and what jax knows of its compile
        if compiled is not None:
            facts[side] = _inputs.compile_facts(compiled)
            x = compiled
        name = f"{side}.after_optimizations.txt"
        files[name] = _inputs.optimized_hlo(x)
        sides.append(name)
    if facts:  # the jax versions and XLA's cost_analysis() of each jax side, compared by the core
        import json

        for side in ("a", "b"):
            files[f"{side}.environment.json"] = json.dumps(facts.get(side, {}))
        args += ["--environment", "a.environment.json", "b.environment.json"]
    return files, args + sides


# THE TABLE. To switch an entry on when its core analysis lands: name its CLI command and the
# widget kind (and add that kind to src/widget.js), and delete `missing`. `files` returns the
# files the command reads ({name: text or bytes}, the arguments in that order), or (files,
# arguments) when the command takes options or reads files it is not named (a dump's HLO).
ANALYSES = {
    "xray": Analysis(cli="xray", widget="xray", files=_xray_files),
    "fusions": Analysis(cli="fusions", widget="fusions", files=_hlo_file),
    "spills": Analysis(cli="spills", widget="spills", files=_hlo_file),
    "timeline": Analysis(cli="timeline", widget="timeline", files=_timeline_files),
    "memory": Analysis(cli="memory", widget="memory", files=_memory_files),
    "decisions": Analysis(cli="decisions", widget="decisions", files=_decisions_file),
    "passes": Analysis(cli="passes", widget="passes", files=lambda dump_dir: _passes_files(dump_dir)),
    "diff": Analysis(cli="diff", widget="diff", files=_diff_files),
}


class Result:
    """What an API call returns: a widget in a notebook, the CLI's text in a terminal."""

    def __init__(self, name, files, args=None):
        self.name = name
        self.analysis = ANALYSES[name]
        self.files = files  # {file name: str | bytes}, in the order the CLI takes them
        self.args = list(files) if args is None else list(args)  # the CLI's arguments after the command
        self._widget = None
        self._text = None

    def _run(self, json=False):
        with tempfile.TemporaryDirectory(prefix="hloscope-") as tmp:
            _write_files(self.files, tmp)
            # Relative names, so the text names the files as the user would ("after_optimizations.txt").
            return _text.run(self.analysis.cli, self.args, json=json, cwd=tmp)

    def text(self) -> str:
        """The CLI's human-readable text (the wasm CLI in this process; HLOSCOPE_TEXT=cli: the
        native one). Raises HloscopeError when the CLI refuses the input, RuntimeError when
        nothing can run."""
        if self._text is None:
            self._text = self._run()
        return self._text

    def json(self):
        """The result as the CLI's --json (and the JS API) gives it."""
        import json

        return json.loads(self._run(json=True))

    def __str__(self):
        try:
            return self.text().rstrip("\n")
        except (HloscopeError, RuntimeError) as e:
            return f"hloscope {self.name}: {e}"

    def __repr__(self):
        return str(self)

    def _has_view(self):
        """False when the result has no widget view: no kind, or a diff with a dump folder side (the
        CLI reads a folder where it is; the view takes two texts)."""
        if self.analysis.widget is None:
            return False
        if self.analysis.widget == "diff":
            # the two sides are the last arguments (the options come first)
            return "--profiles" not in self.args and all(isinstance(self.files.get(a), str) for a in self.args[-2:])
        return True

    def widget(self):
        """The anywidget (created once)."""
        if self._widget is None:
            if not self._has_view():
                raise ValueError(f"hloscope.{self.name}: no widget view for this input (a dump folder is read by the "
                                 "CLI where it is: print() the result for its text)")
            from ._widget import HloscopeWidget

            texts = {k: v for k, v in self.files.items() if isinstance(v, str)}
            kw = {"kind": self.analysis.widget}
            first = self.args[0]
            if self.analysis.widget == "timeline":
                # The files the CLI reads for these arguments (the profiles come before the options).
                paths = _inputs.profile_files(self.files[a] for a in self.args[:next(
                    (i for i, a in enumerate(self.args) if a.startswith("--")), len(self.args))])
                if len(paths) == 1:
                    kw.update(profile=paths[0].read_bytes(), profile_name=paths[0].name)
                else:  # one job's files, read as one by the core, each named (the core keeps a path's base name)
                    kw.update(profiles=[{"name": p.name, "data": p.read_bytes()} for p in paths],
                              profile_name=f"{len(paths)} files: " + ", ".join(p.name for p in paths))
                kw.update(right=texts.get("after_optimizations.txt", ""),
                          program=self.args[self.args.index("--program") + 1] if "--program" in self.args else "")
            elif self.analysis.widget == "passes":
                path = Path(self.args[0])
                if path.is_dir():
                    kw.update(entries=_inputs.dump_entries(path), profile_name=path.name)
                else:  # an archive or a listing: its bytes, read in the browser
                    kw.update(profile=path.read_bytes(), profile_name=path.name)
            elif self.analysis.widget == "decisions":
                kw.update(left=self.files[first], profile_name=first)
            elif self.analysis.widget == "diff":
                # <xla-diff>: A's and B's optimized HLO, diffed in the browser by the same core
                kw.update(left=self.files[self.args[-2]], right=self.files[self.args[-1]])
            elif self.analysis.widget == "memory":
                # The HLO it is joined to: the one given, else the dump's own beside a report read in
                # place (the widget is built here, before any core runs: _inputs.memory_sibling_hlo).
                hlo = [self.files[a] for a in self.args[1:2]]
                if first in self.files:
                    left = self.files[first]
                else:
                    report = Path(first)
                    left = report.read_text(encoding="utf-8", errors="replace")
                    sib = None if hlo else _inputs.memory_sibling_hlo(report)
                    hlo = hlo or ([sib.read_text(encoding="utf-8", errors="replace")] if sib else [])
                kw.update(left=left, right=hlo[0] if hlo else "", sibling=len(self.args) == 1)
            else:
                kw.update(left=texts.get("stablehlo.mlir", ""), right=texts.get("after_optimizations.txt", ""))
            self._widget = HloscopeWidget(**kw)
        return self._widget

    def save(self, path, *, redact=False, title=None, markdown=None, zip=False) -> Path:
        """Writes what this result read as a report page (``hloscope report``): one HTML file that
        opens offline on the overview, with the inputs inside. Returns the file written."""
        # the files given, and those read where they are (a path argument: linked under its name)
        files = {a: self.files[a] for a in self.args if a in self.files}
        files.update({Path(a).name: Path(a) for a in self.args if a not in self.files and Path(a).is_absolute() and Path(a).exists()})
        return _write_report(files, path, redact=redact, title=title or f"hloscope.{self.name}",
                             markdown=markdown, zip=zip)

    def _repr_mimebundle_(self, include=None, exclude=None):
        if not self._has_view():  # no view of its own in the widget: the text
            return {"text/plain": str(self)}, {}
        try:
            got = self.widget()._repr_mimebundle_(include=include, exclude=exclude)
        except ImportError:  # no anywidget here: the text is all there is
            return {"text/plain": str(self)}, {}
        data, meta = got if isinstance(got, tuple) else (got, {})
        data = dict(data or {})
        # Front ends that draw no widgets show this; the full text is print(result) (it runs the CLI).
        data["text/plain"] = f"<hloscope.{self.name} widget: print() it for the text>"
        return data, dict(meta or {})


def _call(name, *args, **kwargs) -> Result:
    a = ANALYSES[name]
    if a.missing:
        raise NotImplementedError(f"hloscope.{name} is not in this version: it needs {a.missing}")
    got = a.files(*args, **kwargs)
    return Result(name, *got) if isinstance(got, tuple) else Result(name, got)


def xray(what, *args, **kwargs) -> Result:
    """StableHLO (what XLA received) beside optimized HLO (what XLA decided), line by line.
    ``what``: a jax Lowered (``jax.jit(f).lower(x)``), a Compiled (optimized HLO alone), a jitted
    function and its arguments, or the two texts (StableHLO, optimized HLO)."""
    return _call("xray", what, *args, **kwargs)


def fusions(what, *args, **kwargs) -> Result:
    """The fusion census of the optimized module: fused computations, fusion ops, what each holds.
    Takes what xray takes (a Lowered is compiled); the text is the optimized HLO."""
    return _call("fusions", what, *args, **kwargs)


def spills(what, *args, **kwargs) -> Result:
    """The big intermediate, the lines that carry it, the HBM traffic estimate."""
    return _call("spills", what, *args, **kwargs)


def timeline(log_dir_or_files, hlo=None, program=None) -> Result:
    """Where each run of a program spent its device time (``hloscope timeline PROFILE...``), from a
    ``jax.profiler.trace(log_dir)`` folder (its newest run: every .xplane.pb in it, one per
    process), a run folder, one .xplane.pb / .trace.json.gz file, or a list of any of these (a
    multi-process job's files or log_dirs, read as one): per program, runs and the time per run on
    each device; per op, time per run, share, kind, who wrote it; async copies hidden or exposed;
    with several processes, one row per host and the slowest named. ``hlo``: the program's
    optimized HLO (a Compiled, a Lowered, the text or its file) gives each op its line;
    ``program``: one program's name or id. A folder without a profile raises FileNotFoundError."""
    return _call("timeline", log_dir_or_files, hlo=hlo, program=program)


def memory(exc_or_text, hlo=None) -> Result:
    """The memory report read into numbers (``hloscope memory``): an out-of-memory
    ``XlaRuntimeError`` (or its text), or the path of a dump's ``*-buffer-assignment.txt`` /
    ``*-memory-usage-report.txt`` (joined to the dump's optimized HLO beside it). ``hlo``: the
    optimized HLO to join to (a Compiled, a Lowered, the text or its file)."""
    return _call("memory", exc_or_text, hlo=hlo)


def passes(dump_dir) -> Result:
    """The pass pipeline of an ``--xla_dump_to`` folder (``hloscope passes``): modules, pass steps,
    pipelines, the layout watershed, per-step counts. ``dump_dir``: the folder, a .tar.gz/.tgz/
    .tar/.zip of it, or a file holding its ``ls`` listing."""
    return _call("passes", dump_dir)


def decisions(what, *args, **kwargs) -> Result:
    """What the framework decided in a program (``hloscope decisions``): upcasts, downcasts,
    broadcasts, remat marks, transposes and layout copies, each with its line, dtypes, shape and
    source. ``what``: a jaxpr (``jax.make_jaxpr(f)(x)``), a function and its arguments (its
    jaxpr), a Lowered (its StableHLO), a Compiled (its optimized HLO), or the text of any of the
    three (or its file)."""
    return _call("decisions", what, *args, **kwargs)


def diff(a, b, profiles=None) -> Result:
    """What changed between two compiles, by meaning (``hloscope diff``): instructions matched by
    what they are (never by name or order), fusions same, added, removed, merged, split or changed,
    values newly in HBM, library calls, transfers, module config, and a verdict. ``a``, ``b``: each a
    jax Compiled, a Lowered (compiled here), the optimized HLO text or its file, or an
    ``--xla_dump_to`` folder (or its .tar.gz/.zip; with a folder on both sides the passes are
    compared too). A jax side brings the jax and jaxlib versions and XLA's ``cost_analysis()`` of
    its executable into ``environment`` (``--environment``). ``profiles=(pa, pb)``: a profile of each side's runs (the ``jax.profiler.trace``
    log folder, a .xplane.pb or .trace.json.gz file, or its bytes), as ``--profiles PA PB``: the
    time per run of each side and per op, matched through the HLO. ``.json()`` gives the CLI's
    ``--json``."""
    return _call("diff", a, b, profiles=profiles)


def _write_files(files, folder):
    """Writes {file name: text, bytes or Path} into folder, for the CLI to read by name (a Path is
    linked: a file or folder read where it is, under this name)."""
    for fname, data in files.items():
        p = Path(folder) / fname
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, Path):
            p.symlink_to(data, target_is_directory=data.is_dir())
        elif isinstance(data, str):
            p.write_text(data, encoding="utf-8")
        else:
            p.write_bytes(data)


def _write_report(files, path, *, redact=False, title=None, markdown=None, zip=False) -> Path:
    """Runs ``hloscope report --out PATH`` over {file name: text, bytes or Path} (a Path read where
    it is); the page is the package's own copy of the notebook when it carries one."""
    out = Path(path).expanduser().resolve()
    args = ["--out", str(out)]
    # the package's page, else a source checkout's (dist/hloscope.html): the wasm CLI cannot look
    # beside its own executable for one, as the native CLI does
    here = Path(__file__).resolve().parent
    page = next((p for p in (here / "static" / "hloscope.html", here.parents[2] / "dist" / "hloscope.html") if p.is_file()),
                here / "static" / "hloscope.html")
    if page.is_file() and not os.environ.get("HLOSCOPE_REPORT_TEMPLATE"):
        args += ["--template", str(page)]
    if redact:
        args.append("--redact")
    if title:
        args += ["--title", str(title)]
    if markdown:
        args += ["--markdown", str(Path(markdown).expanduser().resolve())]
    if zip:
        args.append("--zip")
    with tempfile.TemporaryDirectory(prefix="hloscope-") as tmp:
        _write_files(files, tmp)
        _, said = _text.run("report", args + list(files), cwd=tmp, with_stderr=True)
    if "warning:" in said:
        import warnings

        warnings.warn(said[said.index("warning:") + 9:], stacklevel=3)
    return out.with_suffix(".zip") if zip else out


def report(*inputs, path, redact=False, title=None, markdown=None, zip=False) -> Path:
    """One HTML file to attach to a bug (``hloscope report --out PATH``): the inputs inside, the
    wasm core and the views beside them; it opens offline on an overview (what was given,
    provenance, each analysis's headline; two compiles of one program on their diff). ``inputs``:
    jax Lowered or Compiled objects, out-of-memory exceptions, texts, profile bytes, or paths of
    files and folders (dumps, archives, profiles, log folders). ``redact=True`` replaces module
    names, source paths and op_name prefixes with placeholders; ``markdown=`` writes the overview
    for an issue's body; ``zip=True`` writes the page in a .zip. Returns the file written."""
    if not inputs:
        raise ValueError("hloscope.report: give one or more inputs (a Lowered, a Compiled, an error, a path, ...)")
    files = {}
    for i, x in enumerate(inputs):
        files.update(_inputs.report_inputs(x, i))
    return _write_report(files, path, redact=redact, title=title, markdown=markdown, zip=zip)
