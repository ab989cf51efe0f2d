/* The run layer (core/run/): one conversion from the command to the committed output (the
 * tconv_run_* host API), and the plugin kit's harness, a host of the pipeline in a test's own
 * process. The top of the core: the programs (core/cli, core/check) see only the public API. */
#ifndef TCONV_CORE_RUN_H
#define TCONV_CORE_RUN_H

#include "parallel.h"

#endif
