"""The C library, found and described for ctypes.

libtconv is looked for, in this order: the file named by $TCONV_LIBRARY; the build tree this
package was installed from (recorded at install time, when it had one); the prefix pkg-config
knows for `tconv`; the system's library search (ctypes.util.find_library); ~/.local/lib. The
plugin folders that belong to the library found (a build tree's plugins/, an install's
lib/tconv/plugins) are passed to the host as extra folders, since the library's own search looks
next to the running executable, which here is python.

The structs below mirror include/tconv/host.h and plugin.h. Each struct the library reads starts
with its size, so a newer library reads only the fields this module knows; a field the library
appended later reads as zero here.
"""

import ctypes
import ctypes.util
import os
import shutil
import subprocess

c_char_p = ctypes.c_char_p
c_size_t = ctypes.c_size_t
c_void_p = ctypes.c_void_p


class HostHooks(ctypes.Structure):
    NOTICE = ctypes.CFUNCTYPE(None, c_void_p, ctypes.c_int, c_char_p)
    _fields_ = [
        ("struct_size", c_size_t),
        ("user", c_void_p),
        ("notice", NOTICE),
        ("progress", c_void_p),
    ]


class RunOpts(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("reader", c_char_p),
        ("writer", c_char_p),
        ("output", c_char_p),
        ("inputs", ctypes.POINTER(c_char_p)),
        ("ninputs", c_size_t),
        ("reader_options", ctypes.POINTER(c_char_p)),
        ("nreader_options", c_size_t),
        ("writer_options", ctypes.POINTER(c_char_p)),
        ("nwriter_options", c_size_t),
        ("force", ctypes.c_int),
        ("strict", ctypes.c_int),
        ("verbosity", ctypes.c_int),
        ("max_input_size", ctypes.c_uint64),
        ("all_spans", ctypes.c_int),
        ("window", c_char_p),
        ("steps", c_char_p),
        ("step_name", c_char_p),
        ("only_input", ctypes.c_int),
        ("input", ctypes.c_uint32),
        ("keep_going", ctypes.c_int),
        ("only_rank", ctypes.c_int),
        ("rank", ctypes.c_int64),
        ("jobs", ctypes.c_uint),
        ("jobs_memory", ctypes.c_uint64),
    ]


class RunStats(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("events", ctypes.c_uint64),
        ("bytes_read", ctypes.c_uint64),
        ("bytes_plain", ctypes.c_uint64),
        ("inputs", ctypes.c_uint32),
        ("seconds", ctypes.c_double),
        ("inputs_failed", ctypes.c_uint32),
    ]


class OptionDesc(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", ctypes.c_int),
        ("default_value", c_char_p),
        ("choices", c_char_p),
        ("help", c_char_p),
    ]


class ReaderClass(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("description", c_char_p),
        ("extensions", c_char_p),
        ("options", ctypes.POINTER(OptionDesc)),
        ("probe", c_void_p),
        ("read", c_void_p),
        ("flags", ctypes.c_uint32),
    ]


class WriterClass(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("description", c_char_p),
        ("options", ctypes.POINTER(OptionDesc)),
        ("accepts", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("open", c_void_p),
        ("event", c_void_p),
        ("finish", c_void_p),
        ("destroy", c_void_p),
        ("extensions", c_char_p),
        ("needs", c_void_p),
    ]


class PluginDesc(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("abi_major", ctypes.c_uint32),
        ("abi_minor", ctypes.c_uint32),
        ("name", c_char_p),
        ("version", c_char_p),
        ("description", c_char_p),
        ("readers", ctypes.POINTER(ctypes.POINTER(ReaderClass))),
        ("writers", ctypes.POINTER(ctypes.POINTER(WriterClass))),
    ]


def has_field(obj, field):
    """Does a class from a plugin built for an older ABI minor have this field (TCONV_CLASS_HAS)?"""
    f = getattr(type(obj), field)
    return obj.struct_size >= f.offset + f.size


def _recorded_build_library():
    try:
        from . import _where
    except ImportError:
        return None
    return getattr(_where, "LIBRARY", None)


def _pkg_config_library():
    if not shutil.which("pkg-config"):
        return None
    try:
        libdir = subprocess.run(
            ["pkg-config", "--variable=libdir", "tconv"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()
    except (subprocess.SubprocessError, OSError):
        return None
    return os.path.join(libdir, "libtconv.so.1") if libdir else None


def candidates():
    """Where libtconv may be, in the order tried, as (how it was found, path or name)."""
    found = []
    env = os.environ.get("TCONV_LIBRARY")
    if env:
        return [("$TCONV_LIBRARY", env)]
    for how, path in (("the build it was installed from", _recorded_build_library()),
                      ("pkg-config", _pkg_config_library())):
        if path:
            found.append((how, path))
    name = ctypes.util.find_library("tconv")
    if name:
        found.append(("the system's library path", name))
    found.append(("~/.local/lib", os.path.expanduser("~/.local/lib/libtconv.so.1")))
    return found


def plugin_dirs(lib_path):
    """The plugin folders that come with the library at lib_path."""
    d = os.path.dirname(os.path.realpath(lib_path))
    dirs = [os.path.join(d, "..", "plugins"), os.path.join(d, "tconv", "plugins"),
            os.path.join(d, "..", "lib", "tconv", "plugins")]
    return [os.path.normpath(p) for p in dirs if os.path.isdir(p)]


def executable(lib_path):
    """The tconv program that comes with the library (a build tree's or an install's)."""
    d = os.path.dirname(os.path.realpath(lib_path))
    for rel in ("../tconv", "../bin/tconv", "../../bin/tconv"):
        p = os.path.normpath(os.path.join(d, rel))
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which("tconv")


def _declare(lib):
    p = c_void_p
    sigs = {
        "tconv_host_new": (p, [ctypes.POINTER(HostHooks)]),
        "tconv_host_free": (None, [p]),
        "tconv_host_load_standard": (None, [p, ctypes.POINTER(c_char_p), c_size_t]),
        "tconv_host_plugin_count": (c_size_t, [p]),
        "tconv_host_plugin": (ctypes.POINTER(PluginDesc), [p, c_size_t, ctypes.POINTER(c_char_p)]),
        "tconv_run_new": (p, [p, ctypes.POINTER(RunOpts)]),
        "tconv_run_execute": (ctypes.c_int, [p]),
        "tconv_run_ctx": (p, [p]),
        "tconv_run_interrupt": (None, [p]),
        "tconv_run_get_stats": (None, [p, ctypes.POINTER(RunStats)]),
        "tconv_run_free": (None, [p]),
        "tconv_error_chain": (ctypes.POINTER(c_char_p), [p, ctypes.POINTER(c_size_t)]),
        "tconv_error_hint_get": (c_char_p, [p]),
        "tconv_warning_get": (ctypes.c_int, [p, c_size_t, ctypes.POINTER(c_char_p),
                                             ctypes.POINTER(c_char_p),
                                             ctypes.POINTER(ctypes.c_uint64)]),
        "tconv_version_string": (c_char_p, []),
        "tconv_version_abi": (None, [ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", c_char_p), ("dli_fbase", c_void_p), ("dli_sname", c_char_p),
                ("dli_saddr", c_void_p)]


def _library_path(lib):
    """The file the dynamic linker loaded lib from (a bare name resolves to a path only there)."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except (OSError, AttributeError):
        return None
    dladdr.argtypes = [c_void_p, ctypes.POINTER(_DlInfo)]
    info = _DlInfo()
    addr = ctypes.cast(lib.tconv_version_string, c_void_p)
    if not dladdr(addr, ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.fsdecode(info.dli_fname)


_loaded = None


def load():
    """The library, loaded once: (ctypes handle, its path)."""
    global _loaded
    if _loaded:
        return _loaded
    tried = []
    for how, path in candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({how}): {e}")
            continue
        real = _library_path(lib) or path
        _loaded = (_declare(lib), real)
        return _loaded
    from . import Error
    raise Error("cannot find libtconv: " + ("; ".join(tried) or "nothing to try"),
                hint="build tconv (README.md), then install it (cmake --install BUILD) or set "
                     "TCONV_LIBRARY to its libtconv.so.1")
