#!/usr/bin/env bash
# The archive directory: an existing non-empty one is refused without --force and left as it
# was; --force replaces it; a failed conversion leaves nothing behind (neither the directory
# nor a temporary sibling).
source "$(dirname "$0")/otf2_lib.sh"

have_reader tevt || { echo "no tevt reader (tests/plugins not built): skipping" >&2; exit 77; }

input=$DATA/tevt/repairs.tevt
mkdir -p "$TMP/w"
cd "$TMP/w"

# An empty directory is fine.
mkdir empty
convert empty -r tevt "$input"
[ -f empty/traces.otf2 ] || fail "no archive written into an empty directory"

# A non-empty one is refused, untouched.
mkdir full
echo keep >full/notes.txt
set +e
"$TCONV" -w otf2 -o full -r tevt "$input" 2>err
rc=$?
set -e
[ "$rc" = 1 ] || fail "writing over a non-empty directory exited $rc, expected 1"
grep -q "use --force" err || { cat err >&2; fail "the refusal does not mention --force"; }
[ "$(ls full)" = notes.txt ] || fail "the refused directory was changed: $(ls full)"

# An existing archive too, and --force replaces it.
set +e
"$TCONV" -w otf2 -o empty -r tevt "$input" 2>err
rc=$?
set -e
[ "$rc" = 1 ] || fail "writing over an archive exited $rc, expected 1"
"$TCONV" -w otf2 -o full --force -r tevt "$input" 2>err
[ -f full/traces.otf2 ] && [ ! -e full/notes.txt ] || fail "--force did not replace the directory"
readable "$TMP/w/full"

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
echo ok
