/* The memory this process may use as its cgroup limits it: the lowest limit of its cgroup and of
 * those above it, v2 (memory.max) or v1 (memory.limit_in_bytes). A container's memory is often a
 * fraction of the machine's, which sysconf reports. Inside a container the cgroup file system
 * may be mounted at the process's own cgroup, whose path /proc names from the host's root: the
 * walk up to the root then finds the limit at the mount's root. */
#include <stdio.h>
#include <string.h>

#include "parallel.h"

static uint64_t memlimit_read(const char *mount, const char *dir, const char *file)
{
    char path[4400];
    snprintf(path, sizeof(path), "%s%s/%s", mount, dir, file);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    int ok = fscanf(f, "%llu", &v) == 1; /* v2 says "max" for no limit */
    fclose(f);
    return ok ? (uint64_t)v : 0;
}

/* The lowest limit from dir up to the root; 0 for none found. */
static uint64_t memlimit_walk(const char *mount, char *dir, const char *file)
{
    uint64_t lim = 0;
    for (;;) {
        uint64_t v = memlimit_read(mount, dir, file);
        if (v && (!lim || v < lim)) lim = v;
        char *slash = strrchr(dir, '/');
        if (!slash || !dir[1]) break;
        slash[slash == dir] = 0; /* "/a" -> "/", "/a/b" -> "/a" */
    }
    return lim;
}

uint64_t tconv_cgroup_memory_limit(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return 0;
    char line[4096];
    uint64_t lim = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        uint64_t v = 0;
        char *p = strchr(line, ':');
        char *dir = p ? strchr(p + 1, ':') : NULL;
        if (!dir || dir[1] != '/') continue;
        if (strncmp(line, "0::", 3) == 0)
            v = memlimit_walk("/sys/fs/cgroup", dir + 1, "memory.max");
        else if (strncmp(p, ":memory:", 8) == 0)
            v = memlimit_walk("/sys/fs/cgroup/memory", dir + 1, "memory.limit_in_bytes");
        if (v && (!lim || v < lim)) lim = v;
    }
    fclose(f);
    return lim;
}
