"""Convert traces and profiles between formats, from Python.

    import tconv
    r = tconv.convert("trace.json.gz", "trace.pb.gz")      # writer inferred from the name
    print(r.events, r.warnings)

A thin binding of libtconv's host API (tconv/host.h) through ctypes: the conversion is the
library's, with the same output bytes, messages and rules as the tconv command. Nothing is
compiled at install time; the library is found as _lib.py says. tconv.torch has a handler for
torch.profiler.profile(on_trace_ready=...).
"""

import ctypes
import os
import threading
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from . import _lib

__all__ = ["convert", "formats", "version", "Error", "Result", "Warning", "Format", "Option"]

_OUTCOMES = {0: "done", 1: "failed", 2: "usage", 3: "interrupted", 4: "partial"}
_LEVELS = {1: "warning", 2: "note", 3: "info", 4: "debug", 5: "error"}


class Error(Exception):
    """A conversion that did not succeed.

    message: the library's error, "file:offset: what is wrong" where it has a place;
    chain: that message and its causes, outermost first; hint: how to fix it, or None;
    outcome: "failed", "usage" (the options cannot work), "interrupted", or "partial"
    (keep_going: some inputs failed, the output holds the others; result then has what was
    written)."""

    def __init__(self, message, chain=None, hint=None, outcome="failed", result=None):
        super().__init__(message)
        self.message = message
        self.chain = list(chain) if chain else [message]
        self.hint = hint
        self.outcome = outcome
        self.result = result

    def __str__(self):
        s = "\n  caused by: ".join(self.chain)
        return s + (f"\n  hint: {self.hint}" if self.hint else "")


@dataclass
class Warning:
    """One kind of warning: counted, with its first message (never one per event)."""
    kind: str
    count: int
    first: str


@dataclass
class Result:
    """What a conversion did."""
    output: str
    outcome: str
    events: int
    inputs: int
    bytes_read: int
    bytes_plain: int
    seconds: float
    inputs_failed: int = 0
    warnings: Dict[str, Warning] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    notices: List[Tuple[str, str]] = field(default_factory=list)


@dataclass
class Option:
    name: str
    type: str
    default: Optional[str]
    choices: Optional[str]
    help: str


@dataclass
class Format:
    """A reader or a writer of a loaded plugin."""
    kind: str
    name: str
    plugin: str
    path: str
    description: str
    extensions: List[str]
    options: List[Option]


@dataclass
class Formats:
    readers: Dict[str, Format]
    writers: Dict[str, Format]


def version():
    """The library's version and plugin ABI: ("0.2.0", (1, 3))."""
    lib, _ = _lib.load()
    major, minor = ctypes.c_uint(), ctypes.c_uint()
    lib.tconv_version_abi(ctypes.byref(major), ctypes.byref(minor))
    return lib.tconv_version_string().decode(), (major.value, minor.value)


def _text(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _strings(items):
    arr = (ctypes.c_char_p * max(len(items), 1))()
    for i, s in enumerate(items):
        arr[i] = os.fsencode(s)
    return arr, len(items)


def _option_strings(opts, what):
    out = []
    for k, v in (opts or {}).items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        if not isinstance(k, str) or "=" in k or not k:
            raise Error(f"{what} option name {k!r}: give a name without '='", outcome="usage")
        out.append(f"{k}={v}")
    return out


class _Host:
    """A host with the standard plugins and those beside the library; notices collected."""

    def __init__(self, plugin_path=()):
        self.lib, self.path = _lib.load()
        self.notices = []
        hooks = _lib.HostHooks()
        hooks.struct_size = ctypes.sizeof(hooks)
        # Kept on self: the library calls it until the host is freed.
        self._notice = _lib.HostHooks.NOTICE(self._on_notice)
        hooks.notice = self._notice
        self.h = self.lib.tconv_host_new(ctypes.byref(hooks))
        if not self.h:
            raise Error("cannot create a tconv host (out of memory)")
        dirs = [os.fspath(p) for p in plugin_path] + _lib.plugin_dirs(self.path)
        arr, n = _strings(dirs)
        self.lib.tconv_host_load_standard(self.h, arr, n)

    def _on_notice(self, _user, level, text):
        self.notices.append((_LEVELS.get(level, str(level)), _text(text)))

    def close(self):
        if self.h:
            self.lib.tconv_host_free(self.h)
            self.h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _options(ptr):
    out = []
    if not ptr:
        return out
    types = {1: "bool", 2: "int", 3: "double", 4: "string", 5: "enum"}
    i = 0
    while ptr[i].name:
        o = ptr[i]
        out.append(Option(_text(o.name), types.get(o.type, str(o.type)), _text(o.default_value),
                          _text(o.choices), _text(o.help) or ""))
        i += 1
    return out


def formats(plugin_path=()):
    """The readers and writers of the plugins that load, with their options.

    plugin_path: more plugin folders to search first (as --plugin-path)."""
    readers, writers = {}, {}
    with _Host(plugin_path) as host:
        lib = host.lib
        for i in range(lib.tconv_host_plugin_count(host.h)):
            path = ctypes.c_char_p()
            d = lib.tconv_host_plugin(host.h, i, ctypes.byref(path)).contents
            pname, ppath = _text(d.name), _text(path.value) or ""
            j = 0
            while d.readers and d.readers[j]:
                c = d.readers[j].contents
                name = _text(c.name)
                exts = (_text(c.extensions) or "").split("|") if c.extensions else []
                readers.setdefault(name, Format("reader", name, pname, ppath,
                                                _text(c.description) or "", exts,
                                                _options(c.options)))
                j += 1
            j = 0
            while d.writers and d.writers[j]:
                c = d.writers[j].contents
                name = _text(c.name)
                exts = []
                if _lib.has_field(c, "extensions") and c.extensions:
                    exts = _text(c.extensions).split("|")
                writers.setdefault(name, Format("writer", name, pname, ppath,
                                                _text(c.description) or "", exts,
                                                _options(c.options)))
                j += 1
    return Formats(readers, writers)


def _parse_window(window):
    if window is None or isinstance(window, str):
        return window
    start, end = window
    return f"{start or ''}:{end or ''}"


def convert(inputs, output, reader=None, writer=None, reader_options=None, writer_options=None,
            jobs=None, window=None, steps=None, step_name=None, force=False, strict=False,
            keep_going=False, all_spans=False, input=None, rank=None, verbose=False,
            plugin_path=()):
    """Convert inputs into output, as `tconv` does.

    inputs: a path, or a list of paths (files or directories; "-" is standard input).
    output: the output file (a directory for otf2); "-" is standard output.
    reader, writer: format names; None detects the reader from each input's first bytes and
        infers the writer from output's name (".pb.gz" -> pprof).
    reader_options, writer_options: {"key": value} as -R/-W key=value (bools as true/false).
    jobs: threads reading inputs at once (None: the CPUs); the output is the same for any.
    window: "[@]START:[END]" with units ("2s:3.5s"), or a (start, end) pair of such strings.
    steps: "N" or "A-B" (ProfilerStep#N, or spans named step_name + N).
    Returns a Result; raises Error with the library's message when the conversion fails (the
    output is then neither written nor clobbered). An interrupt (Ctrl-C) stops the conversion,
    removes its temporary output and raises KeyboardInterrupt."""
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    inputs = [os.fspath(p) for p in inputs]
    output = os.fspath(output) if output is not None else "-"
    ropts = _option_strings(reader_options, "reader")
    wopts = _option_strings(writer_options, "writer")
    if isinstance(steps, int):
        steps = str(steps)
    elif isinstance(steps, (tuple, list)):
        steps = f"{steps[0]}-{steps[1]}"

    with _Host(plugin_path) as host:
        lib = host.lib
        o = _lib.RunOpts()
        o.struct_size = ctypes.sizeof(o)
        o.max_input_size = 64 << 30
        keep = []  # what the opts point to, alive until the run is freed

        def s(v):
            if v is None:
                return None
            b = os.fsencode(v) if isinstance(v, (str, os.PathLike)) else bytes(v)
            keep.append(b)
            return b

        o.reader, o.writer, o.output = s(reader), s(writer), s(output)
        o.inputs, o.ninputs = _strings(inputs)
        o.reader_options, o.nreader_options = _strings(ropts)
        o.writer_options, o.nwriter_options = _strings(wopts)
        keep += [o.inputs, o.reader_options, o.writer_options]
        o.force, o.strict, o.all_spans, o.keep_going = map(int, (force, strict, all_spans,
                                                                 keep_going))
        o.verbosity = 1 if verbose else 0
        o.window, o.steps, o.step_name = s(_parse_window(window)), s(steps), s(step_name)
        if input is not None:
            o.only_input, o.input = 1, int(input)
        if rank is not None:
            o.only_rank, o.rank = 1, int(rank)
        o.jobs = int(jobs) if jobs else 0

        run = lib.tconv_run_new(host.h, ctypes.byref(o))
        if not run:
            raise Error("cannot create the run (out of memory)")
        try:
            outcome = _execute(lib, run)
            return _finish(lib, run, outcome, output, host.notices)
        finally:
            lib.tconv_run_free(run)


def _execute(lib, run):
    """Runs the conversion on a thread of its own, so that Ctrl-C reaches Python and stops it."""
    box = {}

    def work():
        box["outcome"] = lib.tconv_run_execute(run)

    t = threading.Thread(target=work, name="tconv-run", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.1)
    except KeyboardInterrupt:
        lib.tconv_run_interrupt(run)
        t.join()
        raise
    return box["outcome"]


def _finish(lib, run, outcome, output, notices):
    ctx = lib.tconv_run_ctx(run)
    st = _lib.RunStats()
    st.struct_size = ctypes.sizeof(st)
    lib.tconv_run_get_stats(run, ctypes.byref(st))
    warnings = {}
    kind, first, count = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_uint64()
    i = 0
    while lib.tconv_warning_get(ctx, i, ctypes.byref(kind), ctypes.byref(first),
                                ctypes.byref(count)) == 0:
        k = _text(kind.value)
        warnings[k] = Warning(k, count.value, _text(first.value))
        i += 1
    name = _OUTCOMES.get(outcome, str(outcome))
    result = Result(output=output, outcome=name, events=st.events, inputs=st.inputs,
                    bytes_read=st.bytes_read, bytes_plain=st.bytes_plain, seconds=st.seconds,
                    inputs_failed=st.inputs_failed, warnings=warnings,
                    notes=[t for lv, t in notices if lv in ("note", "info")],
                    notices=list(notices))
    if name == "done":
        return result
    n = ctypes.c_size_t()
    chain_p = lib.tconv_error_chain(ctx, ctypes.byref(n))
    chain = [_text(chain_p[j]) for j in range(n.value)] if n.value else []
    if name == "interrupted":
        raise KeyboardInterrupt
    message = chain[0] if chain else "conversion failed (no reason was given)"
    raise Error(message, chain or [message], _text(lib.tconv_error_hint_get(ctx)), name,
                result if name == "partial" else None)
