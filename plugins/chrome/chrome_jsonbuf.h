/* A compact JSON text builder for nested values (args members that are objects or arrays,
 * top-level members, metadata args). Numbers are written as the text the input had. */
#ifndef CHROME_JSONBUF_H
#define CHROME_JSONBUF_H

#include <stddef.h>

typedef struct chrome_jsonbuf {
    char *buf;
    size_t len, cap;
    /* Per open container: 'm' or 'a', and whether a member was written yet. */
    char *kinds;
    unsigned char *has;
    size_t depth, depth_cap;
    int after_key;
    int oom;
} chrome_jsonbuf;

void chrome_jsonbuf_reset(chrome_jsonbuf *j);
void chrome_jsonbuf_free(chrome_jsonbuf *j);
void chrome_jsonbuf_open(chrome_jsonbuf *j, char kind); /* 'm' or 'a' */
void chrome_jsonbuf_close(chrome_jsonbuf *j);
void chrome_jsonbuf_key(chrome_jsonbuf *j, const char *s, size_t n);
void chrome_jsonbuf_string(chrome_jsonbuf *j, const char *s, size_t n);
/* A token written as is: a number's text, true, false, null, or already compact JSON. */
void chrome_jsonbuf_raw(chrome_jsonbuf *j, const char *s, size_t n);

#endif
