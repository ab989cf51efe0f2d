/* The "stackFrames" dictionary (id -> name, category, parent) and the samples that refer to
 * it. The dictionary may follow the events in the object, so samples that arrive first wait
 * here until the end of the input. */
#include <stdlib.h>
#include <string.h>

#include "chrome_reader.h"

static const chrome_kv *chrome_frames_extra(const chrome_record *rec, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < rec->extras.n; i++) {
        const chrome_kv *kv = &rec->extras.v[i];
        if (kv->key.len == n && memcmp(chrome_record_str(rec, kv->key), key, n) == 0) return kv;
    }
    return NULL;
}

int chrome_frames_add(chrome_reader *r, const char *id, size_t idlen, const chrome_record *rec)
{
    if (r->nframes >= INT32_MAX) return -1;
    if (chrome_reserve((void **)&r->frames, &r->frames_cap, r->nframes + 1,
                       sizeof(chrome_frame_entry)))
        return -1;
    chrome_frame_entry *e = &r->frames[r->nframes];
    memset(e, 0, sizeof *e);
    e->parent = -1;
    const chrome_val *name = &rec->f[CHROME_F_NAME];
    if (name->type == CHROME_V_STRING || name->type == CHROME_V_NUMBER)
        e->name = tconv_string_intern(r->ctx, chrome_record_str(rec, name->s), name->s.len);
    const chrome_kv *cat = chrome_frames_extra(rec, "category");
    if (cat && cat->val.type == CHROME_V_STRING)
        e->category =
            tconv_string_intern(r->ctx, chrome_record_str(rec, cat->val.s), cat->val.s.len);
    const chrome_kv *parent = chrome_frames_extra(rec, "parent");
    if (parent && (parent->val.type == CHROME_V_STRING || parent->val.type == CHROME_V_NUMBER)) {
        size_t n = parent->val.s.len;
        if (chrome_reserve((void **)&r->frame_parents, &r->frame_parents_cap,
                           r->frame_parents_len + n + 1, 1))
            return -1;
        memcpy(r->frame_parents + r->frame_parents_len, chrome_record_str(rec, parent->val.s), n);
        e->has_parent = 1;
        e->poff = (uint32_t)r->frame_parents_len;
        e->plen = (uint32_t)n;
        r->frame_parents_len += n;
    }
    if (chrome_strmap_put(&r->frame_ids, id, idlen, (uint32_t)r->nframes)) return -1;
    r->nframes++;
    return 0;
}

void chrome_frames_done(chrome_reader *r)
{
    for (size_t i = 0; i < r->nframes; i++) {
        chrome_frame_entry *e = &r->frames[i];
        if (!e->has_parent) continue;
        const uint32_t *p = chrome_strmap_find(&r->frame_ids, r->frame_parents + e->poff, e->plen);
        /* An unknown parent makes the frame a root: the part of the stack that is known is
         * still worth showing. */
        e->parent = p ? (int32_t)*p : -1;
        e->has_parent = 0;
    }
    free(r->frame_parents);
    r->frame_parents = NULL;
    r->frame_parents_len = r->frame_parents_cap = 0;
    r->frames_seen = 1;
}

int chrome_frames_stack(chrome_reader *r, const char *sf, size_t len, size_t *n)
{
    *n = 0;
    if (!r->frames_seen) return -1;
    const uint32_t *leaf = chrome_strmap_find(&r->frame_ids, sf, len);
    if (!leaf) return -1;
    /* The walk is bounded by the table size, so a parent cycle cannot loop forever. */
    size_t depth = 0;
    for (int32_t i = (int32_t)*leaf; i >= 0 && depth <= r->nframes; i = r->frames[i].parent)
        depth++;
    if (chrome_reserve((void **)&r->tframes, &r->tframes_cap, depth, sizeof(tconv_frame)))
        return -1;
    size_t k = depth;
    for (int32_t i = (int32_t)*leaf; i >= 0 && k > 0; i = r->frames[i].parent) {
        tconv_frame *f = &r->tframes[--k];
        memset(f, 0, sizeof *f);
        f->name = r->frames[i].name;
        f->module = r->frames[i].category;
    }
    *n = depth;
    return 0;
}

int chrome_frames_defer(chrome_reader *r, const chrome_record *rec, chrome_src src)
{
    if (chrome_reserve((void **)&r->deferred, &r->deferred_cap, r->ndeferred + 1,
                       sizeof(chrome_record)))
        return -1;
    if (chrome_reserve((void **)&r->deferred_src, &r->deferred_src_cap, r->ndeferred + 1,
                       sizeof(chrome_src)))
        return -1;
    if (chrome_record_clone(&r->deferred[r->ndeferred], rec)) return -1;
    r->deferred_src[r->ndeferred] = src;
    r->ndeferred++;
    return 0;
}

tconv_status chrome_frames_flush(chrome_reader *r)
{
    r->at_end = 1;
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < r->ndeferred && st != TCONV_FATAL; i++)
        st = chrome_emit_record(r, &r->deferred[i], r->deferred_src[i]);
    return st;
}

void chrome_frames_free(chrome_reader *r)
{
    for (size_t i = 0; i < r->ndeferred; i++)
        chrome_record_free(&r->deferred[i]);
    free(r->deferred);
    free(r->deferred_src);
    free(r->frames);
    free(r->frame_parents);
    chrome_strmap_free(&r->frame_ids);
}
