/* Test helpers: read a .pb.gz profile with protobuf-c and check what every pprof consumer
 * relies on. */
#ifndef PPROF_DECODE_H
#define PPROF_DECODE_H

#include <stddef.h>

#include "profile.pb-c.h"

/* The unpacked profile, or NULL with a message in err. Free with
 * perftools__profiles__profile__free_unpacked(p, NULL). */
Perftools__Profiles__Profile *pprof_decode_file(const char *path, char *err, size_t errlen);
/* 0 if the profile keeps every invariant, else -1 and the first violation in err. */
int pprof_decode_check(const Perftools__Profiles__Profile *p, char *err, size_t errlen);
/* Lookups by id; NULL if absent. */
const Perftools__Profiles__Location *pprof_decode_location(const Perftools__Profiles__Profile *p,
                                                           uint64_t id);
const Perftools__Profiles__Function *pprof_decode_function(const Perftools__Profiles__Profile *p,
                                                           uint64_t id);
/* The string at an index, "" when out of range. */
const char *pprof_decode_string(const Perftools__Profiles__Profile *p, int64_t idx);

#endif
