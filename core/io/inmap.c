/* A plain input file mapped into memory for tconv_input_view: the reader parses the page cache
 * itself instead of the copy read() makes of it (6-8 % of the Chrome reader's time on a dense
 * trace, in the kernel, on the reader's thread).
 *
 * The hazard of a mapping: a file cut short by another process while it is read turns the
 * reader's next access past the new end into SIGBUS, which would kill the process and leave its
 * temporary outputs behind. So every mapping is registered here, and a SIGBUS at an address one of
 * them holds ends the run as an error does: the file named, the temporaries removed, exit 1. A
 * SIGBUS anywhere else is not ours and goes to the handler that was there before (a sanitizer's,
 * or the default action).
 *
 * Nothing is mapped under TCONV_MMAP=0, for a file under INMAP_MIN bytes (one read costs less
 * than a mapping), or when every registry slot is taken (the input is read with read() then). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

enum {
    INMAP_MIN = 1 << 20,
    INMAP_SLOTS = 64, /* a run reads one input per worker at a time */
    INMAP_NAME = 256
};

typedef struct inmap_slot {
    atomic_int used;          /* claimed by an input */
    _Atomic(uintptr_t) start; /* published last: the handler looks at a slot only after it */
    size_t len;
    char name[INMAP_NAME]; /* for the message, which may not allocate */
} inmap_slot;

static inmap_slot inmap_slots[INMAP_SLOTS];
static struct sigaction inmap_previous;
static pthread_mutex_t inmap_lock = PTHREAD_MUTEX_INITIALIZER;

static void inmap_say(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(2, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void inmap_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (size_t i = 0; i < INMAP_SLOTS; i++) {
        uintptr_t s = atomic_load_explicit(&inmap_slots[i].start, memory_order_acquire);
        if (!s || a < s || a - s >= inmap_slots[i].len) continue;
        inmap_say("tconv: error: ");
        inmap_say(inmap_slots[i].name);
        inmap_say(": the file was cut short while it was read; nothing was written\n"
                  "  hint: convert a copy of a file that is still being written (TCONV_MMAP=0 "
                  "reads it with read(), which sees such a file end early instead)\n");
        /* The faulting thread is inside a reader, which holds no lock of the output registry;
         * another thread holds it only for a moment. */
        tconv_output_discard_all();
        _exit(1);
    }
    /* Not ours: what was there before. Returning re-runs the access, which faults again. */
    if (inmap_previous.sa_flags & SA_SIGINFO) {
        inmap_previous.sa_sigaction(sig, si, uc);
    } else if (inmap_previous.sa_handler == SIG_DFL || inmap_previous.sa_handler == SIG_IGN) {
        signal(SIGBUS, SIG_DFL);
    } else {
        inmap_previous.sa_handler(sig);
    }
}

/* The handler is put in place at every mapping, not once: a handler set after it (a test
 * framework's, a host's) would otherwise take the fault. What it replaces is chained. */
static int inmap_install(void)
{
    pthread_mutex_lock(&inmap_lock);
    struct sigaction now;
    int ok = sigaction(SIGBUS, NULL, &now) == 0;
    if (ok && !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == inmap_sigbus)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = inmap_sigbus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        ok = sigaction(SIGBUS, &sa, &inmap_previous) == 0;
    }
    pthread_mutex_unlock(&inmap_lock);
    return ok;
}

const unsigned char *tconv_inmap_open(int fd, const char *name, size_t *len)
{
    const char *e = getenv("TCONV_MMAP");
    if (e && strcmp(e, "0") == 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < INMAP_MIN ||
        (uint64_t)st.st_size > SIZE_MAX)
        return NULL;
    if (!inmap_install()) return NULL;
    inmap_slot *slot = NULL;
    for (size_t i = 0; i < INMAP_SLOTS && !slot; i++) {
        int free_ = 0;
        if (atomic_compare_exchange_strong(&inmap_slots[i].used, &free_, 1)) slot = &inmap_slots[i];
    }
    if (!slot) return NULL;
    size_t n = (size_t)st.st_size;
    void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        atomic_store(&slot->used, 0);
        return NULL;
    }
    /* Read ahead of the reader, and let pages behind it go. */
    (void)madvise(m, n, MADV_SEQUENTIAL);
    slot->len = n;
    snprintf(slot->name, sizeof(slot->name), "%s", name);
    atomic_store_explicit(&slot->start, (uintptr_t)m, memory_order_release);
    *len = n;
    return m;
}

void tconv_inmap_close(const unsigned char *map, size_t len)
{
    for (size_t i = 0; i < INMAP_SLOTS; i++) {
        if (atomic_load(&inmap_slots[i].start) != (uintptr_t)map) continue;
        atomic_store(&inmap_slots[i].start, 0);
        munmap((void *)(uintptr_t)map, len);
        atomic_store(&inmap_slots[i].used, 0);
        return;
    }
}
