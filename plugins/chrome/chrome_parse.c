/* The JSON walk: the tokens of the core's JSON lexer drive a small stack of structural levels. Each
 * event object is collected into one record (field texts in an arena) and mapped when its '}'
 * arrives, so nothing but the current event is held. Nested values inside args and unknown
 * top-level members are re-serialised as compact JSON text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_reader.h"

/* Pieces fed to the lexer in a row without the fast path taking an event, before the rest of
 * the chunk goes to the lexer whole: a trace the fast path does not fit costs a few more feeds
 * per chunk, not one per '}'. After a chunk where it took nothing, the next chunk has half as
 * many tries (down to CHROME_FAST_TRIES_MIN), so that on such a trace it costs next to nothing. */
#define CHROME_FAST_TRIES 32
#define CHROME_FAST_TRIES_MIN 2

int chrome_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int chrome_oom(chrome_reader *r)
{
    tconv_error_set(r->ctx, "chrome: out of memory");
    r->failed = 1;
    return 0;
}

static uint64_t chrome_pos(const chrome_reader *r)
{
    return r->tok_end;
}

/* ---- levels ------------------------------------------------------------------------------ */

static chrome_level chrome_lv_top(const chrome_reader *r)
{
    return (chrome_level)r->lv[r->nlv - 1];
}

static int chrome_lv_push(chrome_reader *r, chrome_level l)
{
    if (chrome_reserve((void **)&r->lv, &r->lv_cap, r->nlv + 1, 1)) return chrome_oom(r);
    r->lv[r->nlv++] = (uint8_t)l;
    return 1;
}

static int chrome_copy_key(chrome_reader *r, const unsigned char *s, size_t n)
{
    if (chrome_reserve((void **)&r->topkey, &r->topkey_cap, n + 1, 1)) return chrome_oom(r);
    memcpy(r->topkey, s, n);
    r->topkey[n] = '\0';
    r->topkey_len = n;
    return 1;
}

static int chrome_topkey_is(const chrome_reader *r, const char *lit)
{
    size_t n = strlen(lit);
    return r->topkey_len == n && memcmp(r->topkey, lit, n) == 0;
}

/* ---- records ----------------------------------------------------------------------------- */

static int chrome_text(chrome_reader *r, const unsigned char *s, size_t n, int is_string,
                       chrome_span *out)
{
    if (chrome_record_text(&r->rec, (const char *)s, n, is_string, &r->bad_utf8, out))
        return chrome_oom(r);
    return 1;
}

static int chrome_record_begin(chrome_reader *r, chrome_src src)
{
    chrome_record_reset(&r->rec);
    r->rec.offset = chrome_pos(r) - 1;
    r->rec.index = r->nrecords++;
    r->rec_src = src;
    r->field = CHROME_F_UNKNOWN;
    return chrome_lv_push(r, CHROME_LV_RECORD);
}

/* text: the '}' in the bytes being parsed. */
static int chrome_record_end(chrome_reader *r, int empty, const char *text)
{
    r->nlv--;
    tconv_status st;
    if (r->rec_src == CHROME_SRC_EVENT) {
        r->sync_ptr = (const unsigned char *)text + 1;
        r->sync_off = r->tok_end;
    }
    /* TensorFlow's trace writer closes every event array with a "{}" after its last event. */
    if (empty && r->rec_src == CHROME_SRC_EVENT) return 1;
    if (r->rec_src == CHROME_SRC_FRAME) {
        if (chrome_frames_add(r, r->topkey, r->topkey_len, &r->rec)) return chrome_oom(r);
        return 1;
    }
    st = chrome_emit_record(r, &r->rec, r->rec_src);
    if (st == TCONV_FATAL) {
        r->failed = 1;
        return 0;
    }
    return 1;
}

/* A value that is not an object where an event is expected. */
static int chrome_not_an_event(chrome_reader *r)
{
    chrome_record_reset(&r->rec);
    r->rec.offset = r->last_tok_end;
    r->rec.index = r->nrecords++;
    if (chrome_emit_bad(r, &r->rec, "expected an event object") == TCONV_FATAL) {
        r->failed = 1;
        return 0;
    }
    return 1;
}

/* ---- capture of nested values ------------------------------------------------------------ */

static const unsigned char *chrome_repaired(chrome_reader *r, const unsigned char *s, size_t *n)
{
    size_t ok = tconv_utf8_valid_prefix(s, *n);
    if (ok == *n) return s;
    if (chrome_reserve((void **)&r->scratch, &r->scratch_cap, 3 * *n + 1, 1)) return NULL;
    memcpy(r->scratch, s, ok);
    *n = ok + tconv_utf8_repair(r->scratch + ok, s + ok, *n - ok);
    r->bad_utf8 = 1;
    return (const unsigned char *)r->scratch;
}

/* When no one reads args, an event whose phase is already known and whose mapping looks at its
 * args only to pass them on can skip them as they are read. Metadata (its text), counters (their
 * values) and instants (PyTorch's [memory] ones) read theirs. */
static int chrome_args_unread(const chrome_reader *r)
{
    const chrome_val *ph = &r->rec.f[CHROME_F_PH];
    if (r->args_wanted || r->rec_src != CHROME_SRC_EVENT || ph->type != CHROME_V_STRING ||
        ph->s.len != 1)
        return 0;
    char c = chrome_record_str(&r->rec, ph->s)[0];
    return c != 'M' && c != 'C' && c != 'i' && c != 'I';
}

static int chrome_capture_begin(chrome_reader *r, chrome_cap target, char kind)
{
    r->cap_depth = 1;
    r->cap_target = target;
    if (target == CHROME_CAP_SKIP) return 1;
    chrome_jsonbuf_reset(&r->json);
    chrome_jsonbuf_open(&r->json, kind);
    return r->json.oom ? chrome_oom(r) : 1;
}

static int chrome_capture_end(chrome_reader *r)
{
    if (r->cap_target == CHROME_CAP_SKIP) return 1;
    if (r->json.oom) return chrome_oom(r);
    const char *buf = r->json.buf;
    size_t len = r->json.len;
    if (r->cap_target == CHROME_CAP_TOP) {
        if (chrome_emit_top(r, r->topkey, r->topkey_len, buf, len) == TCONV_FATAL) {
            r->failed = 1;
            return 0;
        }
        return 1;
    }
    chrome_span s;
    if (!chrome_text(r, (const unsigned char *)buf, len, 0, &s)) return 0;
    if (chrome_record_set_kv(&r->rec, &r->rec.args, r->key_span, CHROME_V_JSON, s))
        return chrome_oom(r);
    return 1;
}

static int chrome_capture_scalar(chrome_reader *r, chrome_vtype t, const unsigned char *s, size_t n)
{
    if (r->cap_target == CHROME_CAP_SKIP) return 1;
    if (t == CHROME_V_STRING) {
        s = chrome_repaired(r, s, &n);
        if (!s) return chrome_oom(r);
        chrome_jsonbuf_string(&r->json, (const char *)s, n);
    } else {
        /* Numbers keep their text; true, false and null are their own text. */
        chrome_jsonbuf_raw(&r->json, (const char *)s, n);
    }
    return r->json.oom ? chrome_oom(r) : 1;
}

/* ---- structural dispatch ------------------------------------------------------------------ */

/* Handlers return 0 to stop (r->failed or an error set). */
static inline int chrome_on_scalar(chrome_reader *r, chrome_vtype t, const unsigned char *s,
                                   size_t n)
{
    if (r->cap_depth) return chrome_capture_scalar(r, t, s, n);
    chrome_span sp;
    switch (chrome_lv_top(r)) {
    case CHROME_LV_ROOT:
        tconv_error_at(r->ctx, r->input_name, r->last_tok_end - n,
                       "expected '[' or '{' at the start of a trace, found a single value");
        r->failed = 1;
        return 0;
    case CHROME_LV_TOP:
        if (chrome_topkey_is(r, "traceEvents")) {
            if (t == CHROME_V_NULL) return 1;
            tconv_error_at(r->ctx, r->input_name, r->last_tok_end - n,
                           "expected an array as the value of \"traceEvents\"");
            r->failed = 1;
            return 0;
        }
        if (chrome_topkey_is(r, "systemTraceEvents")) {
            if (t == CHROME_V_STRING && n > 0)
                tconv_warning_add(r->ctx, "chrome.systrace",
                                  "systemTraceEvents in systrace text form (%zu bytes) is not "
                                  "converted",
                                  n);
            return 1;
        }
        if (chrome_topkey_is(r, "stackFrames") || chrome_topkey_is(r, "samples")) return 1;
        if (t == CHROME_V_STRING) {
            s = chrome_repaired(r, s, &n);
            if (!s) return chrome_oom(r);
        }
        if (chrome_emit_top(r, r->topkey, r->topkey_len, (const char *)s, n) == TCONV_FATAL) {
            r->failed = 1;
            return 0;
        }
        return 1;
    case CHROME_LV_EVENTS:
    case CHROME_LV_SAMPLES:
    case CHROME_LV_SYSEVENTS:
        return chrome_not_an_event(r);
    case CHROME_LV_RECORD:
        if (r->field >= CHROME_F_COUNT && r->field != CHROME_F_UNKNOWN)
            return 1; /* "args": null and the like */
        if (!chrome_text(r, s, n, t == CHROME_V_STRING, &sp)) return 0;
        if (r->field == CHROME_F_UNKNOWN) {
            if (chrome_record_set_kv(&r->rec, &r->rec.extras, r->key_span, t, sp))
                return chrome_oom(r);
            return 1;
        }
        chrome_record_set_field(&r->rec, r->field, t, sp);
        return 1;
    case CHROME_LV_ARGS:
        if (!chrome_text(r, s, n, t == CHROME_V_STRING, &sp)) return 0;
        if (chrome_record_set_kv(&r->rec, &r->rec.args, r->key_span, t, sp)) return chrome_oom(r);
        return 1;
    case CHROME_LV_ID2:
        if (r->id2_global < 0) return 1;
        if (!chrome_text(r, s, n, t == CHROME_V_STRING, &sp)) return 0;
        chrome_record_set_field(&r->rec, r->id2_global ? CHROME_F_ID2_GLOBAL : CHROME_F_ID2_LOCAL,
                                t, sp);
        return 1;
    case CHROME_LV_STACK:
        if (!chrome_text(r, s, n, t == CHROME_V_STRING, &sp)) return 0;
        if (chrome_record_push_stack(&r->rec, sp)) return chrome_oom(r);
        return 1;
    default:
        return 1;
    }
}

/* The event array begins: where its parts may be read on other threads, the walk stops here
 * (the driver hands the array to the core, chrome_split.c). */
static int chrome_split_here(chrome_reader *r)
{
    if (!r->split_ok || r->split_never) return 1;
    r->split_hit = 1;
    r->split_at = r->tok_end;
    return 0;
}

static inline int chrome_on_open(chrome_reader *r, char kind)
{
    if (r->cap_depth) {
        r->cap_depth++;
        if (r->cap_target != CHROME_CAP_SKIP) chrome_jsonbuf_open(&r->json, kind);
        return 1;
    }
    int is_map = kind == 'm';
    switch (chrome_lv_top(r)) {
    case CHROME_LV_ROOT:
        r->form = is_map ? '{' : '[';
        if (!chrome_lv_push(r, is_map ? CHROME_LV_TOP : CHROME_LV_EVENTS)) return 0;
        return is_map ? 1 : chrome_split_here(r);
    case CHROME_LV_TOP:
        if (chrome_topkey_is(r, "traceEvents")) {
            if (is_map) {
                tconv_error_at(r->ctx, r->input_name, chrome_pos(r) - 1,
                               "expected an array as the value of \"traceEvents\"");
                r->failed = 1;
                return 0;
            }
            r->events_closed = 0;
            return chrome_lv_push(r, CHROME_LV_EVENTS) && chrome_split_here(r);
        }
        if (chrome_topkey_is(r, "stackFrames") && is_map)
            return chrome_lv_push(r, CHROME_LV_FRAMES);
        if (chrome_topkey_is(r, "samples") && !is_map) return chrome_lv_push(r, CHROME_LV_SAMPLES);
        if (chrome_topkey_is(r, "systemTraceEvents") && is_map) {
            r->top_state = 0;
            return chrome_lv_push(r, CHROME_LV_SYS);
        }
        return chrome_capture_begin(r, CHROME_CAP_TOP, kind);
    case CHROME_LV_EVENTS:
        if (is_map) return chrome_record_begin(r, CHROME_SRC_EVENT);
        if (!chrome_not_an_event(r)) return 0;
        return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
    case CHROME_LV_SAMPLES:
        if (is_map) return chrome_record_begin(r, CHROME_SRC_SAMPLE);
        if (!chrome_not_an_event(r)) return 0;
        return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
    case CHROME_LV_SYSEVENTS:
        if (is_map) return chrome_record_begin(r, CHROME_SRC_SYSTEM);
        return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
    case CHROME_LV_SYS:
        if (r->top_state && !is_map) return chrome_lv_push(r, CHROME_LV_SYSEVENTS);
        return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
    case CHROME_LV_FRAMES:
        if (is_map) return chrome_record_begin(r, CHROME_SRC_FRAME);
        return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
    case CHROME_LV_RECORD:
        if (r->field == CHROME_F_ARGS && is_map) {
            r->rec.has_args = 1;
            if (chrome_args_unread(r)) return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
            return chrome_lv_push(r, CHROME_LV_ARGS);
        }
        if (r->field == CHROME_F_ID2 && is_map) {
            r->id2_global = -1;
            return chrome_lv_push(r, CHROME_LV_ID2);
        }
        if (r->field == CHROME_F_STACK && !is_map) {
            r->rec.has_stack = 1;
            return chrome_lv_push(r, CHROME_LV_STACK);
        }
        return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
    case CHROME_LV_ARGS:
        return chrome_capture_begin(r, CHROME_CAP_ARG, kind);
    default:
        return chrome_capture_begin(r, CHROME_CAP_SKIP, kind);
    }
}

static inline int chrome_on_close(chrome_reader *r, int empty, const char *text)
{
    if (r->cap_depth) {
        r->cap_depth--;
        if (r->cap_target != CHROME_CAP_SKIP) chrome_jsonbuf_close(&r->json);
        return r->cap_depth ? 1 : chrome_capture_end(r);
    }
    chrome_level l = chrome_lv_top(r);
    switch (l) {
    case CHROME_LV_RECORD:
        return chrome_record_end(r, empty, text);
    case CHROME_LV_EVENTS:
        r->events_closed = 1;
        break;
    case CHROME_LV_FRAMES:
        chrome_frames_done(r);
        break;
    case CHROME_LV_ARGS:
    case CHROME_LV_ID2:
    case CHROME_LV_STACK:
        r->field = CHROME_F_UNKNOWN;
        break;
    default:
        break;
    }
    r->nlv--;
    if (r->nlv == 1) r->lv[0] = CHROME_LV_DONE;
    return 1;
}

static inline int chrome_on_key(chrome_reader *r, const unsigned char *s, size_t n)
{
    if (r->cap_depth) {
        if (r->cap_target == CHROME_CAP_SKIP) return 1;
        s = chrome_repaired(r, s, &n);
        if (!s) return chrome_oom(r);
        chrome_jsonbuf_key(&r->json, (const char *)s, n);
        return r->json.oom ? chrome_oom(r) : 1;
    }
    switch (chrome_lv_top(r)) {
    case CHROME_LV_TOP:
    case CHROME_LV_FRAMES:
        s = chrome_repaired(r, s, &n);
        if (!s) return chrome_oom(r);
        return chrome_copy_key(r, s, n);
    case CHROME_LV_SYS:
        r->top_state = n == 6 && memcmp(s, "events", 6) == 0;
        return 1;
    case CHROME_LV_RECORD:
        r->field = chrome_field_lookup((const char *)s, n);
        if (r->field == CHROME_F_UNKNOWN) return chrome_text(r, s, n, 1, &r->key_span);
        return 1;
    case CHROME_LV_ARGS:
        return chrome_text(r, s, n, 1, &r->key_span);
    case CHROME_LV_ID2:
        r->id2_global = n == 6 && memcmp(s, "global", 6) == 0  ? 1
                        : n == 5 && memcmp(s, "local", 5) == 0 ? 0
                                                               : -1;
        return 1;
    default:
        return 1;
    }
}

/* ---- entry points ----------------------------------------------------------------------- */

/* The lexer's tokens, to the handlers. */
static int chrome_tok_begin(void *user, const tconv_json_token *t)
{
    chrome_reader *r = user;
    r->tok_end = r->last_tok_end = t->end;
    if (!chrome_on_open(r, t->kind == TCONV_JSON_OBJECT_BEGIN ? 'm' : 'a')) return TCONV_JSON_STOP;
    /* A value the walk skips whole: its tokens are checked, not handed over. */
    return r->cap_depth == 1 && r->cap_target == CHROME_CAP_SKIP ? TCONV_JSON_SKIP : TCONV_JSON_GO;
}

static int chrome_tok_end(void *user, const tconv_json_token *t)
{
    chrome_reader *r = user;
    r->tok_end = r->last_tok_end = t->end;
    return chrome_on_close(r, t->empty, t->text) ? TCONV_JSON_GO : TCONV_JSON_STOP;
}

static int chrome_tok_key(void *user, const tconv_json_token *t)
{
    chrome_reader *r = user;
    r->tok_end = r->last_tok_end = t->end;
    return chrome_on_key(r, (const unsigned char *)t->text, t->len) ? TCONV_JSON_GO
                                                                    : TCONV_JSON_STOP;
}

static int chrome_tok_scalar(void *user, const tconv_json_token *t)
{
    static const uint8_t chrome_vtype_of[] = {
        [TCONV_JSON_STRING] = CHROME_V_STRING, [TCONV_JSON_NUMBER] = CHROME_V_NUMBER,
        [TCONV_JSON_TRUE] = CHROME_V_BOOL,     [TCONV_JSON_FALSE] = CHROME_V_BOOL,
        [TCONV_JSON_NULL] = CHROME_V_NULL,
    };
    chrome_reader *r = user;
    r->tok_end = r->last_tok_end = t->end;
    return chrome_on_scalar(r, (chrome_vtype)chrome_vtype_of[t->kind],
                            (const unsigned char *)t->text, t->len)
               ? TCONV_JSON_GO
               : TCONV_JSON_STOP;
}

static const tconv_json_callbacks chrome_tokens = {
    .begin = chrome_tok_begin,
    .end = chrome_tok_end,
    .key = chrome_tok_key,
    .scalar = chrome_tok_scalar,
};

int chrome_parse_init(chrome_reader *r)
{
    if (chrome_reserve((void **)&r->lv, &r->lv_cap, 16, 1)) return -1;
    r->lv[0] = CHROME_LV_ROOT;
    r->nlv = 1;
    /* TCONV_CHROME_FAST=0 reads every event through the lexer: the same output, for tests that
     * compare the two paths. */
    const char *fast = getenv("TCONV_CHROME_FAST");
    r->fast_off = fast && strcmp(fast, "0") == 0;
    r->fast_tries = CHROME_FAST_TRIES;
    r->field = CHROME_F_UNKNOWN;
    r->lex = tconv_json_new(&chrome_tokens, r, 0);
    return r->lex ? 0 : -1;
}

/* The lexer and the walk are put where they are at that point of the input by the text that
 * leads there: the trace object's "traceEvents" key or a bare array, and an empty event (which
 * maps to nothing) when an element was read. Its last byte is at offset - 1, so that the next
 * byte fed and every message have the input's offsets; the lexer's state is then the one a read
 * of the whole input has there, with the one key it knows of the enclosing object. */
int chrome_parse_prime(chrome_reader *r, uint64_t offset, int expect_value)
{
    static const char obj[] = "{\"traceEvents\":[{}", arr[] = "[{}";
    tconv_json_free(r->lex);
    r->lex = tconv_json_new(&chrome_tokens, r, 0);
    if (!r->lex) return -1;
    r->lv[0] = CHROME_LV_ROOT;
    r->nlv = 1;
    r->cap_depth = 0;
    r->field = CHROME_F_UNKNOWN;
    const char *text = r->form == '{' ? obj : arr;
    size_t n = (r->form == '{' ? sizeof obj : sizeof arr) - 1 - (expect_value ? 2 : 0);
    int split_ok = r->split_ok;
    uint64_t nrecords = r->nrecords;
    r->split_ok = 0;
    tconv_json_set_offset(r->lex, offset - n);
    int rc = tconv_json_feed(r->lex, text, n);
    r->split_ok = split_ok;
    r->nrecords = nrecords;
    return rc;
}

void chrome_parse_free(chrome_reader *r)
{
    tconv_json_free(r->lex);
    chrome_jsonbuf_free(&r->json);
    free(r->lv);
    free(r->topkey);
    free(r->scratch);
    chrome_record_free(&r->rec);
}

/* Does the lexer stand just past an event's '}' at p, with nothing pending? */
static int chrome_synced(const chrome_reader *r, const unsigned char *p)
{
    return r->sync_ptr == p && r->sync_off == r->last_tok_end && !r->failed;
}

/* The lexer and the fast path take turns (chrome_fast.c). Where the lexer stands just past an
 * event's '}', the fast path reads on; where it stops, the lexer is fed up to the next '}' (the
 * end of an event, perhaps), and so on. */
tconv_status chrome_parse_chunk(chrome_reader *r, const unsigned char *buf, size_t len)
{
    size_t pos = 0;
    unsigned tries = r->fast_off ? 0 : r->fast_tries, took = 0;
    r->sync_ptr = NULL; /* a position in the bytes before */
    while (pos < len) {
        size_t stop = len;
        if (tries) {
            if (chrome_synced(r, buf + pos)) {
                uint64_t base = r->last_tok_end - pos;
                r->fast_base = base;
                size_t m = chrome_fast_run(r, buf, pos, len);
                if (r->failed) return TCONV_FATAL;
                if (m > pos) {
                    pos = m;
                    tries = CHROME_FAST_TRIES;
                    took = 1;
                    tconv_json_set_offset(r->lex, base + pos);
                    r->tok_end = r->last_tok_end = r->sync_off = base + pos;
                    r->sync_ptr = buf + pos;
                    if (pos == len) break;
                }
            }
            tries--;
            const unsigned char *c = memchr(buf + pos, '}', len - pos);
            if (c) stop = (size_t)(c - buf) + 1;
        }
        if (tconv_json_feed(r->lex, buf + pos, stop - pos)) {
            chrome_error_json(r, tconv_json_error_get(r->lex));
            return TCONV_FATAL;
        }
        pos = stop;
    }
    r->fast_tries = took                                        ? CHROME_FAST_TRIES
                    : r->fast_tries / 2 > CHROME_FAST_TRIES_MIN ? r->fast_tries / 2
                                                                : CHROME_FAST_TRIES_MIN;
    return TCONV_OK;
}

tconv_status chrome_parse_end(chrome_reader *r)
{
    /* The lexer completes a number cut by the end; a string still open is a truncation,
     * decided below. */
    int after_key = 0;
    /* A long token the lexer held in its carry is completed here, and what follows it in the
     * carry lexed with it: an event array that begins there is read in line, the input being
     * all read already. */
    r->split_never = 1;
    int end = tconv_json_end(r->lex);
    r->split_never = 0;
    if (end) {
        const tconv_json_error *e = tconv_json_error_get(r->lex);
        if (e->code != TCONV_JSON_ERR_TRUNCATED && e->code != TCONV_JSON_ERR_EMPTY) {
            chrome_error_json(r, e);
            return TCONV_FATAL;
        }
        after_key = e->after_key;
    }
    if (r->failed) return TCONV_FATAL;
    chrome_level l = chrome_lv_top(r);
    if (l == CHROME_LV_ROOT) {
        /* Nothing but blanks: read as an empty trace, as the trace viewer does. */
        tconv_warning_add(r->ctx, "chrome.empty",
                          "%s: no JSON value in the input: read as an "
                          "empty trace",
                          r->input_name);
        return TCONV_OK;
    }
    if (l == CHROME_LV_DONE) return TCONV_OK;
    /* Truncated. Between two events of the event array (or just after it) is how a producer
     * that was stopped mid-write leaves the file, and trace viewers accept it; anywhere else is
     * an error. */
    int between = !r->cap_depth && (l == CHROME_LV_EVENTS || (l == CHROME_LV_TOP && !after_key));
    if (!between) {
        chrome_error_json(r, tconv_json_error_get(r->lex));
        return TCONV_FATAL;
    }
    if (r->form == '{')
        tconv_warning_add(r->ctx, "chrome.truncated",
                          "%s: the trace object is not closed (the producer may have stopped "
                          "mid-write): read up to the end of input",
                          r->input_name);
    return TCONV_OK;
}
