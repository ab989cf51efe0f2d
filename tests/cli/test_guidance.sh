# What the command line tells a user at its edges: every output ending the loaded writers claim
# (in --help and when no writer is given), "did you mean" for a mistyped plugin name, an empty
# input said to be empty, an input of a format tconv knows but no loaded reader reads said to be
# what it is with what to do, and -v ending with what was written.
source "$(dirname "$0")/lib.sh"
IN=$DATA/core/nesting.tevt
export TCONV_PLUGIN_PATH=$TEST_PLUGINS

# --- the output endings are the loaded writers' own, each of them, in --help and the error
expect_rc 0 "$TCONV" --help
cp "$TMP/out" "$TMP/help"
expect_rc 2 "$TCONV" "$IN"
cp "$TMP/err" "$TMP/nowriter"
expect_grep "$TMP/nowriter" "no writer: give one with -w (writers: see --list), or an -o name ending in "
"$TCONV" --list | awk '$1 == "writer" {print $2}' >"$TMP/writers"
[ -s "$TMP/writers" ] || fail "--list shows no writer"
n=0
while read -r w; do
    "$TCONV" --help-plugin "$w" >"$TMP/plugin"
    exts=$(sed -n 's/^  picked by output names ending in: //p' "$TMP/plugin")
    [ -n "$exts" ] || continue
    IFS='|' read -ra list <<<"$exts"
    for e in "${list[@]}"; do
        grep -qE "(^| )\.$(printf '%s' "$e" | sed 's/\./\\./g')( |,|$)" "$TMP/help" ||
            fail "--help does not list .$e ($w)"
        grep -qF ".$e" "$TMP/nowriter" || fail "the no-writer error does not list .$e ($w)"
        n=$((n + 1))
    done
    grep -qE "\.${list[-1]//./\\.} -> $w(,|$)" "$TMP/help" || fail "--help does not say .${list[-1]} -> $w"
done <"$TMP/writers"
[ "$n" -gt 0 ] || fail "no writer claims an ending"
# The writers of this build that the old fixed list lacked.
for e in .svg .html .json .json.gz; do
    if "$TCONV" --list | grep -qE "writer +(flamegraph|html|chrome) "; then
        grep -qF -- "$e" "$TMP/help" || fail "--help lacks $e"
    fi
done

# --- did you mean: a name one or two edits away, an output ending named as a writer
expect_rc 2 "$TCONV" -w txet "$IN"
expect_grep "$TMP/err" "unknown writer 'txet'; available writers: "
expect_grep "$TMP/err" "  hint: did you mean -w text?"
expect_rc 2 "$TCONV" -w TEXT-STACK "$IN"
expect_grep "$TMP/err" "  hint: did you mean -w text-stacks?"
expect_rc 2 "$TCONV" -w txt "$IN"
expect_grep "$TMP/err" "  hint: did you mean -w text?"
expect_rc 2 "$TCONV" -r tvet -w text "$IN"
expect_grep "$TMP/err" "  hint: did you mean -r tevt?"
expect_rc 2 "$TCONV" -w nosuch "$IN"
! grep -q "did you mean" "$TMP/err" || fail "a guess for a name close to none: $(cat "$TMP/err")"
if "$TCONV" --list | grep -qE "writer +pprof "; then
    expect_rc 2 "$TCONV" -w ppof "$IN"
    expect_grep "$TMP/err" "  hint: did you mean -w pprof?"
fi

# --- an empty input is empty, not of an unknown format; in a folder it is skipped as such
: >"$TMP/empty.json"
expect_rc 1 "$TCONV" -w text "$TMP/empty.json"
expect_grep "$TMP/err" "tconv: error: '$TMP/empty.json' is empty: there is nothing to convert"
! grep -q "cannot tell the format" "$TMP/err" || fail "empty input: $(cat "$TMP/err")"
gzip -c <"$TMP/empty.json" >"$TMP/empty.gz"
expect_rc 1 "$TCONV" -w text "$TMP/empty.gz"
expect_grep "$TMP/err" "'$TMP/empty.gz' is empty once decompressed"
mkdir "$TMP/dir"
cp "$IN" "$TMP/dir/a.tevt"
: >"$TMP/dir/b.tevt"
expect_rc 0 "$TCONV" -w text "$TMP/dir"
expect_grep "$TMP/err" "'$TMP/dir/b.tevt' (in '$TMP/dir') is empty; skipped [core.skipped-file]"
# Named with -r, an empty input is the reader's to judge, as before.
expect_rc 0 "$TCONV" -r tevt -w text "$TMP/empty.json"

# --- formats tconv knows without a reader: what the input is, and what to do. A reader of the
# format, once loaded, reads it instead: then the message must not come.
has_reader() { "$TCONV" --list | grep -qiE "^    reader +($1) "; }
known() { # FILE READERS WHAT HINT: the message, unless a reader of the format is loaded
    local file=$1 readers=$2 what=$3 hint=$4
    set +e
    "$TCONV" -w text "$file" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    set -e
    if has_reader "$readers"; then
        ! grep -q "none of the loaded readers" "$TMP/err" || fail "$what: said unread with a reader loaded"
        # the reader read it, or said itself what is wrong with it
        [ $rc = 0 ] || grep -qE "tconv: error: .*('$file' looks like $what, but the [a-z0-9]+ reader does not recognise it|$file)" "$TMP/err" ||
            fail "$what: exit $rc with a reader loaded: $(cat "$TMP/err")"
        return
    fi
    [ $rc = 1 ] || fail "$what: exit $rc, expected 1: $(cat "$TMP/err")"
    expect_grep "$TMP/err" "tconv: error: '$file' is $what, which none of the loaded readers reads ("
    expect_grep "$TMP/err" "  hint: $hint"
    ! grep -q "name the format with -r" "$TMP/err" || fail "$what: sent after a reader"
}
# a pprof profile as tconv writes it (gzip, then Profile's fields), when the pprof writer exists
if "$TCONV" --list | grep -qE "writer +pprof "; then
    "$TCONV" -q -w pprof -o "$TMP/p.pb.gz" "$IN"
    known "$TMP/p.pb.gz" pprof "a pprof profile" "go tool pprof opens it (go tool pprof -http=: $TMP/p.pb.gz)"
fi
# Perfetto: TracePacket fields (timestamp 8, trusted_packet_sequence_id 10, track_event 11)
printf '\x0a\x0a\x40\x90\x4e\x50\x01\x5a\x03\x48\x01\x00\x0a\x05\x40\x91\x4e\x50\x01' \
    >"$TMP/t.pftrace"
known "$TMP/t.pftrace" "perfetto" "a Perfetto trace (protobuf)" \
    "Perfetto's traceconv turns it into Chrome JSON, which the chrome reader reads: traceconv json $TMP/t.pftrace $TMP/t.pftrace.json"
# SQLite databases: an Nsight Systems export, a rocpd database, by the tables on the first page
{ printf 'SQLite format 3\0'; head -c 84 /dev/zero; printf 'CREATE TABLE TARGET_INFO_GPU (id)'; } >"$TMP/r.sqlite"
known "$TMP/r.sqlite" "nsys|nsight" "an Nsight Systems SQLite export" "it needs a reader for Nsight Systems exports"
{ printf 'SQLite format 3\0'; head -c 84 /dev/zero; printf 'CREATE TABLE "rocpd_op" (id)'; } >"$TMP/r.rpd"
known "$TMP/r.rpd" "rocprof|rocpd" "a rocprof (rocpd) SQLite database" "it needs a reader for rocprof databases"
# JSON that is not a Chrome trace, which the chrome reader would read as an empty one
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[]}\n' \
    >"$TMP/s.speedscope.json"
known "$TMP/s.speedscope.json" speedscope "a speedscope profile (JSON)" "speedscope opens it"
printf '{"meta":{"interval":1,"startTime":0,"categories":[]},"threads":[]}\n' >"$TMP/f.json"
known "$TMP/f.json" "firefox|gecko" "a Firefox Profiler (Gecko) profile (JSON)" "profiler.firefox.com opens it"
printf '{"rocprofiler-sdk-tool":[{"metadata":{}}]}\n' >"$TMP/k.json"
known "$TMP/k.json" "rocprof|rocprofv3" "a rocprofv3 JSON output" "it needs a reader for rocprofv3 output"
# compressions other than gzip, and archives
printf '\xfd7zXZ\0\0\4\346\326\264\106\2\0\41\1' >"$TMP/t.json.xz"
known "$TMP/t.json.xz" "xz" "an xz-compressed file" "tconv undoes gzip only: xz -dc $TMP/t.json.xz | tconv ..."
printf 'PK\3\4\24\0\0\0\10\0' >"$TMP/t.zip"
known "$TMP/t.zip" "zip" "a zip archive" "unpack it and convert the files inside"
# a known format is named also when it is given as a reader's name
expect_rc 2 "$TCONV" -r zip -w text "$IN"
expect_grep "$TMP/err" "no loaded reader reads this format (a zip archive)"
# what no table knows still asks for -r
printf 'not a known format\n' >"$TMP/unknown.dat"
expect_rc 1 "$TCONV" -w text "$TMP/unknown.dat"
expect_grep "$TMP/err" "cannot tell the format of '$TMP/unknown.dat'"

# --- -v ends with what was written and its size; so does a run on a terminal; not -q, not a pipe
expect_rc 0 "$TCONV" -v -w text -o "$TMP/o.txt" "$IN"
size=$(wc -c <"$TMP/o.txt" | awk '{ if ($1 < 1000) print $1 " bytes"; else if ($1 < 1e6)
    printf "%.1f kB\n", $1 / 1e3; else printf "%.1f MB\n", $1 / 1e6 }')
[ "$(tail -n 1 "$TMP/err")" = "tconv: wrote $TMP/o.txt ($size)" ] ||
    fail "-v does not end with what it wrote: $(tail -n 1 "$TMP/err"), size $size"
expect_rc 0 "$TCONV" -w text -o "$TMP/o.txt" "$IN"
! grep -q "wrote" "$TMP/err" || fail "'wrote' said without -v to a pipe"
expect_rc 0 "$TCONV" -v -q -w text -o "$TMP/o.txt" "$IN"
! grep -q "wrote" "$TMP/err" || fail "'wrote' said with -q"
expect_rc 0 "$TCONV" -v -w text "$IN"
! grep -q "wrote" "$TMP/err" || fail "'wrote' said of standard output"
if "$TCONV" --list | grep -qE "writer +otf2 "; then
    expect_rc 0 "$TCONV" -v -w otf2 -o "$TMP/arch" "$IN"
    files=$(find "$TMP/arch" -type f | wc -l)
    tail -n 1 "$TMP/err" | grep -qE "^tconv: wrote $TMP/arch \($files files, [0-9.]+ (bytes|kB|MB)\)$" ||
        fail "a directory: $(tail -n 1 "$TMP/err")"
fi
if command -v script >/dev/null; then
    script -qc "'$TCONV' -w text -o '$TMP/tty.txt' '$IN'" /dev/null >"$TMP/tty" </dev/null
    grep -qF "tconv: wrote $TMP/tty.txt (" "$TMP/tty" || fail "a terminal is not told: $(cat "$TMP/tty")"
fi
echo "guidance: ok"
