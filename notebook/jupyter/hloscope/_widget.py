"""The notebook widget (anywidget): the browser side loads the wasm carried in static/widget.mjs
and computes the numbers there, with the same core as the CLI and the page."""
from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

ESM = Path(__file__).resolve().parent / "static" / "widget.mjs"


class HloscopeWidget(anywidget.AnyWidget):
    kind = traitlets.Unicode("xray").tag(sync=True)
    left = traitlets.Unicode("").tag(sync=True)
    right = traitlets.Unicode("").tag(sync=True)
    profile = traitlets.Bytes(b"").tag(sync=True)
    profile_name = traitlets.Unicode("").tag(sync=True)
    profiles = traitlets.List([]).tag(sync=True)  # timeline: several profiles read as one [{name, data: bytes}]
    program = traitlets.Unicode("").tag(sync=True)  # timeline: one program's name or id
    sibling = traitlets.Bool(False).tag(sync=True)
    entries = traitlets.List([]).tag(sync=True)  # passes: a dump folder's files [{name, data}]  # memory: `right` is the dump's own HLO (joined if it parses)

    def __init__(self, **kwargs):
        if not ESM.is_file():
            raise RuntimeError(f"{ESM} is missing: this copy of hloscope was installed without its JS bundle "
                               "(build it with `npm run build`, then install dist/hloscope-*.whl)")
        super().__init__(_esm=ESM.read_text(encoding="utf-8"), **kwargs)
