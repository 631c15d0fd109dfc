"""The text reprs in plain Python (run by tests/jupyter/jupyter.test.mjs with the venv's python,
against the installed wheel): print(hloscope.fusions(compiled)) prints what the native CLI prints,
with the native CLI and with the wasm CLI in wasmtime (in this process); jax inputs of every accepted kind; the timeline
of a fixture profile, of a fresh jax.profiler folder and of a multi-process job's profiles
(files, folders, one log_dir per process); the memory report of every real message
in ../shared/captures/memory (read in place), of an XlaRuntimeError and of a dump's buffer
assignment; the decisions of a jaxpr, Lowered and Compiled (counted against jax's own
equations); the passes of a dump folder, its archive and its listing; every entry is on, and
one whose core analysis were missing would raise NotImplementedError; no runner says so.

Environment: HLOSCOPE_TEST_CLI = the native CLI (build/native/hloscope); JAX_PLATFORMS=cpu.
The files of fixtures/ and ../shared come from the one walker, tests/fixtures.mjs (run with node),
which reads HLOSCOPE_SHARED (the shared folder when it is not ../shared beside the repository)
and HLOSCOPE_NO_SHARED=1 (behave as if ../shared were absent); a test that needs ../shared skips
with the walker's reason, which names the folder.
"""
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = os.environ.get("HLOSCOPE_TEST_CLI") or str(REPO / "build/native/hloscope")
FIXTURES = REPO / "fixtures/cpu-jax-0.4.38"
sys.path[:0] = [str(REPO / "fixtures/capture/programs"), str(REPO / "fixtures/capture"), str(REPO / "tests")]
from fixtures import walker  # noqa: E402  (tests/fixtures.py: the one walker, tests/fixtures.mjs)

MEMORY = walker("shared", "memory", ".txt")  # ../shared/captures/memory: the real out-of-memory messages

import hloscope  # noqa: E402  (the installed wheel)


@contextlib.contextmanager
def text_backend(name, **extra):
    keys = ["HLOSCOPE_TEXT", "HLOSCOPE_CLI", *extra]
    saved = {k: os.environ.get(k) for k in keys}
    os.environ["HLOSCOPE_TEXT"] = name
    os.environ["HLOSCOPE_CLI"] = CLI
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cli(*args, cwd=None, stdin=None):
    """The native CLI's stdout (the reference), or (rc, stderr) on failure; stdin: bytes for `-`."""
    p = subprocess.run([CLI, *map(str, args)], cwd=cwd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.stdout.decode() if p.returncode == 0 else (p.returncode, p.stderr.decode())


def printed(obj):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print(obj)
    return buf.getvalue()


@unittest.skipUnless(os.access(CLI, os.X_OK), f"no native CLI at {CLI} (npm run build:native)")
class TextReprs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import jax
        import naive_attention as prog

        cls.jax = jax
        cls.prog = prog
        cls.args = prog.example_args()
        cls.lowered = jax.jit(prog.FUNCTION).lower(*cls.args)
        cls.compiled = cls.lowered.compile()
        cls.tmp = tempfile.TemporaryDirectory()
        d = Path(cls.tmp.name)
        (d / "stablehlo.mlir").write_text(cls.lowered.as_text())
        (d / "after_optimizations.txt").write_text(cls.compiled.as_text())
        cls.dir = d

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_fusions_of_compiled_print_the_cli_census(self):
        want = cli("fusions", self.dir / "after_optimizations.txt")
        self.assertIn("fusion ops", want)
        for backend in ("cli", "wasm"):
            with self.subTest(backend=backend), text_backend(backend):
                self.assertEqual(printed(hloscope.fusions(self.compiled)), want)

    def test_every_accepted_input_gives_the_same_census(self):
        want = cli("fusions", self.dir / "after_optimizations.txt")
        jitted = self.jax.jit(self.prog.FUNCTION)
        with text_backend("cli"):
            self.assertEqual(printed(hloscope.fusions(self.lowered)), want)
            self.assertEqual(printed(hloscope.fusions(jitted, *self.args)), want)
            self.assertEqual(printed(hloscope.fusions(self.prog.FUNCTION, *self.args)), want)
            self.assertEqual(printed(hloscope.fusions(self.compiled.as_text())), want)
            self.assertEqual(printed(hloscope.fusions(self.dir / "after_optimizations.txt")), want)

    def _payload(self, html_path):
        import base64
        import gzip
        import json

        html = Path(html_path).read_text(encoding="utf-8")
        m = re.search(r'<script type="application/json" id="hs-report">(.*?)</script>', html, re.S)
        self.assertIsNotNone(m, "the page carries a data block")
        data = json.loads(m.group(1))
        return data, [gzip.decompress(base64.b64decode(f["data"])) for f in data["files"]]

    def test_report_of_jax_objects_carries_them_and_says_what_the_cli_says(self):
        import json

        out = self.dir / "bug.html"
        md = self.dir / "bug.md"
        with text_backend("cli"):
            got = hloscope.report(self.lowered, MemoryError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
                                                            "6291456 bytes."), path=out, markdown=md, title="naive attention")
        self.assertEqual(got, out)
        data, files = self._payload(out)
        self.assertEqual(files[0].decode(), self.lowered.as_text())
        self.assertEqual(files[1].decode(), self.compiled.as_text())
        census = json.loads(cli("fusions", "--json", self.dir / "after_optimizations.txt"))
        item = data["overview"]["inputs"][1]
        got_census = next(h for h in item["headlines"] if h["kind"] == "census")["figures"]
        self.assertEqual(got_census["fusion_ops"], census["fusion_ops"])
        self.assertEqual([(p["view"], p["a"], p["b"]) for p in data["overview"]["pairs"]], [("xray", 1, 2)])
        self.assertTrue(md.read_text().startswith("# hloscope report: naive attention\n"))

    def test_result_save_writes_the_report_of_what_it_read(self):
        out = self.dir / "saved.html"
        with text_backend("cli"):
            hloscope.fusions(self.compiled).save(out)
        data, files = self._payload(out)
        self.assertEqual([f.decode() for f in files], [self.compiled.as_text()])
        self.assertEqual(data["title"], "hloscope.fusions")

    def test_report_through_the_wasm_carries_what_the_native_cli_carries(self):
        # the page's date aside (the CLI writes the time it ran), the same page
        pages = []
        for backend in ("cli", "wasm"):
            out = self.dir / f"report-{backend}.html"
            with text_backend(backend):
                hloscope.report(self.compiled, path=out, title="both")
            pages.append(re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "DATE", out.read_text(encoding="utf-8")))
        self.assertEqual(pages[1], pages[0])
        data, files = self._payload(self.dir / "report-wasm.html")
        self.assertEqual([f.decode() for f in files], [self.compiled.as_text()])

    def test_census_counts_equal_xla_own_module(self):
        import hlo_proto

        mods = self.compiled.runtime_executable().hlo_modules()
        ops = [i for hm in mods for c in hlo_proto.decode_module(hm.as_serialized_hlo_module_proto())["computations"]
               for i in c["instructions"]]
        with text_backend("wasm"):
            self.assertEqual(hloscope.fusions(self.compiled).json()["fusion_ops"],
                             sum(i["opcode"] == "fusion" for i in ops))

    def test_xray_and_spills_print_what_the_cli_prints(self):
        want_x = cli("xray", "stablehlo.mlir", "after_optimizations.txt", cwd=self.dir)
        want_s = cli("spills", self.dir / "after_optimizations.txt")
        n_in = len(self.lowered.as_text().splitlines())
        n_out = len(self.compiled.as_text().splitlines())
        self.assertTrue(want_x.startswith(f"{n_in} lines in -> {n_out} lines decided"), want_x[:200])
        for backend in ("cli", "wasm"):
            with self.subTest(backend=backend), text_backend(backend):
                self.assertEqual(printed(hloscope.xray(self.lowered)), want_x)
                self.assertEqual(printed(hloscope.xray(self.lowered.as_text(), self.compiled.as_text())), want_x)
                self.assertEqual(printed(hloscope.spills(self.lowered)), want_s)

    def test_wasm_prints_what_the_cli_prints_on_the_fixtures(self):
        for fx in ("transformer_step", "sharded"):  # every command on every fixture: wasm_parity.py
            d = FIXTURES / fx
            self.assertTrue(d.is_dir(), f"{d} is missing: an in-repo fixture")
            hlo = (d / "after_optimizations.txt").read_text()
            shlo = (d / "stablehlo.mlir").read_text()
            for name, make in (("fusions", lambda: hloscope.fusions(hlo)), ("spills", lambda: hloscope.spills(hlo)),
                               ("xray", lambda: hloscope.xray(shlo, hlo)), ("xray-one-sided", lambda: hloscope.xray(hlo))):
                with self.subTest(fixture=fx, analysis=name):
                    with text_backend("cli"):
                        a = make().text()
                    with text_backend("wasm"):
                        b = make().text()
                    self.assertEqual(b, a)

    def test_timeline_prints_what_the_cli_prints(self):
        d = FIXTURES / "matmul"
        for f in ("profile.xplane.pb", "profile.trace.json.gz"):
            for hlo in (None, "after_optimizations.txt"):
                with self.subTest(file=f, hlo=hlo):
                    want = cli("timeline", f, *(["--hlo", hlo] if hlo else []), cwd=d)
                    self.assertIn("per run", want)
                    if hlo:
                        self.assertIn("line ", want)
                    arg = (d / hlo).read_text() if hlo else None
                    for backend in ("cli", "wasm"):
                        with self.subTest(backend=backend), text_backend(backend):
                            self.assertEqual(printed(hloscope.timeline(d / f, hlo=arg)), want)

    def test_timeline_of_one_program(self):
        d = FIXTURES / "matmul"
        module = re.match(r"HloModule (\S+?),", (d / "after_optimizations.txt").read_text()).group(1)
        for program in (module, "no_such_program"):
            with self.subTest(program=program):
                want = cli("timeline", "profile.xplane.pb", "--program", program, cwd=d)
                self.assertIsInstance(want, str, want)
                for backend in ("cli", "wasm"):
                    with self.subTest(backend=backend), text_backend(backend):
                        self.assertEqual(printed(hloscope.timeline(d / "profile.xplane.pb", program=program)), want)
                if program == module:
                    self.assertTrue(want.startswith(f"program {module} "), want[:200])

    def test_timeline_of_a_profiler_folder(self):
        import jax.numpy as jnp

        with tempfile.TemporaryDirectory() as log_dir:
            f = self.jax.jit(lambda x: jnp.tanh(x @ x))
            x = jnp.ones((64, 64))
            f(x).block_until_ready()
            with self.jax.profiler.trace(log_dir):
                for _ in range(3):
                    f(x).block_until_ready()
            compiled = f.lower(x).compile()
            with text_backend("cli"):
                r = hloscope.timeline(log_dir, hlo=compiled)
                text = r.text()
                t = r.json()
            with text_backend("wasm"):
                self.assertEqual(hloscope.timeline(log_dir, hlo=compiled).text(), text)
            module = re.match(r"HloModule (\S+?),", compiled.as_text()).group(1)  # jit__lambda_
            self.assertRegex(text, rf"^program {re.escape(module)} \(id [^)]*\): 3 runs, ")
            progs = [p for p in t["programs"] if p["name"] == module]
            self.assertEqual(len(progs), 1, t["programs"])
            self.assertEqual(progs[0]["runs"], 3, "three calls under the trace")
            # Every op the profile names is an instruction of XLA's own module (its text).
            names = set(re.findall(r"%([\w.-]+) = ", compiled.as_text()))
            rows = [row for row in t["rows"] if row.get("module") == module]
            self.assertTrue(rows)
            self.assertTrue({row["name"] for row in rows} <= names, (rows, names))

    def test_parse_errors_say_where_in_both(self):
        bad = "HloModule m\nENTRY %e {\n  oops\n}\n"
        msgs = []
        for backend in ("cli", "wasm"):
            with text_backend(backend):
                with self.assertRaises(hloscope.HloscopeError) as e:
                    hloscope.fusions(bad).text()
                msgs.append(str(e.exception))
                self.assertIn("hloscope fusions: after_optimizations.txt:3:", str(hloscope.fusions(bad)))
        self.assertRegex(msgs[0], r"^after_optimizations\.txt:3:\d+: HS_E_SYNTAX: ")
        self.assertEqual(msgs[1], msgs[0])

    def test_without_wasm_or_cli_the_text_says_so(self):
        from hloscope import _wasm

        real = _wasm.wasm_path
        _wasm.wasm_path = lambda: None  # a package built without its wasm
        try:
            with text_backend("", HLOSCOPE_CLI=""):
                s = str(hloscope.fusions(self.compiled))
            with text_backend("wasm"):
                with self.assertRaisesRegex(RuntimeError, "HLOSCOPE_TEXT=wasm, but the package carries no hloscope-cli.wasm"):
                    hloscope.fusions(self.compiled).text()
        finally:
            _wasm.wasm_path = real
        self.assertIn("no text here", s)
        self.assertIn("npm run build:wasm", s)
        with text_backend("nonsense"):
            self.assertIn("expected wasm or cli", str(hloscope.fusions(self.compiled)))

    def test_errors_carry_code_line_and_column(self):
        bad = "HloModule m\nENTRY %e {\n  oops\n}\n"
        with text_backend("wasm"):
            with self.assertRaises(hloscope.HloscopeError) as e:
                hloscope.fusions(bad).json()
        self.assertEqual((e.exception.code, e.exception.line), ("HS_E_SYNTAX", 3))
        self.assertIsInstance(e.exception.column, int)
        self.assertEqual(e.exception.file, "after_optimizations.txt")
        with text_backend("wasm"):
            with self.assertRaises(FileNotFoundError):
                hloscope.passes("/nonexistent/dump")


MULTI = [Path(f) for f in walker("files", "profiles/multiprocess-cpu-jax-0.10.2", ".xplane.pb")["files"]]
TPU4 = walker("shared", "profiles-multidevice", ".xplane.pb")  # ../shared: the four-chip TPU v6e profile


@unittest.skipUnless(os.access(CLI, os.X_OK), f"no native CLI at {CLI} (npm run build:native)")
class SeveralProfiles(unittest.TestCase):
    """hloscope.timeline of several profiles (a multi-process job: one .xplane.pb per process) prints
    and gives what `hloscope timeline FILES...` does, with the native CLI and with the wasm under
    wasmtime: the files, their folder, one log_dir per process (as jax.profiler writes them, every file
    named <hostname>.xplane.pb); the slowest host is the one the capture slowed on purpose (its
    MANIFEST, written by fixtures/capture/multiprocess.py); the widget is handed the files the CLI
    reads; a folder without a profile is refused at once, as the CLI refuses it."""

    @classmethod
    def setUpClass(cls):
        import json

        assert len(MULTI) == 3, f"three processes' profiles in fixtures/profiles/multiprocess-cpu-jax-0.10.2: {MULTI}"
        cls.manifest = json.loads((MULTI[0].parent / "MANIFEST.json").read_text())
        cls.tmp = tempfile.TemporaryDirectory()
        cls.log_dirs = []
        for k, f in enumerate(MULTI):  # process_k/plugins/profile/<run>/vm.xplane.pb, as written
            written = Path(cls.tmp.name) / cls.manifest["processes"][k]["written_as"]
            written.parent.mkdir(parents=True)
            written.write_bytes(f.read_bytes())
            cls.log_dirs.append(written.parents[3])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def equal_in_both(self, given, cli_args, cwd, **kw):
        """text and .json() of hloscope.timeline(given) against the CLI's on cli_args (as typed in
        the folder cwd: the text names the files so), with both runners."""
        import json

        opts = ["--program", kw["program"]] if "program" in kw else []
        want = cli("timeline", *cli_args, *opts, cwd=cwd)
        self.assertIsInstance(want, str, want)
        want_json = json.loads(cli("timeline", "--json", *cli_args, *opts, cwd=cwd))
        for backend in ("cli", "wasm"):
            with self.subTest(backend=backend), text_backend(backend):
                r = hloscope.timeline(given, **kw)
                self.assertEqual(printed(r), want)
                self.assertEqual(r.json(), want_json)
        return want, want_json

    def test_the_files_print_what_the_cli_prints(self):
        names = [f.name for f in MULTI]
        text, j = self.equal_in_both(MULTI, names, MULTI[0].parent)
        self.equal_in_both(tuple(str(f) for f in MULTI), names, MULTI[0].parent, program="jit_step")
        self.assertEqual([h["file"] for h in j["hosts"]], [f.name for f in MULTI])
        self.assertIn("\nhosts (per run):\n", text)

    def test_the_folder_reads_every_process(self):
        folder = MULTI[0].parent
        _, j = self.equal_in_both(folder, [folder.name], folder.parent)
        self.assertEqual(j, __import__("json").loads(cli("timeline", "--json", *MULTI)))

    def test_one_log_dir_per_process_names_the_slowed_process_slowest(self):
        _, j = self.equal_in_both(self.log_dirs, [d.name for d in self.log_dirs], self.tmp.name)
        # their files, all named vm.xplane.pb: each under the shortest tail of its path that is its own
        files = [Path(self.tmp.name) / p["written_as"] for p in self.manifest["processes"]]
        self.equal_in_both(files, [p["written_as"] for p in self.manifest["processes"]], self.tmp.name)
        pids = [p["pid"] for p in self.manifest["processes"]]
        self.assertEqual([h["pid"] for h in j["hosts"]], pids, "one row per process, in the order given")
        slow = self.manifest["processes"][self.manifest["slow_process"]]
        self.assertTrue(slow["slow"])
        self.assertEqual([h["pid"] for h in j["hosts"] if h["slowest"]], [slow["pid"]])
        self.assertEqual(j["programs"][0]["device_count"], len(pids))

    def test_the_widget_is_handed_the_files_the_cli_reads(self):
        import json
        import sys
        import types

        got = {}

        class Fake:  # the widget's model, without anywidget: what the Result hands it
            def __init__(self, **kw):
                got.update(kw)

        saved = sys.modules.get("hloscope._widget")
        sys.modules["hloscope._widget"] = types.SimpleNamespace(HloscopeWidget=Fake)
        try:
            for given in (self.log_dirs, MULTI[0].parent, MULTI):
                got.clear()
                r = hloscope.timeline(given)
                r.widget()
                with self.subTest(given=str(given)):
                    self.assertEqual(got["kind"], "timeline")
                    self.assertEqual([p["data"] for p in got["profiles"]], [f.read_bytes() for f in MULTI])
                    self.assertTrue(got["profile_name"].startswith("3 files: "), got["profile_name"])
                    # the CLI on the very files the widget reads gives what it gives on the arguments
                    files = hloscope._inputs.profile_files(r.files[a] for a in r.args)
                    self.assertEqual(json.loads(cli("timeline", "--json", *files)),
                                     json.loads(cli("timeline", "--json", *(given if isinstance(given, list) else [given]))))
            got.clear()
            hloscope.timeline([MULTI[1]]).widget()  # one file: its bytes, as before
            self.assertEqual((got["profile"], got["profile_name"]), (MULTI[1].read_bytes(), MULTI[1].name))
            self.assertNotIn("profiles", got)
        finally:
            if saved is None:
                sys.modules.pop("hloscope._widget", None)
            else:
                sys.modules["hloscope._widget"] = saved

    def test_a_log_dir_of_two_runs_reads_the_newest(self):
        import json

        with tempfile.TemporaryDirectory() as tmp:
            for run, f in (("2026_12_03_13_05_49", MULTI[0]), ("2026_12_03_13_07_02", MULTI[2])):
                d = Path(tmp) / "plugins" / "profile" / run
                d.mkdir(parents=True)
                (d / "vm.xplane.pb").write_bytes(f.read_bytes())
            self.assertEqual(hloscope._inputs.profile_files([tmp]), [Path(tmp) / "plugins/profile/2026_12_03_13_07_02/vm.xplane.pb"])
            with text_backend("cli"):
                self.assertEqual(hloscope.timeline(tmp).json(), json.loads(cli("timeline", "--json", MULTI[2])))

    def test_a_folder_without_a_profile_is_refused_as_the_cli_refuses_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "plugins" / "profile" / "2026_12_03_13_05_49").mkdir(parents=True)
            (Path(tmp) / "notes.txt").write_text("not a profile\n")
            rc, err = cli("timeline", tmp)
            self.assertEqual(rc, 2)
            with self.assertRaises(FileNotFoundError) as e:
                hloscope.timeline([MULTI[0], tmp])
            self.assertEqual(str(e.exception), err.strip().replace(":0:0: HS_E_EMPTY:", ":"))
            with self.assertRaisesRegex(FileNotFoundError, "no such file or folder"):
                hloscope.timeline(Path(tmp) / "missing")
        with self.assertRaisesRegex(ValueError, "give a profile"):
            hloscope.timeline([])
        with self.assertRaisesRegex(TypeError, "cannot read a int as a profile"):
            hloscope.timeline([MULTI[0], 3])

    @unittest.skipIf(TPU4["absent"], TPU4["absent"] or "")
    def test_the_four_chip_tpu_profile_prints_what_the_cli_prints(self):
        self.assertTrue(TPU4["files"], "profiles-multidevice holds .xplane.pb files")
        for f in map(Path, TPU4["files"]):
            with self.subTest(profile=f.name):
                _, j = self.equal_in_both(f, [f.name], f.parent)
                if "x4" in f.name:
                    self.assertEqual(max(p["device_count"] for p in j["programs"]), 4, "four TPU chips")


def jaxpr_equations(jaxpr):
    """Every equation of a jaxpr, nested bodies included, from jax's own objects."""
    for eqn in jaxpr.eqns:
        yield eqn
        for v in eqn.params.values():
            for sub in (v if isinstance(v, (list, tuple)) else [v]):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    yield from jaxpr_equations(inner)


@unittest.skipUnless(os.access(CLI, os.X_OK), f"no native CLI at {CLI} (npm run build:native)")
class DecisionsReprs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import jax
        import naive_attention as prog

        cls.jax = jax
        cls.prog = prog
        cls.args = prog.example_args()
        cls.closed = jax.make_jaxpr(prog.FUNCTION)(*cls.args)
        cls.lowered = jax.jit(prog.FUNCTION).lower(*cls.args)
        cls.compiled = cls.lowered.compile()
        cls.tmp = tempfile.TemporaryDirectory()
        d = Path(cls.tmp.name)
        (d / "jaxpr.txt").write_text(str(cls.closed))
        (d / "stablehlo.mlir").write_text(cls.lowered.as_text())
        (d / "after_optimizations.txt").write_text(cls.compiled.as_text())
        cls.dir = d

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_each_jax_object_prints_what_the_cli_prints(self):
        for name, what in (("jaxpr.txt", (self.closed,)), ("jaxpr.txt", (self.prog.FUNCTION, *self.args)),
                           ("stablehlo.mlir", (self.lowered,)), ("after_optimizations.txt", (self.compiled,))):
            want = cli("decisions", self.dir / name)
            self.assertIsInstance(want, str, want)
            for backend in ("cli", "wasm"):
                with self.subTest(input=type(what[0]).__name__, backend=backend), text_backend(backend):
                    self.assertEqual(printed(hloscope.decisions(*what)), want)

    def test_the_fixture_dumps_print_what_the_cli_prints(self):
        d = FIXTURES / "naive_attention"
        for f in ("jaxpr.txt", "stablehlo.mlir", "after_optimizations.txt"):
            self.assertTrue((d / f).is_file(), f"{d / f} is missing: an in-repo fixture")
            with self.subTest(file=f):
                want = cli("decisions", d / f)
                with text_backend("wasm"):
                    self.assertEqual(printed(hloscope.decisions((d / f).read_text())), want)
                with text_backend("cli"):
                    self.assertEqual(printed(hloscope.decisions(d / f)), want)

    def test_jaxpr_decisions_count_jax_own_equations(self):
        import numpy as np

        eqns = list(jaxpr_equations(self.closed.jaxpr))
        prim = lambda e: e.primitive.name
        size = lambda v: np.dtype(v.aval.dtype).itemsize
        converts = [e for e in eqns if prim(e) == "convert_element_type"]
        want = {
            "broadcast": sum(prim(e) == "broadcast_in_dim" for e in eqns),
            "transpose": sum(prim(e) == "transpose" for e in eqns),
            "upcast": sum(size(e.outvars[0]) > size(e.invars[0]) for e in converts),
            "downcast": sum(size(e.outvars[0]) < size(e.invars[0]) for e in converts),
        }
        self.assertTrue(all(want.values()), want)  # naive_attention has each of them
        with text_backend("wasm"):
            got = hloscope.decisions(self.closed).json()
        self.assertEqual(got["format"], "jaxpr")
        kinds = [x["kind"] for x in got["decisions"]]
        self.assertEqual({k: kinds.count(k) for k in want}, want)
        lines = str(self.closed).splitlines()
        for x in got["decisions"]:  # each on the line of the text where its equation begins
            self.assertIn("=", lines[x["line"] - 1], x)


def oom_messages():
    return [Path(f) for f in MEMORY["files"]]


@unittest.skipUnless(os.access(CLI, os.X_OK), f"no native CLI at {CLI} (npm run build:native)")
class MemoryReprs(unittest.TestCase):
    @unittest.skipIf(MEMORY["absent"], MEMORY["absent"])
    def test_every_real_message_prints_what_the_cli_prints(self):
        self.assertTrue(oom_messages(), "../shared/captures/memory holds no .txt")
        for f in oom_messages():
            want = cli("memory", f)
            with self.subTest(capture=f.name):
                self.assertIsInstance(want, str, want)
                text = f.read_text(encoding="utf-8")
                with text_backend("wasm"):
                    self.assertEqual(printed(hloscope.memory(text)), want)
                with text_backend("cli"):
                    self.assertEqual(printed(hloscope.memory(f)), want)  # the path, read in place

    @unittest.skipIf(MEMORY["absent"], MEMORY["absent"])
    def test_an_xla_runtime_error_reads_as_its_text(self):
        from jax.errors import JaxRuntimeError  # jaxlib's XlaRuntimeError

        f = next(f for f in oom_messages() if f.name == "13_gpu_jax_13428_peak_buffers.txt")
        text = f.read_text(encoding="utf-8")
        body = text.split("XlaRuntimeError: ", 1)[1]
        try:
            raise JaxRuntimeError(body)
        except JaxRuntimeError as e:
            exc = e
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "error.txt").write_text(str(exc), encoding="utf-8")
            want = cli("memory", "error.txt", cwd=tmp)
        with text_backend("wasm"):
            self.assertEqual(printed(hloscope.memory(exc)), want)
            got = hloscope.memory(exc).json()
        # The figure the message itself prints ("while trying to allocate N bytes").
        self.assertEqual(got["requested_bytes"], int(re.search(r"allocate (\d+) bytes", text).group(1)))

    def test_a_real_out_of_memory_error_of_jax(self):
        # jax on the CPU asked for 4 TiB: a real XlaRuntimeError (RESOURCE_EXHAUSTED), raised in a
        # child whose address space is capped at 8 GiB, so that nothing is ever really taken.
        child = """if True:
            import json, resource, sys
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            resource.setrlimit(resource.RLIMIT_AS, (8 << 30, hard))
            import jax, jax.numpy as jnp, hloscope
            try:
                jax.jit(lambda: jnp.ones((1 << 40,), jnp.float32))().block_until_ready()
                sys.exit("no error")
            except jax.errors.JaxRuntimeError as e:
                resource.setrlimit(resource.RLIMIT_AS, (soft, hard))  # wasmtime reserves the wasm's 4 GiB
                r = hloscope.memory(e)
                print(json.dumps({"type": type(e).__name__, "text": str(e), "printed": str(r), "json": r.json()}))
        """
        with text_backend("wasm"):
            p = subprocess.run([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "JAX_PLATFORMS": "cpu"}, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr.decode()[-2000:])
        import json

        got = json.loads(p.stdout.decode().strip().splitlines()[-1])
        self.assertEqual(got["type"], "XlaRuntimeError")
        self.assertIn("RESOURCE_EXHAUSTED", got["text"])
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "error.txt").write_text(got["text"], encoding="utf-8")
            want = cli("memory", "error.txt", cwd=tmp)
        self.assertEqual(got["printed"] + "\n", want)
        self.assertEqual(got["json"]["requested_bytes"], 4 << 40)

    def test_a_dump_report_joins_the_hlo_beside_it(self):
        rel = "cpu-jax-0.4.38/matmul/dump"
        reports = [Path(f) for end in ("-buffer-assignment.txt", "-memory-usage-report.txt") for f in walker("files", rel, end)["files"]]
        self.assertEqual(len(reports), 2, f"fixtures/{rel}: one buffer assignment and one usage report (an in-repo fixture)")
        for f in reports:
            want = cli("memory", f)
            with self.subTest(report=f.name):
                self.assertIsInstance(want, str, want)
                for backend in ("cli", "wasm"):
                    with self.subTest(backend=backend), text_backend(backend):
                        self.assertEqual(printed(hloscope.memory(f)), want)
                        self.assertEqual(printed(hloscope.memory(str(f))), want)
        ba = reports[0]
        hlo = ba.with_name(ba.name.replace("-buffer-assignment.txt", ".txt"))
        # the text alone has no file name to say its backend (XLA's dump name does): the CLI
        # reading the same text from standard input is the reference
        want = cli("memory", "-", hlo, stdin=ba.read_bytes())
        self.assertIsInstance(want, str, want)
        with text_backend("wasm"):
            self.assertEqual(printed(hloscope.memory(ba.read_text(), hlo=hlo)), want)

    def test_an_hlo_that_does_not_parse_is_not_joined_and_the_warning_says_where(self):
        # issue 33: the CLI, the page and Python say the same (the page's half is tests/node/memory.test.mjs)
        rel = "cpu-jax-0.4.38/matmul/dump"
        ba = Path(walker("files", rel, "-buffer-assignment.txt")["files"][0])
        bad = "HloModule broken\n\nENTRY %e {\n  %x = f32[ parameter(0)\n}\n"
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "bad.txt").write_text(bad)
            want = cli("memory", "--json", ba, Path(tmp) / "bad.txt")
        self.assertIsInstance(want, str, want)
        for backend in ("cli", "wasm"):
            with self.subTest(backend=backend), text_backend(backend):
                got = hloscope.memory(ba, hlo=bad).json()
                self.assertEqual(got["warnings"], json.loads(want)["warnings"])
                skipped = [w for w in got["warnings"] if w["code"] == "HS_W_JOIN_SKIPPED"]
                self.assertEqual(len(skipped), 1)
                self.assertIn("does not parse at line 4, column 13 (HS_E_SYNTAX: ", skipped[0]["message"])
                self.assertEqual(len(got["allocations"]), len(json.loads(want)["allocations"]))

    def test_not_a_memory_text_says_where(self):
        msgs = []
        for backend in ("cli", "wasm"):
            with text_backend(backend):
                with self.assertRaises(hloscope.HloscopeError) as e:
                    hloscope.memory("this is no memory report\n").text()
                msgs.append(str(e.exception))
        self.assertRegex(msgs[0], r"^error\.txt:\d+:\d+: HS_E_\w+: ")
        self.assertEqual(msgs[1], msgs[0])


@unittest.skipUnless(os.access(CLI, os.X_OK), f"no native CLI at {CLI} (npm run build:native)")
class PassesReprs(unittest.TestCase):
    def test_a_dump_folder_its_archive_and_a_listing_print_what_the_cli_prints(self):
        import tarfile

        archive = REPO / "fixtures/passes/cpu-jax-0.4.38/mlp/dump.tar.gz"
        self.assertTrue(archive.is_file(), f"{archive} is missing: an in-repo fixture")
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "dump"
            with tarfile.open(archive) as t:
                t.extractall(tmp, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
            if not folder.is_dir():  # the archive's own top folder
                folder = next(p for p in Path(tmp).iterdir() if p.is_dir())
            names = [p.name for p in folder.rglob("*") if p.is_file()]
            listing = Path(tmp) / "listing.txt"
            listing.write_text("\n".join(names) + "\n")
            for what in (archive, folder, listing):
                want = cli("passes", what.resolve())
                with self.subTest(input=what.name):
                    self.assertIsInstance(want, str, want)
                    for backend in ("cli", "wasm"):
                        with self.subTest(backend=backend), text_backend(backend):
                            self.assertEqual(printed(hloscope.passes(what)), want)
            # The step count against the folder itself: one *.before_optimizations ... file per pass step.
            with text_backend("cli"):
                got = hloscope.passes(folder).json()
            steps = sum(len(m["steps"]) for m in got["modules"])
            pass_files = [n for n in names if re.match(r"module_\d+\..*\.\d{4}\.", n)]
            self.assertEqual(steps, len(pass_files), (steps, sorted(pass_files)[:5]))


@unittest.skipUnless(os.access(CLI, os.X_OK), f"no native CLI at {CLI} (npm run build:native)")
class Diff(unittest.TestCase):
    """hloscope.diff prints what `hloscope diff` prints: on the real pairs (files), on jax objects
    of one program (the same by meaning), on two dump archives (the passes compared)."""

    def test_real_pairs_print_what_the_cli_prints(self):
        pairs = [Path(f).parent for f in walker("diff-pairs", "a.after_optimizations.txt")["files"]]
        self.assertGreaterEqual(len(pairs), 12)
        for d in pairs:
            want = cli("diff", "a.after_optimizations.txt", "b.after_optimizations.txt", cwd=d)
            for backend in ("cli", "wasm"):
                with self.subTest(pair=d.name, backend=backend), text_backend(backend):
                    got = hloscope.diff(d / "a.after_optimizations.txt", d / "b.after_optimizations.txt")
                    self.assertEqual(printed(got), want)
            with text_backend("cli"):
                self.assertEqual(hloscope.diff((d / "a.after_optimizations.txt").read_text(), d / "b.after_optimizations.txt").json(),
                                 __import__("json").loads(cli("diff", "--json", d / "a.after_optimizations.txt", d / "b.after_optimizations.txt")))

    def test_pairs_with_profiles_print_what_the_cli_prints(self):
        pairs = [Path(f).parent for f in walker("diff-pairs", "a.xplane.pb")["files"]]
        for d in pairs:
            if not (d / "b.xplane.pb").exists():
                continue
            want = cli("diff", "--profiles", "a.xplane.pb", "b.xplane.pb", "a.after_optimizations.txt", "b.after_optimizations.txt", cwd=d)
            self.assertIn("\ntime A: ", want)
            for backend in ("cli", "wasm"):
                with self.subTest(pair=d.name, backend=backend), text_backend(backend):
                    got = hloscope.diff(d / "a.after_optimizations.txt", d / "b.after_optimizations.txt",
                                        profiles=(d / "a.xplane.pb", d / "b.xplane.pb"))
                    self.assertEqual(printed(got).replace(str(d.resolve()) + "/", ""), want)
            with text_backend("cli"):
                got = hloscope.diff(d / "a.after_optimizations.txt", d / "b.after_optimizations.txt",
                                    profiles=((d / "a.xplane.pb").read_bytes(), (d / "b.xplane.pb").read_bytes())).json()
                self.assertEqual(got, __import__("json").loads(cli("diff", "--json", "--profiles", d / "a.xplane.pb", d / "b.xplane.pb",
                                                                   d / "a.after_optimizations.txt", d / "b.after_optimizations.txt")))

    def test_a_compiled_against_its_lowered_is_the_same(self):
        import jax
        import jax.numpy as jnp

        f = jax.jit(lambda x: jnp.tanh(x @ x.T).sum(axis=0))
        lowered = f.lower(jnp.ones((64, 32), jnp.float32))
        with text_backend("cli"):
            got = hloscope.diff(lowered.compile(), lowered).json()
        self.assertTrue(got["verdict"].startswith("Same by meaning"), got["verdict"])
        self.assertEqual(got["matched"]["unmatched_a"], 0)

    def test_jax_sides_bring_their_versions_and_xla_cost_analysis(self):
        import jax
        import jax.numpy as jnp

        x = jnp.ones((64, 32), jnp.float32)
        a = jax.jit(lambda x: jnp.tanh(x @ x.T).sum(axis=0)).lower(x).compile()
        b = jax.jit(lambda x: jnp.exp(x @ x.T @ x).sum(axis=0)).lower(x).compile()
        with text_backend("cli"):
            got = hloscope.diff(a, b).json()
        env = {e["key"]: e for e in got["environment"]}
        self.assertEqual((env["jax"]["a"], env["jax"]["b"]), (jax.__version__, jax.__version__))
        for side, c in (("a", a), ("b", b)):  # XLA's own numbers, written as the core writes a number
            cost = c.cost_analysis()
            cost = cost[0] if isinstance(cost, (list, tuple)) else cost
            self.assertIn("flops", cost)
            self.assertEqual(env["cost_analysis.flops"][side], format(cost["flops"], ".15g"))
        self.assertNotEqual(env["cost_analysis.flops"]["a"], env["cost_analysis.flops"]["b"])
        self.assertIn("Compile environment: ", got["verdict"])
        self.assertIn("cost_analysis.flops", got["verdict"])
        with text_backend("wasm"):
            self.assertEqual(hloscope.diff(a, b).json(), got)

    def test_two_dump_folders_say_the_flags_xla_was_given(self):
        for d in sorted({Path(f).parent for f in walker("diff-pairs", "a.dump.tar.gz")["files"]}):
            oracle = __import__("json").loads((d / "oracle.json").read_text())["folders"]
            with text_backend("cli"):
                got = hloscope.diff(d / "a.dump.tar.gz", d / "b.dump.tar.gz").json()
            env = {e["key"]: e for e in got["environment"]}
            for k, v in oracle["b"]["xla_flags"].items():
                self.assertEqual((env[k]["a"], env[k]["b"]), (oracle["a"]["xla_flags"].get(k), v), f"{d.name} {k}")

    def test_the_widget_view_takes_both_texts_and_a_folder_side_prints_its_text(self):
        d = Path(walker("diff-pairs", "a.after_optimizations.txt")["files"][0]).parent
        texts = [(d / f"{s}.after_optimizations.txt").read_text() for s in "ab"]
        got = hloscope.diff(d / "a.after_optimizations.txt", texts[1])
        self.assertEqual(got.analysis.widget, "diff")
        self.assertTrue(got._has_view())
        self.assertEqual([got.files[a] for a in got.args], texts)  # what the widget's `left`, `right` carry
        archives = [Path(f) for f in walker("files", "passes/cpu-jax-0.4.38/mlp", "dump.tar.gz")["files"]][:1] * 2
        folders = hloscope.diff(*archives)
        self.assertFalse(folders._has_view())
        with text_backend("cli"):
            self.assertEqual(folders._repr_mimebundle_(), ({"text/plain": str(folders)}, {}))

    def test_two_dump_archives_compare_their_passes(self):
        archives = [Path(f) for f in walker("files", "passes/cpu-jax-0.4.38/mlp", "dump.tar.gz")["files"]][:1] + \
                   [Path(f) for f in walker("files", "passes/cpu-jax-0.12.0.1/mlp", "dump.tar.gz")["files"]][:1]
        self.assertEqual(len(archives), 2, archives)
        with text_backend("cli"):
            got = hloscope.diff(*archives).json()
        want = __import__("json").loads(cli("passes", "--compare", "--json", *archives))
        self.assertEqual(got["passes"], want)


class Missing(unittest.TestCase):
    def test_every_entry_is_on(self):
        self.assertEqual(sorted(k for k, a in hloscope.ANALYSES.items() if a.missing), [])
        self.assertEqual(sorted(hloscope.ANALYSES), ["decisions", "diff", "fusions", "memory", "passes", "spills", "timeline", "xray"])

    def test_an_entry_without_its_core_analysis_raises(self):
        from dataclasses import replace

        saved = hloscope.ANALYSES["passes"]
        hloscope.ANALYSES["passes"] = replace(saved, missing="a reader (issue 12)")
        try:
            with self.assertRaisesRegex(NotImplementedError, r"hloscope\.passes is not in this version: it needs a reader \(issue 12\)"):
                hloscope.passes("/tmp")
        finally:
            hloscope.ANALYSES["passes"] = saved

    def test_xray_of_stablehlo_alone_says_what_is_missing(self):
        with self.assertRaisesRegex(ValueError, "needs the optimized HLO"):
            hloscope.xray("module @jit_f {\n  func.func public @main() {\n    return\n  }\n}\n")

    def test_bad_input_type_is_named(self):
        with self.assertRaisesRegex(TypeError, "cannot read a int"):
            hloscope.fusions(42)


if __name__ == "__main__":
    unittest.main(verbosity=2)
