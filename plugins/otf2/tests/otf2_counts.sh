#!/usr/bin/env bash
# Hand-written event streams (the core's test reader "tevt"): the otf2-check report (groups,
# locations, exact definition and event counts, every invariant holding) and the events as
# otf2-print shows them must equal golden/<case>.tevt.txt.
#   data/tevt/rank_a.tevt + rank_b.tevt   two ranks whose pids collide, merged into one archive
#   data/tevt/rank_huge.tevt + rank_b.tevt  an input whose rank is past int64: shown by position
#   data/tevt/repairs.tevt                repairs of the ordering stage, lone flows, a step chain
#   data/tevt/args.tevt                   args as attributes and marker text (-W args=true)
source "$(dirname "$0")/otf2_lib.sh"

have_reader tevt || { echo "no tevt reader (tests/plugins not built): skipping" >&2; exit 77; }

run_case() { # run_case NAME INPUT...
    local name=$1
    shift
    local opts=()
    [ -f "$DATA/tevt/$name.opts" ] && read -r -a opts <"$DATA/tevt/$name.opts"
    local out=$TMP/$name
    convert "$out" -r tevt "${opts[@]}" "$@"
    readable "$out"
    {
        echo "### otf2-check"
        cat "$out.check"
        echo "### otf2-print"
        cat "$out.print"
        echo "### otf2-marker"
        otf2-marker "$out/traces.otf2" 2>&1 || true
        echo
        echo "### tconv stderr"
        cat "$out.stderr"
    } >"$TMP/$name.txt"
    golden "$name.tevt.txt" "$TMP/$name.txt"
}

run_case ranks "$DATA/tevt/rank_a.tevt" "$DATA/tevt/rank_b.tevt"
# The rank from distributedInfo names the groups, and each input keeps its own pid 100 and 0.
check_value "$TMP/ranks" location_groups 4
check_value "$TMP/ranks" system_tree_nodes 3
grep -q '^group 0 PROCESS node 2 creator - "rank 1: trainer (CPU)"$' "$TMP/ranks.check" ||
    fail "rank 1's process is not the first group, on node-b"
grep -q '^group 3 ACCELERATOR node 1 creator 2 "rank 3: trainer (GPU 0)"$' "$TMP/ranks.check" ||
    fail "rank 3's GPU is not an accelerator group created by rank 3's process"

# The rank is the core's (tconv_ctx_rank), as pprof and --rank see it: a rank past int64 is no
# rank, so the inputs are shown by position, never as a clamped 9223372036854775807.
"$TCONV" -w otf2 -o "$TMP/huge" "$DATA/tevt/rank_huge.tevt" "$DATA/tevt/rank_b.tevt" \
    2>"$TMP/huge.stderr" || { cat "$TMP/huge.stderr" >&2; fail "rank_huge: tconv failed"; }
readable "$TMP/huge"
grep -q '^group 0 PROCESS node 1 creator - "rank 0: trainer (CPU)"$' "$TMP/huge.check" ||
    fail "the input without a usable rank is not rank 0 by position"
grep -q '^group 2 PROCESS node 2 creator - "rank 1: trainer (CPU)"$' "$TMP/huge.check" ||
    fail "the second input is not rank 1 by position"
! grep -q 9223372036854775807 "$TMP/huge.check" || fail "a clamped rank was shown"

run_case repairs "$DATA/tevt/repairs.tevt"
check_value "$TMP/repairs" parameter_events 6
check_value "$TMP/repairs" mpi_send 0
grep -q 'order.unclosed-span' "$TMP/repairs.stderr" || fail "the unclosed span was not reported"
# As messages: three links; the two lone flow events have none and are counted.
convert "$TMP/repairs-msg" -r tevt -W flows=messages "$DATA/tevt/repairs.tevt"
readable "$TMP/repairs-msg"
check_value "$TMP/repairs-msg" mpi_send 3
check_value "$TMP/repairs-msg" mpi_recv 3
grep -q 'otf2.unmatched-flow, 2 times' "$TMP/repairs-msg.stderr" || fail "lone flows not counted"

run_case args "$DATA/tevt/args.tevt"
# k, who, extra, correlation; and the flow's name and binding (to the next slice; no category).
check_value "$TMP/args" attributes 6
