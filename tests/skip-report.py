#!/usr/bin/env python3
"""How many tests of a ctest run skipped, and why.

ctest counts a skipped test (exit 77, SKIP_RETURN_CODE) as neither passed nor failed and prints
no reason, so "100% tests passed" can hide a suite that mostly did not run. This reads the JUnit
report of the run (ctest --output-junit FILE) and lists every skipped test with the reason it gave
(the last line of its output that speaks of skipping, else its last line). With --max-percent N it
fails (exit 1) when more than N % of the tests skipped.

usage: skip-report.py JUNIT_XML [--max-percent N]
"""

import sys
import xml.etree.ElementTree as ET


def reason(case):
    out = case.findtext("system-out") or ""
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    for line in reversed(lines):
        if "skip" in line.lower():
            return line
    return lines[-1] if lines else "(no output)"


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--max-percent"):
        print(__doc__, file=sys.stderr)
        return 2
    limit = float(argv[3]) if len(argv) == 4 else None
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print("skip-report: %s: %s (run ctest with --output-junit)" % (argv[1], e),
              file=sys.stderr)
        return 2
    cases = root.iter("testcase")
    total = 0
    skipped = []
    for case in cases:
        total += 1
        if case.find("skipped") is not None:
            skipped.append((case.get("name"), reason(case)))
    if total == 0:
        print("skip-report: no test in %s" % argv[1], file=sys.stderr)
        return 2
    percent = 100.0 * len(skipped) / total
    print("%d of %d tests ran, %d skipped (%.1f %%)" % (total - len(skipped), total, len(skipped),
                                                      percent))
    for name, why in sorted(skipped):
        print("  skipped %s: %s" % (name, why))
    if limit is not None and percent > limit:
        print("FAIL: more than %g %% of the tests skipped" % limit)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
