"""The Python side's door to the one walker, tests/fixtures.mjs: runs its command line (node) and
returns what it lists, so that no Python test or oracle script lists fixtures/ or ../shared
itself, and HLOSCOPE_NO_SHARED=1 reads the same everywhere.

    from fixtures import walker        # with tests/ on sys.path
    walker("shared", "memory", ".txt")  # {"absent": reason or False, "files": [...]}
    walker("fixtures", "profile.xplane.pb")["files"]
"""
import json
import os
import shutil
import subprocess

WALKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures.mjs")


def walker(*args, shared=None):
    """What tests/fixtures.mjs lists: {"absent": reason or False, "files": [paths]}. shared: the
    shared folder when it is not ../shared beside the repository (HLOSCOPE_SHARED)."""
    env = dict(os.environ, **({"HLOSCOPE_SHARED": os.path.abspath(shared)} if shared else {}))
    node = shutil.which("node") or "node"
    out = subprocess.run([node, WALKER, *args, "--json"], stdout=subprocess.PIPE, check=True, env=env)
    return json.loads(out.stdout)
