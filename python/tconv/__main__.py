"""python3 -m tconv ...: the tconv command of the library this package uses.

It runs that program in place of the Python process (same options, messages, output and exit
status), so there is one command-line behaviour to know, not two.
"""

import os
import sys

from . import Error, _lib


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        _, path = _lib.load()
    except Error as e:
        print(f"tconv: error: {e}", file=sys.stderr)
        return 1
    exe = _lib.executable(path)
    if not exe:
        print(f"tconv: error: no tconv program beside {path} or on PATH", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe] + list(argv))


if __name__ == "__main__":
    sys.exit(main())
