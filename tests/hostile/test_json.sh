# Hostile JSON for the chrome and tfmem readers: deep nesting, a 100 MB string, bytes that are
# not UTF-8, NUL bytes, an empty file. Each has one outcome: read (exit 0, maybe with a counted
# warning) or refused with a positioned error (exit 1); never a crash, never unbounded memory.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
deep=100000

# 100 000 levels where an event belongs: one counted bad event, memory stays small.
python3 -c "import sys; n=$deep; sys.stdout.write('{\"traceEvents\":[' + '['*n + ']'*n + ']}')" >deep-events.json
expect 0 64 10 "$TCONV" -r chrome -w text deep-events.json
expect_err "deep-events.json:17: event skipped: expected an event object [chrome.bad-event]"
# ... inside an event's args: kept as one JSON-text arg.
python3 -c "import sys; n=$deep; sys.stdout.write('[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"name\":\"a\",\"args\":{\"k\":' + '['*n + ']'*n + '}}]')" >deep-args.json
expect 0 64 10 "$TCONV" -r chrome -w text-ordered deep-args.json
expect_out 'args={"k":json"[[[['
# ... never closed: the trace is cut off mid-event, a positioned error.
python3 -c "import sys; n=$deep; sys.stdout.write('[{\"ph\":\"X\",\"args\":' + '{\"a\":'*n)" >deep-open.json
expect 1 64 10 "$TCONV" -r chrome -w text deep-open.json
expect_err "tconv: error: deep-open.json:500018: unexpected end of input inside the event at byte 1"
# jansson (tfmem) stops at its depth limit with a position.
python3 -c "import sys; n=$deep; sys.stdout.write('{\"memoryProfilePerAllocator\":{\"a\":' + '['*n + ']'*n + '}}')" >deep.memory_profile.json
expect 1 64 10 "$TCONV" -r tfmem -w text deep.memory_profile.json
expect_err "deep.memory_profile.json:2081: invalid JSON: maximum parsing depth reached"

# A 100 MB event name, arg value and top-level key: read in linear time, memory a few times
# the string (the reader's copy, the string table, the writer's line).
big=$((100 << 20))
for what in name arg key; do
    python3 -c "
import sys
s = 'x' * $big
w = sys.stdout.write
if '$what' == 'name': w('[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"name\":\"' + s + '\"}]')
elif '$what' == 'arg': w('[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"name\":\"n\",\"args\":{\"a\":\"' + s + '\"}}]')
else: w('{\"' + s + '\":1,\"traceEvents\":[]}')
" >big-$what.json
    expect 0 700 20 "$TCONV" -r chrome -w text -o big.txt big-$what.json
    [ "$(stat -c %s big.txt)" -gt $big ] || fail "the 100 MB $what did not reach the output"
    rm -f big-$what.json big.txt
done

# Bytes that are not UTF-8: the chrome reader repairs them (U+FFFD) with a counted warning;
# jansson refuses them with a position.
printf '[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a\xff\xfeb\xc3"}]' >bad-utf8.json
expect 0 64 10 "$TCONV" -r chrome -w text bad-utf8.json
expect_out 'name="a\xef\xbf\xbd\xef\xbf\xbdb\xef\xbf\xbd"'
expect_err "[chrome.invalid-utf8]"
printf '{"memoryProfilePerAllocator":{"a\xff":{}}}' >bad-utf8.memory_profile.json
expect 1 64 10 "$TCONV" -r tfmem -w text bad-utf8.memory_profile.json
expect_err "bad-utf8.memory_profile.json:32: invalid JSON: unable to decode byte 0xff"

# Surrogate escapes without their other half, high or low, become U+FFFD alike (a high one was
# '?', a low one its own invalid bytes, then repaired with a warning).
printf '[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"h\\ud83dx","cat":"l\\udc00x"}]' >surrogates.json
expect 0 64 10 "$TCONV" -r chrome -w text surrogates.json
expect_out 'name="h\xef\xbf\xbdx" cat="l\xef\xbf\xbdx"'
# A NUL byte inside a string is not JSON: a positioned error from both readers.
printf '[{"ph":"X","ts":1,"dur":1,"name":"a\0b"}]' >nul.json
expect 1 64 10 "$TCONV" -r chrome -w text nul.json
expect_err "tconv: error: nul.json:32: invalid JSON: invalid character inside string"
printf '{"memoryProfilePerAllocator":{"a\0":{}}}' >nul.memory_profile.json
expect 1 64 10 "$TCONV" -r tfmem -w text nul.memory_profile.json
expect_err "nul.memory_profile.json:32: invalid JSON: control character 0x0"
# NULs instead of a document: refused at byte 0.
head -c 100000 /dev/zero >zeros.json
expect 1 64 10 "$TCONV" -r chrome -w text zeros.json
expect_err "zeros.json:0: invalid JSON"

# An empty file: an empty trace with a counted warning (as trace viewers read it); tfmem needs
# its object. Without -r nothing recognises it.
: >empty.json
expect 0 64 10 "$TCONV" -r chrome -w text empty.json
expect_err "empty.json: no JSON value in the input: read as an empty trace [chrome.empty]"
expect 1 64 10 "$TCONV" -r tfmem -w text empty.json
expect_err "empty.json:0: invalid JSON"
expect 1 64 10 "$TCONV" -w text empty.json
expect_err "tconv: error: 'empty.json' is empty: there is nothing to convert"

# An event with 100 000 args (1.7 MB): read in linear time (each key was compared with every
# key before it: 5 * 10^9 comparisons); the otf2 writer writes the first 4096 as attributes,
# with a counted warning, where libotf2 failed the run ("Chunk handling failed"). A name with
# "\u0000" (a NUL byte, which ends an OTF2 string) is written with U+FFFD, and counted.
python3 -c "
import sys
args = ','.join('\"k%d\":%d' % (i, i) for i in range(100000))
sys.stdout.write('[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5,\"name\":\"big\",'
                 '\"args\":{' + args + '}},'
                 '{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"name\":\"n\\\\u0000ul\"}]')
" >many-args.json
expect 0 128 5 "$TCONV" -r chrome -w text many-args.json
expect_out '"k99999":99999}'
if command -v otf2-print >/dev/null; then
    expect 0 128 5 "$TCONV" -r chrome -w otf2 -W args=true -o many-args.otf2 many-args.json
    expect_err "an event has 100000 args; an OTF2 event holds at most 4096 attributes, so the first 4096 are written [otf2.args-limit]"
    expect_err "[otf2.nul-in-string]"
    otf2-print -G many-args.otf2/traces.otf2 >"$TMP/out"
    expect_out $'"n\xef\xbf\xbdul"'
    # Thread and process names become location and group names, built as C strings.
    printf '%s' '[{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"wor\u0000ker"}},
{"ph":"M","name":"process_name","pid":1,"args":{"name":"pro\u0000c"}},
{"ph":"X","name":"f","pid":1,"tid":2,"ts":1,"dur":5}]' >nul-names.json
    expect 0 128 5 "$TCONV" -r chrome -w otf2 -o nul-names.otf2 nul-names.json
    expect_err "[otf2.nul-in-string"
    otf2-print -G nul-names.otf2/traces.otf2 >"$TMP/out"
    expect_out $'Name: "wor\xef\xbf\xbdker"'
    expect_out $'Name: "pro\xef\xbf\xbdc"'
fi
done_checks
