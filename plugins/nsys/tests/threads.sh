#!/usr/bin/env bash
# The CPU samples' frames read on a thread of their own (nsys_chains.c) give what one thread
# gives: the same bytes from pprof and the ordered text dump, the same messages and status, for
#   - the exports with CPU samples kept here and in the corpus, plain and gzip (a spooled copy,
#     whose second connection is opened before its name goes);
#   - one with more frame rows than the thread buffers (its wait for the reader), and with some
#     samples out of id order (looked up by key beside the scan);
#   - the same with a page of SAMPLING_CALLCHAINS damaged: the error of the row where the scan
#     meets it, and a run that fails elsewhere while the thread is reading (no hang).
# TCONV_SPLIT_BYTES lets a small input count as large; -v says when the thread was used, so the
# comparisons cannot pass by taking one path twice.
# usage: threads.sh TCONV SRC WORK CORPUS
TCONV=$1 SRC=$2 WORK=$3/threads CORPUS=${4:-}
. "$SRC/lib.sh"
need sqlite3
need python3
NOTE="read on a thread of their own"

# same NAME INPUT [OPTION...]: one thread and two give the same output, messages and status
same() {
    local name=$1 input=$2
    shift 2
    for w in pprof text-ordered; do
        set +e
        "$TCONV" -v -j 1 -r nsys -R samples=true "$@" -w $w -o "$TMP/$name.1.$w" "$input" \
            >/dev/null 2>"$TMP/$name.1.err"
        local s1=$?
        TCONV_SPLIT_BYTES=1 "$TCONV" -v -j 2 -r nsys -R samples=true "$@" -w $w \
            -o "$TMP/$name.2.$w" "$input" >/dev/null 2>"$TMP/$name.2.err"
        local s2=$?
        set -e
        grep -qF "$NOTE" "$TMP/$name.1.err" && fail "$name: -j 1 used a thread"
        grep -qF "$NOTE" "$TMP/$name.2.err" || fail "$name: -j 2 did not read on a thread"
        [ "$s1" = "$s2" ] || fail "$name -w $w: status $s1 with one thread, $s2 with two"
        # the messages, but for -v's own lines (the thread's note, times and rates)
        diff <(grep -vF -e "$NOTE" -e "MB/s" -e "reads" "$TMP/$name.1.err") \
            <(grep -vF -e "$NOTE" -e "MB/s" -e "reads" "$TMP/$name.2.err") >"$TMP/diff" ||
            fail "$name -w $w: other messages on two threads: $(head -c 600 "$TMP/diff")"
        if [ "$s1" = 0 ]; then
            cmp -s "$TMP/$name.1.$w" "$TMP/$name.2.$w" ||
                fail "$name -w $w: other bytes on two threads"
        else
            [ ! -e "$TMP/$name.2.$w" ] || fail "$name -w $w: a failed run left its output"
        fi
        last_status=$s1
    done
}

inputs=()
gzip -dc "$SRC/data/pipit-saxpy-mpi-cuda-rank0-cut.sqlite.gz" >"$TMP/cut.sqlite"
inputs+=("$TMP/cut.sqlite")
for f in "$CORPUS"/nsys/*.sqlite; do
    [ -f "$f" ] || continue
    sqlite3 "$f" "SELECT 1 FROM COMPOSITE_EVENTS LIMIT 1" 2>/dev/null | grep -q 1 && inputs+=("$f")
done
for f in "${inputs[@]}"; do
    same "$(basename "$f" .sqlite)" "$f"
    [ "$last_status" = 0 ] || fail "$f: not read"
done
same gzip "$SRC/data/pipit-saxpy-mpi-cuda-rank0-cut.sqlite.gz"
[ "$last_status" = 0 ] || fail "the gzip export was not read"

# ---- more frame rows than the thread holds at once; samples out of id order ----------------
cp "$TMP/cut.sqlite" "$TMP/big.sqlite"
python3 - "$TMP/big.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
span = c.execute("SELECT max(start) - min(start) + 1000 FROM COMPOSITE_EVENTS").fetchone()[0]
step = c.execute("SELECT max(id) + 1 FROM COMPOSITE_EVENTS").fetchone()[0]
cols = lambda t: [r[1] for r in c.execute("PRAGMA table_info(%s)" % t)]
for t in ("COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS"):
    c.execute("CREATE TEMP TABLE orig AS SELECT * FROM %s" % t)
    for k in range(1, 400):
        sel = ["start + %d" % (k * span) if x == "start" else "id + %d" % (k * step) if x == "id"
               else '"%s"' % x for x in cols(t)]
        c.execute("INSERT INTO %s SELECT %s FROM orig" % (t, ", ".join(sel)))
    c.execute("DROP TABLE orig")
# two samples far apart trade ids (frames and all): the later one in time has the smaller id
a, b = step * 10 + 5, step * 300 + 7
for t in ("COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS"):
    c.execute("UPDATE %s SET id = -1 WHERE id = ?" % t, (a,))
    c.execute("UPDATE %s SET id = ? WHERE id = ?" % t, (a, b))
    c.execute("UPDATE %s SET id = ? WHERE id = -1" % t, (b,))
c.commit()
c.execute("VACUUM")
PY
rows=$(sqlite3 "$TMP/big.sqlite" "SELECT count(*) FROM SAMPLING_CALLCHAINS")
[ "$rows" -gt 300000 ] || fail "the large export has only $rows frame rows"
same big "$TMP/big.sqlite"
[ "$last_status" = 0 ] || fail "the large export was not read"

# ---- damage ---------------------------------------------------------------------------------
# a leaf of the frames' index late in the scan: the scan fails there, after many samples
page=$(sqlite3 "$TMP/big.sqlite" "SELECT pageno FROM dbstat WHERE name =
    'sqlite_autoindex_SAMPLING_CALLCHAINS_1' AND pagetype = 'leaf' ORDER BY path LIMIT 1 OFFSET
    (SELECT count(*) * 3 / 4 FROM dbstat WHERE name = 'sqlite_autoindex_SAMPLING_CALLCHAINS_1'
    AND pagetype = 'leaf')")
[ -n "$page" ] || fail "no leaf page of the frames' index found"
cp "$TMP/big.sqlite" "$TMP/damaged.sqlite"
head -c 4096 /dev/urandom | dd of="$TMP/damaged.sqlite" bs=4096 seek=$((page - 1)) \
    conv=notrunc status=none
same damaged "$TMP/damaged.sqlite"
[ "$last_status" = 1 ] || fail "a damaged frames table was read without an error"
grep -qF "cannot read table SAMPLING_CALLCHAINS" "$TMP/damaged.2.err" ||
    fail "the damage is not named: $(head -c 600 "$TMP/damaged.2.err")"

# the samples' own table damaged late: the read fails while the thread is still reading
page=$(sqlite3 "$TMP/big.sqlite" "SELECT pageno FROM dbstat WHERE name = 'COMPOSITE_EVENTS' AND
    pagetype = 'leaf' ORDER BY path LIMIT 1 OFFSET (SELECT count(*) / 2 FROM dbstat WHERE
    name = 'COMPOSITE_EVENTS' AND pagetype = 'leaf')")
cp "$TMP/big.sqlite" "$TMP/damaged2.sqlite"
head -c 4096 /dev/urandom | dd of="$TMP/damaged2.sqlite" bs=4096 seek=$((page - 1)) \
    conv=notrunc status=none
same damaged2 "$TMP/damaged2.sqlite"
[ "$last_status" = 1 ] || fail "a damaged samples table was read without an error"

finish
