/* The structural index of a JSON text, for cutting one large input into pieces that parse on
 * their own: where, outside strings, the separators between the elements of a container of a
 * given depth are (the ',' between two events of a trace's event array). It reads the bytes in
 * 64-byte blocks as simdjson's first stage does: bit masks of quotes, backslashes and structural
 * characters, the quotes that a backslash escapes taken out, then the bytes inside strings as
 * the prefix XOR of the remaining quotes (a carry-less multiply by all ones where the CPU has
 * one). Only the separators it reports are then looked at one by one, with the nesting depth.
 *
 * It does not check the grammar: on bytes that are not JSON it still answers, and what it
 * answers is for the lexer to confirm. On valid JSON its answer is exact, whatever the block
 * and buffer boundaries (tests/unit/test_json_index.c compares it with a byte-by-byte reading).
 * The classification has a portable, an SSE2 and an AVX2 path, as the lexer has
 * (tconv_json_scan_use picks one for tests). */
#include <string.h>

#include "util.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
#define JIX_X86 1
#include <immintrin.h>
#define JIX_TARGET_AVX2 __attribute__((target("avx2,pclmul")))
#else
#define JIX_X86 0
#endif

/* The masks of one block. */
typedef struct jix_block {
    uint64_t quote, bslash, open, close, comma;
} jix_block;

static void jix_classify_bytes(const unsigned char *p, size_t n, jix_block *b)
{
    memset(b, 0, sizeof(*b));
    for (size_t i = 0; i < n; i++) {
        uint64_t bit = (uint64_t)1 << i;
        switch (p[i]) {
        case '"':
            b->quote |= bit;
            break;
        case '\\':
            b->bslash |= bit;
            break;
        case '{':
        case '[':
            b->open |= bit;
            break;
        case '}':
        case ']':
            b->close |= bit;
            break;
        case ',':
            b->comma |= bit;
            break;
        default:
            break;
        }
    }
}

#if JIX_X86
static void jix_classify_sse2(const unsigned char *p, jix_block *b)
{
    memset(b, 0, sizeof(*b));
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        /* '{' '}' and '[' ']' differ by 2 only: OR 0x20 folds '[' onto '{' and ']' onto '}' */
        __m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
        int s = 16 * k;
        b->quote |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')))
                    << s;
        b->bslash |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')))
                     << s;
        b->comma |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')))
                    << s;
        b->open |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(f, _mm_set1_epi8('{')))
                   << s;
        b->close |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(f, _mm_set1_epi8('}')))
                    << s;
    }
}

static JIX_TARGET_AVX2 void jix_classify_avx2(const unsigned char *p, jix_block *b)
{
    memset(b, 0, sizeof(*b));
    for (int k = 0; k < 2; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * k));
        __m256i f = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        int s = 32 * k;
        b->quote |=
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')))
            << s;
        b->bslash |=
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')))
            << s;
        b->comma |=
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(',')))
            << s;
        b->open |=
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(f, _mm256_set1_epi8('{')))
            << s;
        b->close |=
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(f, _mm256_set1_epi8('}')))
            << s;
    }
}

static JIX_TARGET_AVX2 uint64_t jix_prefix_xor_clmul(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}
#endif

/* Bit i: the XOR of bits 0 .. i of x. */
static uint64_t jix_prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The bytes that an odd run of backslashes escapes (simdjson's method): a run's end is found by
 * adding its start, from even and from odd starts separately; *odd carries a run that goes on
 * from the block before. */
static uint64_t jix_escaped(uint64_t bs, uint64_t *odd)
{
    const uint64_t even_bits = 0x5555555555555555ull, odd_bits = ~even_bits;
    uint64_t start_edges = bs & ~(bs << 1);
    uint64_t even_start_mask = even_bits ^ *odd;
    uint64_t even_starts = start_edges & even_start_mask;
    uint64_t odd_starts = start_edges & ~even_start_mask;
    uint64_t even_carries = bs + even_starts;
    uint64_t odd_carries = bs + odd_starts;
    int ends_odd = odd_carries < bs; /* the add overflowed: a run reaches the block's end */
    odd_carries |= *odd;
    *odd = (uint64_t)ends_odd;
    uint64_t even_carry_ends = even_carries & ~bs;
    uint64_t odd_carry_ends = odd_carries & ~bs;
    return (even_carry_ends & odd_bits) | (odd_carry_ends & even_bits);
}

void tconv_json_index_init(tconv_json_index *ix)
{
    memset(ix, 0, sizeof(*ix));
    ix->path = tconv_json_scan_current();
    ix->closed = UINT64_MAX;
}

/* The bytes inside strings of the block b, given which quotes an odd backslash run escapes. */
static uint64_t jix_inside(tconv_json_index *ix, const jix_block *b, size_t n, int clmul)
{
    /* A quote escaped by the block before's last backslashes is at bit 0. */
    uint64_t esc = jix_escaped(b->bslash, &ix->escaped);
    /* A short block (the end of buf): whether the next byte is escaped is bit n. */
    if (n < 64) ix->escaped = (esc >> n) & 1;
    uint64_t quote = b->quote & ~esc;
    uint64_t inside;
#if JIX_X86
    if (clmul)
        inside = jix_prefix_xor_clmul(quote);
    else
#endif
        inside = jix_prefix_xor(quote);
    (void)clmul;
    inside ^= ix->in_string;
    ix->in_string = (uint64_t)((int64_t)inside >> 63);
    return inside;
}

static void jix_classify(const tconv_json_index *ix, const unsigned char *p, size_t n, jix_block *b)
{
#if JIX_X86
    if (n == 64 && ix->path == TCONV_JSON_SCAN_AVX2)
        jix_classify_avx2(p, b);
    else if (n == 64 && ix->path == TCONV_JSON_SCAN_SSE2)
        jix_classify_sse2(p, b);
    else
#endif
        jix_classify_bytes(p, n, b);
}

static int jix_clmul(const tconv_json_index *ix)
{
#if JIX_X86
    return ix->path == TCONV_JSON_SCAN_AVX2 && __builtin_cpu_supports("pclmul");
#else
    (void)ix;
    return 0;
#endif
}

int tconv_json_index_find(tconv_json_index *ix, const unsigned char *buf, size_t len, int64_t depth,
                          uint64_t from, uint64_t *at)
{
    if (ix->closed != UINT64_MAX) return 0;
    int clmul = jix_clmul(ix);
    for (size_t pos = 0; pos < len; pos += 64) {
        size_t n = len - pos < 64 ? len - pos : 64;
        uint64_t base = ix->offset + pos;
        jix_block b;
        jix_classify(ix, buf + pos, n, &b);
        uint64_t inside = jix_inside(ix, &b, n, clmul);
        uint64_t open = b.open & ~inside, close = b.close & ~inside;
        /* Before from, only the depth matters: counted, unless a close might end the array. */
        int64_t closes = __builtin_popcountll(close);
        if (base + n <= from && !(ix->stop_at_close && ix->depth - closes < depth)) {
            ix->depth += __builtin_popcountll(open) - closes;
            continue;
        }
        uint64_t marks = open | close | (b.comma & ~inside);
        for (; marks; marks &= marks - 1) {
            uint64_t bit = marks & -marks;
            uint64_t off = base + (uint64_t)__builtin_ctzll(bit);
            if (open & bit) {
                ix->depth++;
            } else if (close & bit) {
                if (ix->stop_at_close && ix->depth == depth) {
                    ix->closed = off;
                    ix->offset += len;
                    return 0;
                }
                ix->depth--;
            } else if (ix->depth == depth && off >= from) {
                /* Indexed up to this ',', outside any string. */
                *at = off;
                ix->offset = off + 1;
                ix->in_string = 0;
                ix->escaped = 0;
                return 1;
            }
        }
    }
    ix->offset += len;
    return 0;
}

size_t tconv_json_index_commas(tconv_json_index *ix, const unsigned char *buf, size_t len,
                               int64_t depth, uint64_t *out)
{
    size_t nout = 0;
    if (ix->closed != UINT64_MAX) return 0;
    int clmul = jix_clmul(ix);
    for (size_t at = 0; at < len; at += 64) {
        size_t n = len - at < 64 ? len - at : 64;
        jix_block b;
        jix_classify(ix, buf + at, n, &b);
        uint64_t inside = jix_inside(ix, &b, n, clmul);
        uint64_t marks = (b.open | b.close | b.comma) & ~inside;
        for (; marks; marks &= marks - 1) {
            uint64_t bit = marks & -marks;
            if (b.open & bit) {
                ix->depth++;
            } else if (b.close & bit) {
                if (ix->stop_at_close && ix->depth == depth) {
                    ix->closed = ix->offset + at + (uint64_t)__builtin_ctzll(bit);
                    ix->offset += len;
                    return nout;
                }
                ix->depth--;
            } else if (ix->depth == depth)
                out[nout++] = ix->offset + at + (uint64_t)__builtin_ctzll(bit);
        }
    }
    ix->offset += len;
    return nout;
}
