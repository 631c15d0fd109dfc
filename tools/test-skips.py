#!/usr/bin/env python3
"""Every test that did not run in an `npm test`, and why, from the step logs tools/test.sh keeps
in build/test-logs/: node's TAP ("# SKIP reason"), Python unittest ("... skipped 'reason'") and
the suites' own "SKIPPED: ..." lines from the .log files, and from each ctest run's JUnit file
(.junit.xml, which holds every test's output) the skipped ctests and the cmocka tests skipped
inside a passing one, each with the reason it printed (a test skipped for lack of ../shared
names the folder).

    python3 tools/test-skips.py build/test-logs
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET


def from_log(text):
    out = []
    for line in text.splitlines():
        s = line.strip().lstrip("# ").strip()
        if "test name does not match pattern" in s:
            continue
        if re.search(r"# SKIP\b|\.\.\. skipped |^SKIPPED\b", s):
            out.append(s)
    return out


def from_junit(path):
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name")
        text = "".join(case.findtext("system-out") or "")
        reasons = re.findall(r"^\(?[^\n]*?SKIPPED:? [^\n]*$", text, re.M)
        reasons = [r.strip() for r in reasons if not re.match(r"\s*(\[  SKIPPED \]|\d+ SKIPPED TEST)", r)]
        tests = re.findall(r"^\[  SKIPPED \] (\S+)$", text, re.M)
        tests = sorted(set(tests))
        if case.get("status") in ("notrun", "skipped") or case.find("skipped") is not None:
            out.append(f"ctest {name}: skipped: {'; '.join(sorted(set(reasons))) or 'no reason printed'}")
        elif tests or reasons:
            what = f"{len(tests)} of its tests skipped ({', '.join(tests)})" if tests else "part of it skipped"
            out.append(f"ctest {name}: {what}: {'; '.join(sorted(set(reasons)))}")
    return out


def main(folder):
    for f in sorted(pathlib.Path(folder).glob("*.log")):
        lines = from_log(f.read_text(errors="replace"))
        for j in sorted(pathlib.Path(folder).glob(f"{f.stem}*.junit.xml")):
            lines += from_junit(j)
        if lines:
            print(f"  {f.stem}:")
            for l in sorted(set(lines)):
                print(f"    {l}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/test-logs")
