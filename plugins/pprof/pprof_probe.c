/* Is it a pprof profile? A profile is a bare protobuf message with no magic number, so the probe
 * walks the fields of the first bytes and asks that each be a field of Profile with its wire
 * type, and that the sample types parse as ValueType. Text fails at once (a '{', a newline or
 * most letters are wire types profile.proto never uses); other protobuf formats fail on the
 * field numbers or on the submessages: a Perfetto trace, for one, is field 1 over and over,
 * whose bodies are TracePackets, not ValueTypes. The legacy profiles pprof also reads
 * (gperftools' binary CPU profile, the text heap and contention profiles) score too, so that
 * the reader can say how to convert them instead of tconv saying it cannot tell the format. */
#include <string.h>

#include "pprof_reader.h"
#include "pprof_rwire.h"

/* Word w (0-based) of a header of words of `size` bytes, in either byte order. */
static uint64_t pprof_probe_word(const unsigned char *buf, size_t size, size_t w, int big)
{
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) {
        size_t b = w * size + (big ? i : size - 1 - i);
        v = v << 8 | buf[b];
    }
    return v;
}

const char *pprof_legacy_kind(const unsigned char *buf, size_t len)
{
    /* gperftools (and Go before 1.9): header words 0, 3 (header size), 0 (version), the
     * sampling period in µs, 0 (padding), in the machine's word size and byte order. */
    for (size_t size = 4; size <= 8; size += 4)
        for (int big = 0; big <= 1; big++)
            if (len >= 5 * size && pprof_probe_word(buf, size, 0, big) == 0 &&
                pprof_probe_word(buf, size, 1, big) == 3 &&
                pprof_probe_word(buf, size, 2, big) == 0 &&
                pprof_probe_word(buf, size, 3, big) != 0)
                return "a legacy binary CPU profile (gperftools, or Go before 1.9)";
    static const char *const text[] = {"heap profile:",     "heap_v2/",  "--- heapz",
                                       "--- contention",    "--- mutex", "--- threadz",
                                       "goroutine profile:"};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        size_t n = strlen(text[i]);
        if (len >= n && memcmp(buf, text[i], n) == 0)
            return "a legacy text profile (gperftools or Go heap, contention or thread profile)";
    }
    return NULL;
}

int pprof_probe(const unsigned char *buf, size_t len)
{
    if (pprof_legacy_kind(buf, len)) return 60;
    size_t pos = 0;
    pprof_wire_field f;
    const char *what;
    unsigned fields = 0, others = 0;
    for (;;) {
        pprof_wire_step s = pprof_wire_next(buf, len, &pos, &f, &what);
        if (s == PPROF_WIRE_BAD) return 0;
        if (s != PPROF_WIRE_FIELD) {
            /* CUT: the peek ends inside a field, as it does in any profile over 4 KiB */
            if (s == PPROF_WIRE_CUT && pos == 0) return 0;
            break;
        }
        int type = pprof_wire_profile_type(f.number);
        if (type < 0 || (f.type != (uint32_t)type && !(f.number == 13 && f.type == 0))) return 0;
        if (f.number == 1 && !pprof_wire_only_varints(f.body, f.len, 2)) return 0;
        if (f.number == 11 && !pprof_wire_only_varints(f.body, f.len, 2)) return 0;
        fields++;
        others += f.number != 1;
    }
    if (!fields) return 0;
    /* One field proves little; a run of them, and not only sample types, a great deal. */
    if (fields >= 3 && others) return 90;
    if (others && pos == len) return 70; /* a tiny but complete profile */
    return 20;
}
