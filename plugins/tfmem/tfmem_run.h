/* TensorFlow profiler run folders: plugins/profile/<run>/ holds <host>.trace.json.gz and
 * <host>.memory_profile.json.gz for every profiled host of one session. The core reads a folder
 * file by file; these checks make sure the memory profiles read in one conversion belong to one
 * run and that no host has two of them. */
#ifndef TFMEM_RUN_H
#define TFMEM_RUN_H

#include <stdint.h>

#include "tconv/tconv.h"

/* "dir/<host>.memory_profile.json[.gz]" -> "<host>" (malloc'd); NULL when the name does not
 * follow the profiler's pattern. */
char *tfmem_run_host(const char *path);

/* Records this memory profile (input `index` of the run behind ctx) and fails, with an error
 * listing what was found, when an earlier input was a profile of the same host, or (unless
 * merge_runs) when an earlier profile came from another folder. A folder with traces of other
 * hosts only gives a warning. */
tconv_status tfmem_run_check(tconv_ctx *ctx, const char *path, const char *host, uint32_t index,
                             int merge_runs);

/* Notes the first track of the profile just checked (input `index`), by which a later call
 * tells whether the record still belongs to the conversion behind ctx. */
void tfmem_run_track(const tconv_ctx *ctx, uint32_t index, uint32_t track);

/* Forgets what tfmem_run_check recorded. */
void tfmem_run_reset(void);

#endif
