/* tconv public API: everything a reader or writer plugin may use. */
#ifndef TCONV_TCONV_H
#define TCONV_TCONV_H

#include "collective.h"
#include "context.h"
#include "event.h"
#include "io.h"
#include "json.h"
#include "map.h"
#include "plugin.h"
#include "spanwalk.h"
#include "split.h"
#include "stacktab.h"
#include "steps.h"
#include "utf8.h"
#include <tconv/version.h>

#endif
