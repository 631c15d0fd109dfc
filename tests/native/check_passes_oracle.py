"""Per-step counts of `hloscope passes --json` against XLA's own parser (oracle.json, written by
fixtures/capture/passes.py from jaxlib's hlo_module_from_text) for every captured dump folder.

  python3 tests/native/check_passes_oracle.py HLOSCOPE FIXTURE_DIR..."""
import json
import subprocess
import sys

KEYS = ("computations", "instructions", "fusion_ops", "fusion_computations", "opcodes")


def main():
    exe, dirs = sys.argv[1], sys.argv[2:]
    bad = checked = 0
    for d in dirs:
        oracle = json.load(open(f"{d}/oracle.json"))["files"]
        out = subprocess.run([exe, "passes", "--json", f"{d}/dump.tar.gz"], capture_output=True, check=True).stdout
        res = json.loads(out)
        steps = {s["file"]: s for m in res["modules"] for s in m["steps"]}
        step_files = [n for n in oracle if n in steps]
        # every step file XLA wrote (names with a 4-digit step and .after_) was counted by the oracle
        written = [f["name"] for f in res["files"] if f["kind"] == "step"]
        if sorted(written) != sorted(step_files) or not written:
            print(f"FAIL {d}: {len(written)} step files, oracle has {len(step_files)}")
            bad += 1
        for n in step_files:
            got, want = steps[n]["counts"], oracle[n]
            checked += 1
            if "error" in want or got is None or any(got[k] != want[k] for k in KEYS):
                bad += 1
                diff = {k: (got and got.get(k), want.get(k)) for k in KEYS if not got or got.get(k) != want.get(k)}
                print(f"FAIL {d} {n}: {diff}")
        print(f"{d}: {len(step_files)} steps equal XLA's parser")
    print(f"{checked} step files checked, {bad} failures")
    sys.exit(1 if bad else 0)


main()
