#!/usr/bin/env python3
"""pack_otf2.py ARCHIVE_DIR OUT: packs an OTF2 archive into one fuzz input for fuzz_otf2
(tests/fuzz/fuzz_reader.c, FUZZ_ARCHIVE): records [index: 1 byte][length: 2 bytes LE][bytes],
index 0 the anchor traces.otf2, 1 traces.def, 2 + 2k traces/k.def, 3 + 2k traces/k.evt (k < 16).
Files longer than 65535 bytes are cut there (a cut file is a useful input too)."""
import os
import sys

src, out = sys.argv[1], sys.argv[2]
files = [(0, "traces.otf2"), (1, "traces.def")]
for k in range(16):
    files += [(2 + 2 * k, "traces/%d.def" % k), (3 + 2 * k, "traces/%d.evt" % k)]
with open(out, "wb") as o:
    for idx, name in files:
        path = os.path.join(src, name)
        if os.path.exists(path):
            data = open(path, "rb").read()[:65535]
            o.write(bytes([idx, len(data) & 0xFF, len(data) >> 8]) + data)
