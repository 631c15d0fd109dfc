"""hloscope in Jupyter, Colab and terminals: what the XLA compiler did with your jax program.

    import hloscope
    hloscope.xray(jax.jit(f).lower(x))       # StableHLO beside optimized HLO, fusion ops in copper
    print(hloscope.fusions(compiled))        # the fusion census, as `hloscope fusions` prints it

Each call returns a Result: a widget in a notebook (the wasm core runs in the browser; nothing
is fetched), readable text in a terminal (``str()``: the native CLI, else the wasm under Node),
and ``.json()`` for the numbers.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from . import _inputs, _text
from ._text import HloscopeError

__version__ = "0.1.0"
__all__ = ["xray", "fusions", "spills", "timeline", "memory", "passes", "Result", "HloscopeError", "ANALYSES"]


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


def _profile_file(log_dir):
    path = _inputs.profile_file(log_dir)
    return {path.name: path.read_bytes()}


# THE TABLE. To switch an entry on when its core analysis lands: name its CLI command and the
# widget kind (and add that kind to src/widget.js), and delete `missing`.
ANALYSES = {
    "xray": Analysis(cli="xray", widget="xray", files=_xray_files),
    "fusions": Analysis(cli="fusions", widget="fusions", files=_hlo_file),
    "spills": Analysis(cli="spills", widget="spills", files=_hlo_file),
    # The profile reader's per-op table for now; issue 11's `hloscope timeline` (and its view in
    # the page) is the timeline itself: switch cli= to "timeline" and the widget kind to its view.
    "timeline": Analysis(cli="profile", widget="timeline", files=_profile_file),
    "memory": Analysis(
        cli=None, widget=None, files=lambda exc_or_text: {"error.txt": _inputs.memory_text(exc_or_text)},
        missing="a reader of XLA's out-of-memory report (the buffers an XlaRuntimeError RESOURCE_EXHAUSTED "
                "lists) in the core: issue 14, 'Layouts and the memory report'"),
    "passes": Analysis(
        cli=None, widget=None, files=lambda dump_dir: {},
        missing="a reader of --xla_dump_to folders and their pass pipelines (--xla_dump_hlo_pass_re) in the "
                "core: issue 12, 'Dump folders and pass pipelines'"),
}


class Result:
    """What an API call returns: a widget in a notebook, the CLI's text in a terminal."""

    def __init__(self, name, files):
        self.name = name
        self.analysis = ANALYSES[name]
        self.files = files  # {file name: str | bytes}, in the order the CLI takes them
        self._widget = None
        self._text = None

    def _run(self, json=False):
        with tempfile.TemporaryDirectory(prefix="hloscope-") as tmp:
            for fname, data in self.files.items():
                p = Path(tmp) / fname
                if isinstance(data, str):
                    p.write_text(data, encoding="utf-8")
                else:
                    p.write_bytes(data)
            # Relative names, so the text names the files as the user would ("after_optimizations.txt").
            return _text.run(self.analysis.cli, list(self.files), json=json, cwd=tmp)

    def text(self) -> str:
        """The CLI's human-readable text (native CLI, else the wasm under Node). Raises
        HloscopeError on a parse error, RuntimeError when neither can run."""
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

    def widget(self):
        """The anywidget (created once)."""
        if self._widget is None:
            from ._widget import HloscopeWidget

            texts = {k: v for k, v in self.files.items() if isinstance(v, str)}
            kw = {"kind": self.analysis.widget}
            if self.analysis.widget == "timeline":
                (fname, data), = self.files.items()
                kw.update(profile=data, profile_name=fname)
            else:
                kw.update(left=texts.get("stablehlo.mlir", ""), right=texts.get("after_optimizations.txt", ""))
            self._widget = HloscopeWidget(**kw)
        return self._widget

    def _repr_mimebundle_(self, include=None, exclude=None):
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
    return Result(name, a.files(*args, **kwargs))


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


def timeline(log_dir) -> Result:
    """Per-op device time from a ``jax.profiler.trace(log_dir)`` folder (or one .xplane.pb /
    .trace.json.gz file)."""
    return _call("timeline", log_dir)


def memory(exc_or_text) -> Result:
    """The memory report of an out-of-memory ``XlaRuntimeError`` (or its text)."""
    return _call("memory", exc_or_text)


def passes(dump_dir) -> Result:
    """The pass pipeline of an ``--xla_dump_to`` folder."""
    return _call("passes", dump_dir)
