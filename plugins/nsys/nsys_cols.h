/* The columns each source is read with, by position in its SELECT (nsys_tables.c lists the
 * names in the same order). A column the export lacks is selected as NULL, so one layout serves
 * every schema from 2.9 to 3.x. */
#ifndef NSYS_COLS_H
#define NSYS_COLS_H

/* Kernels, copies, sets, synchronisations and graph launches share their first columns. */
enum {
    NSYS_G_START = 0,
    NSYS_G_END,
    NSYS_G_DEVICE,
    NSYS_G_CONTEXT,
    NSYS_G_STREAM,
    NSYS_G_CORR,
    NSYS_G_PID,
    NSYS_G_FIRST_OWN /* the table's own columns from here */
};
enum {
    NSYS_K_NAME = NSYS_G_FIRST_OWN,
    NSYS_K_GRID_X,
    NSYS_K_GRID_Y,
    NSYS_K_GRID_Z,
    NSYS_K_BLOCK_X,
    NSYS_K_BLOCK_Y,
    NSYS_K_BLOCK_Z,
    NSYS_K_REGS,
    NSYS_K_SMEM_STATIC,
    NSYS_K_SMEM_DYNAMIC,
    NSYS_K_LAUNCH_TYPE,
    NSYS_K_GRAPH_NODE
};
enum { NSYS_MC_BYTES = NSYS_G_FIRST_OWN, NSYS_MC_KIND, NSYS_MC_SRC_KIND, NSYS_MC_DST_KIND };
enum { NSYS_MS_BYTES = NSYS_G_FIRST_OWN, NSYS_MS_VALUE, NSYS_MS_MEM_KIND };
enum { NSYS_SY_TYPE = NSYS_G_FIRST_OWN };
enum { NSYS_GR_GRAPH = NSYS_G_FIRST_OWN, NSYS_GR_EXEC };

/* Calls on CPU threads: CUDA API, OS runtime, cuDNN, cuBLAS, the profiler's overhead. */
enum {
    NSYS_C_START = 0,
    NSYS_C_END,
    NSYS_C_TID,
    NSYS_C_CORR,
    NSYS_C_NAME,
    NSYS_C_CLASS,
    NSYS_C_RET,
    NSYS_C_CHAIN
};

enum {
    NSYS_N_START = 0,
    NSYS_N_END,
    NSYS_N_TID,
    NSYS_N_END_TID,
    NSYS_N_TYPE,
    NSYS_N_RANGE,
    NSYS_N_CATEGORY,
    NSYS_N_TEXT,
    NSYS_N_TEXT_ID,
    NSYS_N_DOMAIN,
    NSYS_N_U64,
    NSYS_N_I64,
    NSYS_N_DOUBLE,
    NSYS_N_U32,
    NSYS_N_I32,
    NSYS_N_FLOAT,
    NSYS_N_JSON,
    NSYS_N_JSON_ID
};

enum { NSYS_S_START = 0, NSYS_S_TID, NSYS_S_ID };

enum { NSYS_M_START = 0, NSYS_M_PID, NSYS_M_DEVICE, NSYS_M_BYTES, NSYS_M_OPER, NSYS_M_KIND };
enum { NSYS_W_START = 0, NSYS_W_TID, NSYS_W_GPU, NSYS_W_USAGE, NSYS_W_SEGMENT };

/* NVTX event types (the same numbers in every schema). */
enum {
    NSYS_NVTX_CATEGORY = 33,
    NSYS_NVTX_MARK = 34,
    NSYS_NVTX_THREAD = 39,
    NSYS_NVTX_PUSHPOP = 59,
    NSYS_NVTX_STARTEND = 60,
    NSYS_NVTXT_CATEGORY = 64,
    NSYS_NVTXT_MARK = 65,
    NSYS_NVTXT_PUSHPOP = 70,
    NSYS_NVTXT_STARTEND = 71,
    NSYS_NVTXT_THREAD = 72,
    NSYS_NVTX_DOMAIN = 75
};

#endif
