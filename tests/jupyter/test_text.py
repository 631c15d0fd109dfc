"""The text reprs in plain Python (run by tests/jupyter/jupyter.test.mjs with the venv's python,
against the installed wheel): print(hloscope.fusions(compiled)) prints what the native CLI prints,
with the native CLI and with the wasm under Node; jax inputs of every accepted kind; the entries
whose core analyses are missing raise NotImplementedError; no runner says so.

Environment: HLOSCOPE_TEST_CLI = the native CLI (build/native/hloscope); JAX_PLATFORMS=cpu.
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = os.environ.get("HLOSCOPE_TEST_CLI") or str(REPO / "build/native/hloscope")
FIXTURES = REPO / "fixtures/cpu-jax-0.4.38"
sys.path[:0] = [str(REPO / "fixtures/capture/programs"), str(REPO / "fixtures/capture")]

import hloscope  # noqa: E402  (the installed wheel)


@contextlib.contextmanager
def text_backend(name, **extra):
    keys = ["HLOSCOPE_TEXT", "HLOSCOPE_CLI", "HLOSCOPE_NODE", *extra]
    saved = {k: os.environ.get(k) for k in keys}
    os.environ["HLOSCOPE_TEXT"] = name
    os.environ["HLOSCOPE_CLI"] = CLI
    os.environ.pop("HLOSCOPE_NODE", None)
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cli(*args, cwd=None):
    """The native CLI's stdout (the reference), or (rc, stderr) on failure."""
    p = subprocess.run([CLI, *map(str, args)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
        for backend in ("cli", "node"):
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

    def test_census_counts_equal_xla_own_module(self):
        import hlo_proto

        mods = self.compiled.runtime_executable().hlo_modules()
        ops = [i for hm in mods for c in hlo_proto.decode_module(hm.as_serialized_hlo_module_proto())["computations"]
               for i in c["instructions"]]
        with text_backend("node"):
            self.assertEqual(hloscope.fusions(self.compiled).json()["fusion_ops"],
                             sum(i["opcode"] == "fusion" for i in ops))

    def test_xray_and_spills_print_what_the_cli_prints(self):
        want_x = cli("xray", "stablehlo.mlir", "after_optimizations.txt", cwd=self.dir)
        want_s = cli("spills", self.dir / "after_optimizations.txt")
        n_in = len(self.lowered.as_text().splitlines())
        n_out = len(self.compiled.as_text().splitlines())
        self.assertTrue(want_x.startswith(f"{n_in} lines in -> {n_out} lines decided"), want_x[:200])
        for backend in ("cli", "node"):
            with self.subTest(backend=backend), text_backend(backend):
                self.assertEqual(printed(hloscope.xray(self.lowered)), want_x)
                self.assertEqual(printed(hloscope.xray(self.lowered.as_text(), self.compiled.as_text())), want_x)
                self.assertEqual(printed(hloscope.spills(self.lowered)), want_s)

    def test_node_prints_what_the_cli_prints_on_the_fixtures(self):
        for fx in ("transformer_step", "sharded"):  # every fixture: tests/node/jupyter-text.test.mjs
            d = FIXTURES / fx
            if not d.is_dir():
                self.skipTest(f"no fixture {d}")
            hlo = (d / "after_optimizations.txt").read_text()
            shlo = (d / "stablehlo.mlir").read_text()
            for name, make in (("fusions", lambda: hloscope.fusions(hlo)), ("spills", lambda: hloscope.spills(hlo)),
                               ("xray", lambda: hloscope.xray(shlo, hlo)), ("xray-one-sided", lambda: hloscope.xray(hlo))):
                with self.subTest(fixture=fx, analysis=name):
                    with text_backend("cli"):
                        a = make().text()
                    with text_backend("node"):
                        b = make().text()
                    self.assertEqual(b, a)

    def test_timeline_prints_what_the_cli_prints(self):
        d = FIXTURES / "matmul"
        for f in ("profile.xplane.pb", "profile.trace.json.gz"):
            with self.subTest(file=f):
                want = cli("profile", f, cwd=d)
                with text_backend("node"):
                    self.assertEqual(printed(hloscope.timeline(d / f)), want)
                with text_backend("cli"):
                    self.assertEqual(printed(hloscope.timeline(d / f)), want)

    def test_timeline_of_a_profiler_folder(self):
        import jax.numpy as jnp

        with tempfile.TemporaryDirectory() as log_dir:
            f = self.jax.jit(lambda x: jnp.tanh(x @ x))
            x = jnp.ones((64, 64))
            f(x).block_until_ready()
            with self.jax.profiler.trace(log_dir):
                f(x).block_until_ready()
            with text_backend("cli"):
                text = hloscope.timeline(log_dir).text()
            self.assertRegex(text, r"xplane profile")

    def test_parse_errors_say_where_in_both(self):
        bad = "HloModule m\nENTRY %e {\n  oops\n}\n"
        msgs = []
        for backend in ("cli", "node"):
            with text_backend(backend):
                with self.assertRaises(hloscope.HloscopeError) as e:
                    hloscope.fusions(bad).text()
                msgs.append(str(e.exception))
                self.assertIn("hloscope fusions: after_optimizations.txt:3:", str(hloscope.fusions(bad)))
        self.assertRegex(msgs[0], r"^after_optimizations\.txt:3:\d+: HS_E_SYNTAX: ")
        self.assertEqual(msgs[1], msgs[0])

    def test_without_cli_or_node_the_text_says_so(self):
        with text_backend("", HLOSCOPE_CLI="", HLOSCOPE_NODE="/nonexistent/node"):
            s = str(hloscope.fusions(self.compiled))
        self.assertIn("no text here", s)
        self.assertIn("npm run build:native", s)


class Missing(unittest.TestCase):
    def test_entries_without_their_core_analysis_raise(self):
        for name, arg, issue in (("memory", "RESOURCE_EXHAUSTED: Out of memory", "issue 14"), ("passes", "/tmp", "issue 12")):
            with self.subTest(name=name):
                with self.assertRaises(NotImplementedError) as e:
                    getattr(hloscope, name)(arg)
                self.assertIn(issue, str(e.exception))
                self.assertIn(f"hloscope.{name}", str(e.exception))
        self.assertEqual(sorted(k for k, a in hloscope.ANALYSES.items() if a.missing), ["memory", "passes"])

    def test_xray_of_stablehlo_alone_says_what_is_missing(self):
        with self.assertRaisesRegex(ValueError, "needs the optimized HLO"):
            hloscope.xray("module @jit_f {\n  func.func public @main() {\n    return\n  }\n}\n")

    def test_bad_input_type_is_named(self):
        with self.assertRaisesRegex(TypeError, "cannot read a int"):
            hloscope.fusions(42)


if __name__ == "__main__":
    unittest.main(verbosity=2)
