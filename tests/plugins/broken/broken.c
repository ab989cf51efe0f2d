/* Deliberately broken plugins for the loader tests; which one is chosen at compile time. */
#include "tconv/tconv.h"

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

#if !defined(BROKEN_DATAENTRY)
static const tconv_plugin_desc broken_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = BROKEN_ABI_MAJOR,
    .abi_minor = BROKEN_ABI_MINOR,
    .name = BROKEN_NAME,
    .version = "test",
    .description = "a broken test plugin",
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
