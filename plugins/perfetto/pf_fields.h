/* Field numbers of proto/perfetto_trace.proto, by message, for the code that reads and writes
 * the wire format directly. Keep in step with the .proto: the tests decode written traces with
 * protoc against it. */
#ifndef PF_FIELDS_H
#define PF_FIELDS_H

enum {
    PF_TRACE_PACKET = 1,

    /* TracePacket */
    PF_PKT_PROCESS_TREE = 2,
    PF_PKT_CHROME_EVENTS = 5,
    PF_PKT_CLOCK_SNAPSHOT = 6,
    PF_PKT_TIMESTAMP = 8,
    PF_PKT_SEQ_ID = 10,
    PF_PKT_TRACK_EVENT = 11,
    PF_PKT_INTERNED_DATA = 12,
    PF_PKT_SEQ_FLAGS = 13,
    PF_PKT_INCREMENTAL_CLEARED = 41,
    PF_PKT_PROCESS_DESCRIPTOR = 43,
    PF_PKT_THREAD_DESCRIPTOR = 44,
    PF_PKT_STREAMING_PROFILE = 54,
    PF_PKT_TIMESTAMP_CLOCK_ID = 58,
    PF_PKT_DEFAULTS = 59,
    PF_PKT_TRACK_DESCRIPTOR = 60,
    PF_PKT_PERF_SAMPLE = 66,

    /* TracePacket.sequence_flags */
    PF_SEQ_CLEARED = 1,
    PF_SEQ_NEEDS_STATE = 2,

    /* TracePacketDefaults and TrackEventDefaults */
    PF_DEF_CLOCK_ID = 58,
    PF_DEF_TRACK_EVENT = 11,
    PF_TEDEF_TRACK_UUID = 11,
    PF_TEDEF_EXTRA_COUNTERS = 31,
    PF_TEDEF_EXTRA_DOUBLE_COUNTERS = 45,

    /* TrackDescriptor */
    PF_TD_UUID = 1,
    PF_TD_NAME = 2,
    PF_TD_PROCESS = 3,
    PF_TD_THREAD = 4,
    PF_TD_PARENT = 5,
    PF_TD_COUNTER = 8,

    /* ProcessDescriptor */
    PF_PD_PID = 1,
    PF_PD_CMDLINE = 2,
    PF_PD_SORT = 3,
    PF_PD_NAME = 6,
    PF_PD_LABELS = 8,

    /* ThreadDescriptor */
    PF_THD_PID = 1,
    PF_THD_TID = 2,
    PF_THD_SORT = 3,
    PF_THD_NAME = 5,
    PF_THD_REF_US = 6,

    /* CounterDescriptor */
    PF_CD_CATEGORIES = 2,
    PF_CD_UNIT = 3,
    PF_CD_UNIT_MULTIPLIER = 4,
    PF_CD_INCREMENTAL = 5,
    PF_CD_UNIT_NAME = 6,
    PF_UNIT_TIME_NS = 1,
    PF_UNIT_COUNT = 2,
    PF_UNIT_SIZE_BYTES = 3,

    /* TrackEvent */
    PF_TE_TS_DELTA_US = 1,
    PF_TE_CATEGORY_IIDS = 3,
    PF_TE_ANNOTATIONS = 4,
    PF_TE_LEGACY = 6,
    PF_TE_TYPE = 9,
    PF_TE_NAME_IID = 10,
    PF_TE_TRACK_UUID = 11,
    PF_TE_EXTRA_COUNTER_VALUES = 12,
    PF_TE_TS_ABSOLUTE_US = 16,
    PF_TE_CATEGORIES = 22,
    PF_TE_NAME = 23,
    PF_TE_COUNTER_VALUE = 30,
    PF_TE_EXTRA_COUNTER_UUIDS = 31,
    PF_TE_SOURCE_LOCATION = 33,
    PF_TE_SOURCE_LOCATION_IID = 34,
    PF_TE_DOUBLE_COUNTER_VALUE = 44,
    PF_TE_EXTRA_DOUBLE_COUNTER_UUIDS = 45,
    PF_TE_EXTRA_DOUBLE_COUNTER_VALUES = 46,
    PF_TE_FLOW_IDS = 47,
    PF_TE_TERMINATING_FLOW_IDS = 48,

    /* TrackEvent.Type */
    PF_TYPE_SLICE_BEGIN = 1,
    PF_TYPE_SLICE_END = 2,
    PF_TYPE_INSTANT = 3,
    PF_TYPE_COUNTER = 4,

    /* TrackEvent.LegacyEvent */
    PF_LE_NAME_IID = 1,
    PF_LE_PHASE = 2,
    PF_LE_DURATION_US = 3,
    PF_LE_UNSCOPED_ID = 6,
    PF_LE_ID_SCOPE = 7,
    PF_LE_BIND_ID = 8,
    PF_LE_LOCAL_ID = 10,
    PF_LE_GLOBAL_ID = 11,
    PF_LE_BIND_TO_ENCLOSING = 12,
    PF_LE_FLOW_DIRECTION = 13,
    PF_LE_INSTANT_SCOPE = 14,
    PF_LE_PID_OVERRIDE = 18,
    PF_LE_TID_OVERRIDE = 19,
    PF_FLOW_IN = 1,
    PF_FLOW_OUT = 2,
    PF_FLOW_INOUT = 3,
    PF_SCOPE_GLOBAL = 1,
    PF_SCOPE_PROCESS = 2,
    PF_SCOPE_THREAD = 3,

    /* DebugAnnotation (and its NestedValue) */
    PF_DA_NAME_IID = 1,
    PF_DA_BOOL = 2,
    PF_DA_UINT = 3,
    PF_DA_INT = 4,
    PF_DA_DOUBLE = 5,
    PF_DA_STRING = 6,
    PF_DA_POINTER = 7,
    PF_DA_NESTED = 8,
    PF_DA_JSON = 9,
    PF_DA_NAME = 10,
    PF_DA_DICT = 11,
    PF_DA_ARRAY = 12,
    PF_DA_STRING_IID = 17,
    PF_NV_TYPE = 1,
    PF_NV_DICT_KEYS = 2,
    PF_NV_DICT_VALUES = 3,
    PF_NV_ARRAY = 4,
    PF_NV_INT = 5,
    PF_NV_DOUBLE = 6,
    PF_NV_BOOL = 7,
    PF_NV_STRING = 8,
    PF_NV_DICT_TYPE = 1,
    PF_NV_ARRAY_TYPE = 2,

    /* SourceLocation */
    PF_SL_IID = 1,
    PF_SL_FILE = 2,
    PF_SL_FUNCTION = 3,
    PF_SL_LINE = 4,

    /* InternedData, and the iid/name pairs it holds */
    PF_ID_CATEGORIES = 1,
    PF_ID_EVENT_NAMES = 2,
    PF_ID_ANNOT_NAMES = 3,
    PF_ID_SOURCE_LOCATIONS = 4,
    PF_ID_FUNCTION_NAMES = 5,
    PF_ID_FRAMES = 6,
    PF_ID_CALLSTACKS = 7,
    PF_ID_BUILD_IDS = 16,
    PF_ID_MAPPING_PATHS = 17,
    PF_ID_MAPPINGS = 19,
    PF_ID_STRING_VALUES = 29,
    PF_IID = 1,
    PF_IID_NAME = 2, /* EventName.name, EventCategory.name, ...; InternedString.str */

    /* Mapping, Frame, Callstack */
    PF_MAP_BUILD_ID = 2,
    PF_MAP_START_OFFSET = 3,
    PF_MAP_START = 4,
    PF_MAP_PATHS = 7,
    PF_FRAME_FUNCTION = 2,
    PF_FRAME_MAPPING = 3,
    PF_FRAME_REL_PC = 4,
    PF_CS_FRAMES = 2,

    /* PerfSample */
    PF_PS_CPU = 1,
    PF_PS_PID = 2,
    PF_PS_TID = 3,
    PF_PS_CALLSTACK = 4,
    PF_PS_CPU_MODE = 5,

    /* StreamingProfilePacket */
    PF_SP_CALLSTACKS = 2,
    PF_SP_DELTAS_US = 3,

    /* ProcessTree */
    PF_PT_PROCESSES = 1,
    PF_PT_THREADS = 2,
    PF_PTP_PID = 1,
    PF_PTP_PPID = 2,
    PF_PTP_CMDLINE = 3,
    PF_PTT_TID = 1,
    PF_PTT_NAME = 2,
    PF_PTT_TGID = 3,

    /* ClockSnapshot */
    PF_CS_CLOCKS = 1,
    PF_CS_PRIMARY = 2,
    PF_CLK_ID = 1,
    PF_CLK_TS = 2,
    PF_CLK_INCREMENTAL = 3,
    PF_CLK_UNIT_NS = 4,

    /* ChromeEventBundle, ChromeMetadata */
    PF_CEB_METADATA = 2,
    PF_CM_NAME = 1,
    PF_CM_STRING = 2,
    PF_CM_BOOL = 3,
    PF_CM_INT = 4,
    PF_CM_JSON = 5
};

/* The clock a trace's timestamps are in unless a clock snapshot names another. */
#define PF_CLOCK_BOOTTIME 6
#define PF_CLOCK_REALTIME 1

/* What tconv writes that Perfetto has no field for rides in legacy metadata events ('M'),
 * which trace viewers do not draw, and in one annotation (see docs/perfetto.md). */
#define PF_PHASE_METADATA 'M'
#define PF_META_TRACK "tconv.track"
#define PF_META_COUNTER "tconv.counter"
#define PF_ANNOT_MEASURED "tconv.measured_dur_ns"
#define PF_ANNOT_TEXT "tconv.text"
#define PF_ANNOT_KEY "tconv.key"

#endif
