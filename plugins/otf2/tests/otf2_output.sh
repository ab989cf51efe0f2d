#!/usr/bin/env bash
# The archive directory: an existing archive is refused without --force and left as it was;
# --force replaces it, but never a directory that holds anything else; a failed conversion
# leaves nothing behind (neither the directory nor a temporary sibling). Read back, the whole
# archive counts as the input's bytes.
source "$(dirname "$0")/otf2_lib.sh"

have_reader tevt || { echo "no tevt reader (tests/plugins not built): skipping" >&2; exit 77; }

input=$DATA/tevt/repairs.tevt
mkdir -p "$TMP/w"
cd "$TMP/w"

# An empty directory is fine.
mkdir empty
convert empty -r tevt "$input"
[ -f empty/traces.otf2 ] || fail "no archive written into an empty directory"

# A directory holding anything but an archive is refused, with or without --force, untouched:
# --force replaces an earlier archive, not whatever has the name.
mkdir full
echo keep >full/notes.txt
for force in "" --force; do
    set +e
    "$TCONV" -w otf2 -o full $force -r tevt "$input" 2>err
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "writing over a foreign directory ($force) exited $rc, expected 2"
    grep -q "holds 'full/notes.txt', which is not part of an OTF2 archive" err ||
        { cat err >&2; fail "the refusal does not name the foreign file"; }
    [ "$(ls full)" = notes.txt ] || fail "the refused directory was changed: $(ls full)"
done

# An existing archive is refused without --force, and --force replaces it.
set +e
"$TCONV" -w otf2 -o empty -r tevt "$input" 2>err
rc=$?
set -e
[ "$rc" = 1 ] || fail "writing over an archive exited $rc, expected 1"
grep -q "use --force" err || { cat err >&2; fail "the refusal does not mention --force"; }
touch -d 2001-01-01 empty/traces.otf2
"$TCONV" -w otf2 -o empty --force -r tevt "$input" 2>err
[ "$(stat -c %Y empty/traces.otf2)" != "$(date -d 2001-01-01 +%s)" ] ||
    fail "--force did not replace the archive"
readable "$TMP/w/empty"
[ -z "$(ls -A | grep '\.tconv-')" ] || fail "--force left a temporary: $(ls -A)"

# A reader failure in the middle: nothing left, not even a temporary directory.
printf '#tevt\nX 1 1 10 5 ok\nZ is not a tevt line\n' >bad.tevt
before=$(ls -A)
set +e
"$TCONV" -w otf2 -o failed -r tevt bad.tevt 2>err
rc=$?
set -e
[ "$rc" = 1 ] || fail "a failed conversion exited $rc, expected 1"
[ ! -e failed ] || fail "a failed conversion left the directory 'failed'"
[ "$(ls -A)" = "$before" ] || fail "a failed conversion left: $(ls -A)"

# An input with nothing for a location: refused (OTF2 readers reject an archive without
# locations), nothing left.
printf '#tevt\nM 1 0 process_name idle\n' >empty.tevt
set +e
"$TCONV" -w otf2 -o nothing -r tevt empty.tevt 2>err
rc=$?
set -e
[ "$rc" = 1 ] || fail "an input without events exited $rc, expected 1"
grep -q "nothing an OTF2 location can show" err || { cat err >&2; fail "no reason given"; }
[ ! -e nothing ] || fail "an empty conversion left the directory 'nothing'"

# The otf2 reader reads the archive's files by name: -v counts them all as the input's bytes,
# not only the anchor file it is given.
if have_reader otf2; then
    awk 'BEGIN { print "#tevt"; for (i = 0; i < 40000; i++)
                     printf "X 1 %d %d 10 op%d\n", i % 4, i * 20, i % 50 }' >many.tevt
    convert big -r tevt many.tevt
    bytes=$(find big -type f -printf '%s\n' | awk '{ n += $1 } END { printf "%.1f", n / 1e6 }')
    "$TCONV" -v -w summary -o big.txt big/traces.otf2 2>err || { cat err >&2; fail "reading back"; }
    grep -q "events from $bytes MB ($bytes MB read)" err ||
        fail "-v does not count the archive's $bytes MB: $(grep 'events from' err)"
fi
echo ok
