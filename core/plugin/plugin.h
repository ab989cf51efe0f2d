/* The plugin layer (core/plugin/): the plugins a host loaded and the checks they pass, the host,
 * the formats known without a reader, and plugin options checked against their descriptors. */
#ifndef TCONV_CORE_PLUGIN_H
#define TCONV_CORE_PLUGIN_H

#include "io.h"

/* ---- formats known without a reader (core/formats.c) ---- */
typedef struct tconv_known_format {
    const char *name;
    const char *what; /* "a pprof profile" */
    int score;        /* a reader whose probe scores the input at least this much wins */
    const char *hint; /* what to do with it */
} tconv_known_format;
/* What the first bytes of an input (after gzip) show it is, or NULL. */
const tconv_known_format *tconv_format_known(const unsigned char *head, size_t len);
/* The entry of that name ("pprof", "perfetto", ...), or NULL. */
const tconv_known_format *tconv_format_named(const char *name);

/* ---- options ---- */
struct tconv_options {
    const tconv_option_desc *desc;
    char **names, **values; /* user-given, validated */
    size_t n;
};
/* Parse "key=val" strings against desc. On error, writes a message to err and returns -1. */
int tconv_options_parse(tconv_options *o, const tconv_option_desc *desc, char *const *kv, size_t n,
                        char *err, size_t errcap);
void tconv_options_free(tconv_options *o);
int tconv_option_value_check(const tconv_option_desc *d, const char *val);

/* ---- plugin registry / loader ---- */
typedef struct tconv_plugin {
    char *path;
    const tconv_plugin_desc *desc;
    void *handle; /* lt_dlhandle, or NULL for built-ins */
} tconv_plugin;

typedef struct tconv_registry {
    tconv_plugin *plugins;
    size_t n, cap;
    void (*notice)(void *user, tconv_notice_level level, const char *text);
    void *notice_user;
    int nwarnings;
    int ltdl_ready;
} tconv_registry;

/* While one plugin loads (core/plugin/loadguard.c): a crash names path on stderr and exits 1. */
typedef struct tconv_loadguard tconv_loadguard;
tconv_loadguard *tconv_loadguard_begin(const char *path);
void tconv_loadguard_end(tconv_loadguard *g);

int tconv_registry_load_dir(tconv_registry *r, const char *dir);
int tconv_registry_load_file(tconv_registry *r, const char *path);
/* Admit a descriptor (from a file's handle, or built into the program: handle NULL) after the
 * checks every plugin passes; -1 and a notice when refused. */
int tconv_registry_add(tconv_registry *r, const char *path, const tconv_plugin_desc *d,
                       void *handle);

struct tconv_host {
    tconv_host_hooks hooks;
    tconv_registry reg;
    char **seen; /* folders loaded, resolved */
    size_t nseen;
};
void tconv_registry_free(tconv_registry *r);
/* A class's field appended in a later minor, or NULL when its plugin was built before it. */
#define TCONV_CLASS_GET(c, field) (TCONV_CLASS_HAS(c, field) ? (c)->field : NULL)
/* tconv_host_detect, and the winning probe's score in *score (0: none claims the input). */
const tconv_reader_class *tconv_host_detect_scored(const tconv_host *h, const unsigned char *head,
                                                   size_t len, const char *name, int *score);
const tconv_reader_class *tconv_registry_reader(const tconv_registry *r, const char *name,
                                                const tconv_plugin **owner);
const tconv_writer_class *tconv_registry_writer(const tconv_registry *r, const char *name,
                                                const tconv_plugin **owner);

#endif
