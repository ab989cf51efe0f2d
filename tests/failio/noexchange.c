/* An LD_PRELOAD shim for the CLI tests: renameat2 fails with EINVAL, as on a file system that
 * supports neither RENAME_EXCHANGE nor RENAME_NOREPLACE (older NFS, some FUSE file systems), so
 * that the tests reach the output layer's fallback of two renames. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
              unsigned int flags)
{
    (void)olddirfd;
    (void)oldpath;
    (void)newdirfd;
    (void)newpath;
    (void)flags;
    errno = EINVAL;
    return -1;
}
