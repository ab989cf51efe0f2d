/* Deliberately broken plugins for the loader tests; which one is chosen at compile time. */
#include <stdint.h>
#include <stdlib.h>

#include "tconv/tconv.h"

/* Null, and the compiler cannot know it: a store through it is a real crash. */
static int *volatile broken_nowhere;

#if defined(BROKEN_MAJOR)
#define BROKEN_ABI_MAJOR (TCONV_ABI_MAJOR + 1)
#define BROKEN_ABI_MINOR 0
#else
#define BROKEN_ABI_MAJOR TCONV_ABI_MAJOR
#define BROKEN_ABI_MINOR TCONV_ABI_MINOR
#endif

#if defined(BROKEN_MINOR)
#undef BROKEN_ABI_MINOR
#define BROKEN_ABI_MINOR (TCONV_ABI_MINOR + 1)
#endif

#if defined(BROKEN_UNDEFINED)
/* Provided by nothing: the plugin must fail to load, not crash at first call. */
extern int tconv_test_missing_fn(void);
TCONV_EXPORT int broken_use(void);
TCONV_EXPORT int broken_use(void)
{
    return tconv_test_missing_fn();
}
#endif

#if defined(BROKEN_NONAME)
#undef BROKEN_NAME
#define BROKEN_NAME ""
#endif

#if defined(BROKEN_CRASHCTOR)
/* Crashes in its constructor, inside dlopen, before the loader sees any of it. */
__attribute__((constructor)) static void broken_ctor(void)
{
    *broken_nowhere = 1;
}
#endif

#if defined(BROKEN_ESCNAME)
/* Loads, with terminal control sequences in every name --list prints. */
static tconv_status broken_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                tconv_sink *sink)
{
    (void)ctx, (void)in, (void)opts, (void)sink;
    return TCONV_FATAL;
}
static const tconv_reader_class broken_reader = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "rd\x1b[2J",
    .description = "clears \x1b]0;title\x07the screen",
    .read = broken_read,
};
static const tconv_reader_class *const broken_readers[] = {&broken_reader, NULL};
#undef BROKEN_NAME
#define BROKEN_NAME "esc\x1b[31mred"
#endif

#if !defined(BROKEN_DATAENTRY)
static const tconv_plugin_desc broken_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = BROKEN_ABI_MAJOR,
    .abi_minor = BROKEN_ABI_MINOR,
    .name = BROKEN_NAME,
    .version = "test",
    .description = "a broken test plugin",
#if defined(BROKEN_BADDESC)
    /* Not a pointer: reading the classes crashes the loader's checks. */
    .readers = (const tconv_reader_class *const *)(uintptr_t)16,
#elif defined(BROKEN_ESCNAME)
    .readers = broken_readers,
#endif
};
#endif

#if defined(BROKEN_DATAENTRY)
/* The entry's name on a data object: calling it would jump into the descriptor. */
TCONV_EXPORT const tconv_plugin_desc tconv_plugin_describe = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "broken-dataentry",
};
#elif defined(BROKEN_CRASHENTRY) || defined(BROKEN_ABORTENTRY)
/* Crashes when asked for its descriptor. */
TCONV_EXPORT const tconv_plugin_desc *tconv_plugin_describe(void);
TCONV_EXPORT const tconv_plugin_desc *tconv_plugin_describe(void)
{
#if defined(BROKEN_ABORTENTRY)
    abort();
    return &broken_plugin;
#else
    *broken_nowhere = 1;
    return &broken_plugin;
#endif
}
#elif defined(BROKEN_NOENTRY)
/* Exports something, but not the entry point. */
TCONV_EXPORT const tconv_plugin_desc *broken_describe(void);
TCONV_EXPORT const tconv_plugin_desc *broken_describe(void)
{
    return &broken_plugin;
}
#else
TCONV_PLUGIN(broken_plugin)
#endif
