#!/usr/bin/env bash
# How the nsys reader takes its input and what it says when the input is not what it needs:
#   - a plain file, its gzip and stdin give the same events; the input's folder is left as it
#     was (no journal, WAL or lock file), and the temporary copy of a stream is gone;
#   - no room for that copy, not SQLite, SQLite but not nsys, an rpd database, a truncated or
#     damaged file, a table without a column nsys always writes, no StringIds: exit 1 and a
#     message that says which;
#   - tables a tool removed are named in a note; a row without a usable time is a counted
#     warning and the rest is read;
#   - detection by content: an export without its extension, an rpd named .sqlite;
#   - -v says the file's size, which SQLite reads by name.
# usage: errors.sh TCONV SRC WORK
TCONV=$1 SRC=$2 WORK=$3/errors
. "$SRC/lib.sh"
need sqlite3
in=$TMP/in
mkdir -p "$in"
gzip -dc "$SRC/data/extrap-concurrent-profile1.sqlite.gz" >"$in/export.sqlite"
cp "$SRC/data/extrap-concurrent-profile1.sqlite.gz" "$in/export.sqlite.gz"
rpd=$SRC/../../rocprof/tests/data/rocmProfileData-matmul_result.rpd.gz

# ---- the input: plain, gzip, stdin; nothing written beside it ------------------------------
mkdir -p "$TMP/tmpdir"
listing() { (cd "$in" && ls -A && stat -c '%n %s %Y %Z' ./* && sha256sum export.sqlite); }
before=$(listing)
run 0 "$TCONV" -q -w text -o "$TMP/plain.txt" "$in/export.sqlite"
TMPDIR=$TMP/tmpdir run 0 "$TCONV" -q -w text -o "$TMP/gz.txt" "$in/export.sqlite.gz"
TMPDIR=$TMP/tmpdir run 0 "$TCONV" -q -r nsys -w text -o "$TMP/stdin.txt" - <"$in/export.sqlite"
cmp -s "$TMP/plain.txt" "$TMP/gz.txt" || fail "the gzip input gives other events than the file"
cmp -s "$TMP/plain.txt" "$TMP/stdin.txt" || fail "stdin gives other events than the file"
[ -s "$TMP/plain.txt" ] || fail "no events from the export"
[ -z "$(ls -A "$TMP/tmpdir")" ] || fail "temporary copies left behind: $(ls -A "$TMP/tmpdir")"
after=$(listing)
[ "$before" = "$after" ] || fail "the input's folder changed: $before // $after"
# stdin is detected by content too
TMPDIR=$TMP/tmpdir run 0 "$TCONV" -q -w text -o "$TMP/stdin2.txt" - <"$in/export.sqlite"
cmp -s "$TMP/plain.txt" "$TMP/stdin2.txt" || fail "stdin without -r is not read as nsys"

# -v counts the whole file SQLite read by name, not the head the probe peeked at: the plain
# file, its gzip (read through the input into a temporary copy) and stdin all say its size
mb() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
size=$(stat -c %s "$in/export.sqlite") gzsize=$(stat -c %s "$in/export.sqlite.gz")
for how in plain gz stdin; do
    case $how in
    plain) run 0 "$TCONV" -v -w summary -o "$TMP/s.txt" "$in/export.sqlite" ;;
    gz) TMPDIR=$TMP/tmpdir run 0 "$TCONV" -v -w summary -o "$TMP/s.txt" "$in/export.sqlite.gz" ;;
    stdin) TMPDIR=$TMP/tmpdir run 0 "$TCONV" -v -w summary -o "$TMP/s.txt" - <"$in/export.sqlite" ;;
    esac
    raw=$size
    [ $how = gz ] && raw=$gzsize
    err_has "events from $(mb "$size") MB ($(mb "$raw") MB read)"
done

# no room for the copy
TMPDIR=$TMP/nonexistent run 1 "$TCONV" -q -w text -o "$TMP/x.txt" "$in/export.sqlite.gz" &&
    err_has "cannot create a temporary copy"
[ ! -e "$TMP/x.txt" ] || fail "a failed run left its output"

# ---- what is not an export ------------------------------------------------------------------
printf 'not a database\n' >"$TMP/text.sqlite"
run 1 "$TCONV" -q -r nsys -w text "$TMP/text.sqlite" && err_has "not a SQLite database"
: >"$TMP/empty.sqlite"
run 1 "$TCONV" -q -r nsys -w text "$TMP/empty.sqlite" && err_has "not a SQLite database"
sqlite3 "$TMP/other.sqlite" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
run 1 "$TCONV" -q -r nsys -w text "$TMP/other.sqlite" &&
    err_has "not an Nsight Systems export" && err_has "nsys export --type sqlite"
if [ -f "$rpd" ]; then
    gzip -dc "$rpd" >"$TMP/profile.rpd"
    run 1 "$TCONV" -q -r nsys -w text "$TMP/profile.rpd" && err_has "-r rocprof"
    # detected by content whatever its name
    cp "$TMP/profile.rpd" "$TMP/profile.sqlite"
    run 0 "$TCONV" -q -w text -o "$TMP/a.txt" "$TMP/profile.sqlite"
    run 0 "$TCONV" -q -r rocprof -w text -o "$TMP/b.txt" "$TMP/profile.rpd"
    cmp -s "$TMP/a.txt" "$TMP/b.txt" || fail "an rpd named .sqlite is not read as rpd"
fi
cp "$in/export.sqlite" "$TMP/export-without-extension"
run 0 "$TCONV" -q -w text -o "$TMP/noext.txt" "$TMP/export-without-extension"
cmp -s "$TMP/plain.txt" "$TMP/noext.txt" || fail "an export without extension is not read as nsys"

# ---- damaged exports -------------------------------------------------------------------------
head -c 200000 "$in/export.sqlite" >"$TMP/cut.sqlite"
run 1 "$TCONV" -q -w text "$TMP/cut.sqlite" && err_has "truncated: its header says 331776 bytes"
cp "$in/export.sqlite" "$TMP/damaged.sqlite"
printf '%*s' 40960 '' | tr ' ' '\377' |
    dd of="$TMP/damaged.sqlite" bs=4096 seek=40 conv=notrunc status=none
run 1 "$TCONV" -q -w text "$TMP/damaged.sqlite" && err_has "malformed"
cp "$in/export.sqlite" "$TMP/nostart.sqlite"
sqlite3 "$TMP/nostart.sqlite" "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER, end INTEGER, deviceId INTEGER,
    streamId INTEGER, demangledName INTEGER); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
    (1, 2, 0, 7, 1)"
run 1 "$TCONV" -q -w text "$TMP/nostart.sqlite" &&
    err_has "table CUPTI_ACTIVITY_KIND_KERNEL has no column start"
cp "$in/export.sqlite" "$TMP/nostrings.sqlite"
sqlite3 "$TMP/nostrings.sqlite" "DROP TABLE StringIds"
run 1 "$TCONV" -q -w text "$TMP/nostrings.sqlite" && err_has "no StringIds table"

# ---- what a tool removed, a bad row ----------------------------------------------------------
cp "$in/export.sqlite" "$TMP/pruned.sqlite"
sqlite3 "$TMP/pruned.sqlite" "DROP TABLE NVTX_EVENTS; DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET"
run 0 "$TCONV" -w text -o "$TMP/pruned.txt" "$TMP/pruned.sqlite" &&
    err_has "no NVTX, OS runtime calls, memset or CPU sampling in this export"
grep -q 'cat="kernel"' "$TMP/pruned.txt" || fail "the pruned export lost its kernels"
cp "$in/export.sqlite" "$TMP/badrow.sqlite"
sqlite3 "$TMP/badrow.sqlite" \
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)"
run 0 "$TCONV" -w text -o "$TMP/badrow.txt" "$TMP/badrow.sqlite" &&
    err_has "table CUPTI_ACTIVITY_KIND_KERNEL, row" && err_has "[nsys.bad-row]"
want=$(($(grep -c 'cat="kernel"' "$TMP/plain.txt") - 1))
got=$(grep -c 'cat="kernel"' "$TMP/badrow.txt" || true)
[ "$got" = "$want" ] || fail "$got kernels read around the bad row, expected $want"

finish
