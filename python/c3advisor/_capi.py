"""ctypes declarations of include/c3advisor.h and the loading of libc3advisor.so.

Kept in step with the header by hand: the structs below are those of
C3ADVISOR_API_VERSION 4, and load() refuses a library of another version.
"""
import ctypes
import ctypes.util
import os
from pathlib import Path

API_VERSION = 4
NAME_SIZE = 64
LIBRARY_NAMES = ("libc3advisor.so.%d" % API_VERSION, "libc3advisor.so")

# c3a_status
OK = 0
ERR_NULL_ARGUMENT = 1
ERR_INVALID_ARGUMENT = 2
ERR_PROFILE_NOT_FOUND = 3
ERR_BAD_FILE = 4
ERR_OUT_OF_DOMAIN = 5
ERR_NOT_IMPLEMENTED = 6
ERR_BUFFER_TOO_SMALL = 7
ERR_INTERNAL = 8

ORDERS = ("serial", "gemm_first", "collective_first")  # c3a_launch_order
TRANSPORTS = ("nccl", "copy_engine")                   # c3a_transport


class Pair(ctypes.Structure):
    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
                ("dtype", ctypes.c_char_p), ("collective", ctypes.c_char_p),
                ("size_bytes", ctypes.c_int64), ("ranks", ctypes.c_int),
                ("gemm_class", ctypes.c_char_p), ("dependency", ctypes.c_char_p),
                ("tile_m", ctypes.c_int), ("tile_n", ctypes.c_int), ("split_k", ctypes.c_int),
                ("chained", ctypes.c_int), ("layout", ctypes.c_char_p)]


class Settings(ctypes.Structure):
    _fields_ = [("nccl_max_ctas", ctypes.c_int), ("nccl_min_ctas", ctypes.c_int),
                ("green_context", ctypes.c_int), ("green_gemm_sms", ctypes.c_int),
                ("green_collective_sms", ctypes.c_int), ("overlap", ctypes.c_int),
                ("prefetch", ctypes.c_int), ("copy_engine", ctypes.c_char * NAME_SIZE)]


class Advice(ctypes.Structure):
    _fields_ = [("strategy", ctypes.c_char * NAME_SIZE), ("kind", ctypes.c_char * NAME_SIZE),
                ("order", ctypes.c_int), ("transport", ctypes.c_int),
                ("collective_sms", ctypes.c_int), ("collective_ctas", ctypes.c_int),
                ("gemm_sms", ctypes.c_int), ("chunks", ctypes.c_int),
                ("predicted_s", ctypes.c_double), ("serial_s", ctypes.c_double),
                ("speedup", ctypes.c_double), ("runner_up", ctypes.c_char * NAME_SIZE),
                ("runner_up_s", ctypes.c_double), ("strategy_count", ctypes.c_int),
                ("warning_count", ctypes.c_int), ("settings", Settings)]


class PlanTotals(ctypes.Structure):
    _fields_ = [("entries", ctypes.c_int), ("advised_s", ctypes.c_double),
                ("serial_s", ctypes.c_double), ("base_s", ctypes.c_double),
                ("warning_count", ctypes.c_int)]


class ProfileInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * NAME_SIZE), ("gpu", ctypes.c_char * NAME_SIZE),
                ("gpu_count", ctypes.c_int), ("compute_units", ctypes.c_int)]


def _candidates():
    """Where libc3advisor.so is looked for, in order (docs/python.md)."""
    here = Path(__file__).resolve().parent
    out = [here / name for name in LIBRARY_NAMES]  # beside the package (build tree, wheels)
    try:  # the installed layout: written by `cmake --install` (python/CMakeLists.txt)
        from ._location import LIBRARY_DIR
        out += [(here / LIBRARY_DIR / name) for name in LIBRARY_NAMES]
    except ImportError:
        pass
    return out


def find_library():
    env = os.environ.get("C3ADVISOR_LIBRARY")
    if env:
        if not Path(env).is_file():
            raise OSError("C3ADVISOR_LIBRARY=%s: no such file" % env)
        return env
    for path in _candidates():
        if path.is_file():
            return str(path)
    system = ctypes.util.find_library("c3advisor")
    if system:
        return system
    raise OSError("libc3advisor.so not found: set C3ADVISOR_LIBRARY, or install c3advisor "
                  "(cmake --install), or use the build tree's python/ folder; looked in "
                  + ", ".join(str(p) for p in _candidates()))


def _declare(lib):
    status = ctypes.c_int
    advisor_p = ctypes.c_void_p
    size_p = ctypes.POINTER(ctypes.c_size_t)
    sigs = {
        "c3a_version": (ctypes.c_int, []),
        "c3a_library_version": (ctypes.c_char_p, []),
        "c3a_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        "c3a_last_error": (ctypes.c_char_p, []),
        "c3a_parse_size": (status, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64)]),
        "c3a_embedded_profiles": (status, [ctypes.c_char_p, ctypes.c_size_t, size_p]),
        "c3a_advisor_create": (status, [ctypes.c_char_p, ctypes.POINTER(advisor_p)]),
        "c3a_advisor_destroy": (None, [advisor_p]),
        "c3a_advisor_profile": (status, [advisor_p, ctypes.POINTER(ProfileInfo)]),
        "c3a_advise": (status, [advisor_p, ctypes.POINTER(Pair), ctypes.POINTER(Advice)]),
        "c3a_advise_json": (status, [advisor_p, ctypes.POINTER(Pair), ctypes.c_char_p,
                                     ctypes.c_size_t, size_p]),
        "c3a_advise_warnings": (status, [advisor_p, ctypes.POINTER(Pair), ctypes.c_char_p,
                                         ctypes.c_size_t, size_p]),
        "c3a_plan_file": (status, [advisor_p, ctypes.c_char_p, ctypes.POINTER(PlanTotals),
                                   ctypes.c_char_p, ctypes.c_size_t, size_p]),
        "c3a_plan_yaml": (status, [advisor_p, ctypes.c_char_p, ctypes.POINTER(PlanTotals),
                                   ctypes.c_char_p, ctypes.c_size_t, size_p]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


_lib = None


def lib():
    """The loaded library (loaded at first use, its API version checked)."""
    global _lib
    if _lib is None:
        path = find_library()
        loaded = _declare(ctypes.CDLL(path))
        version = loaded.c3a_version()
        if version != API_VERSION:
            raise OSError("%s has C API version %d; this package speaks version %d"
                          % (path, version, API_VERSION))
        _lib = loaded
    return _lib
