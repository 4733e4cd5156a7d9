"""Advisor: advice for GEMM + collective pairs and plans of training steps, over the C
API of libc3advisor.so (include/c3advisor.h). Results are frozen dataclasses."""
import ctypes
import json as _json
import operator
import os
from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

from . import _capi
from .errors import InvalidArgumentError, check

_JSON_BUFFER = 1 << 16  # bytes tried first; a larger document is fetched at its size


def _text(raw):
    return raw.decode("utf-8", "replace")


def _invalid(message):
    return InvalidArgumentError(message, "C3A_ERR_INVALID_ARGUMENT")


def _c_int(name, value, ctype, also=""):
    """`value` checked for the C integer type `ctype` (ctypes.c_int, ctypes.c_int64, ...)
    before it is handed to the library, which would otherwise get it silently truncated
    (ctypes keeps the low bits: 2**32 + 2 ranks arrive as 2). An int (anything with
    __index__, such as numpy's integers) but not a bool, in the type's range; else
    InvalidArgumentError naming `name`, the value and the range (`also`: what else the
    argument may be, for the message). The library still checks what the values mean."""
    bits, signed = 8 * ctypes.sizeof(ctype), ctype(-1).value == -1
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    c_name = "int" if ctype is ctypes.c_int else "%sint%d_t" % ("" if signed else "u", bits)
    try:
        if isinstance(value, bool):
            raise TypeError
        value = operator.index(value)
    except TypeError:
        raise _invalid("%s must be an int in [%d, %d]%s, not %r (%s)"
                       % (name, low, high, also, value, type(value).__name__)) from None
    if not low <= value <= high:
        raise _invalid("%s = %d is out of range: it must be in [%d, %d] (the C %s it is passed as)"
                       % (name, value, low, high, c_name))
    return value


def _c_text(name, value, optional=False, path=False):
    """`value` as the bytes of a C string (const char*): a str (`path`: or bytes or an
    os.PathLike, as os.fsencode takes them), without NUL (C would stop reading there);
    None only when `optional` (then None: NULL). Else InvalidArgumentError naming `name`."""
    if value is None and optional:
        return None
    try:
        if path:
            raw = os.fsencode(value)
        elif isinstance(value, str):
            raw = value.encode()
        else:
            raise TypeError
    except UnicodeError:
        raise _invalid("%s cannot be encoded for C (UTF-8): %r" % (name, value)) from None
    except TypeError:
        raise _invalid("%s must be a %s%s, not %r (%s)"
                       % (name, "str or path" if path else "str", " or None" if optional else "",
                          value, type(value).__name__)) from None
    if b"\0" in raw:
        raise _invalid("%s must not contain a NUL character: %r" % (name, value))
    return raw


def _fetch(call):
    """Runs call(buf, size, needed_p) and returns the text, growing the buffer once."""
    needed = ctypes.c_size_t(0)
    buf = ctypes.create_string_buffer(_JSON_BUFFER)
    status = call(buf, _JSON_BUFFER, ctypes.byref(needed))
    if status == _capi.ERR_BUFFER_TOO_SMALL:
        buf = ctypes.create_string_buffer(needed.value)
        status = call(buf, needed.value, ctypes.byref(needed))
    check(status)
    return _text(buf.value)


@dataclass(frozen=True)
class NcclSettings:
    """NCCL's CTA budget (ncclConfig_t maxCTAs / minCTAs; PyTorch's
    ProcessGroupNCCL.Options().config.max_ctas / min_ctas)."""
    max_ctas: int
    min_ctas: int


@dataclass(frozen=True)
class GreenContexts:
    """SM partitions (CUDA green contexts): the GEMM's SMs and the collective's (None when
    the collective runs on the copy engines)."""
    gemm_sms: int
    collective_sms: Optional[int]


@dataclass(frozen=True)
class Settings:
    """What a framework sets to run the pair as advised (docs/capi.md, "Settings"); the
    same as the "settings" object of `c3advisor advise --json`."""
    launch_order: str          # "serial", "gemm_first", "collective_first"
    overlap: bool              # run the two concurrently
    prefetch: bool             # issue the collective before the GEMM
    nccl: Optional[NcclSettings]               # None on copy engines
    green_contexts: Optional[GreenContexts]    # only when a partition is advised
    copy_engine: Optional[str]                 # the implementation, when on copy engines
    chunks: int


@dataclass(frozen=True)
class RunnerUp:
    strategy: str
    predicted_s: float


@dataclass(frozen=True)
class Advice:
    """The recommended strategy of one pair, its runner-up and its settings. `json` (the
    document of `c3advisor advise --json`) and `warnings` are fetched when first read."""
    strategy: str         # "sp", "rp:32", "dma"
    kind: str             # "serial", "base", "sp", "rp", "dma", "dma_rp"
    order: str            # "serial", "gemm_first", "collective_first"
    transport: str        # "nccl" or "copy_engine"
    collective_sms: int
    collective_ctas: int
    gemm_sms: int
    chunks: int
    predicted_s: float
    serial_s: float
    speedup: float
    runner_up: Optional[RunnerUp]
    strategy_count: int
    warning_count: int
    settings: Settings
    _advisor: "Advisor" = field(repr=False, compare=False, default=None)
    _pair: object = field(repr=False, compare=False, default=None)

    @property
    def json(self) -> str:
        cached = self.__dict__.get("_json")
        if cached is None:
            lib, handle, pair = _capi.lib(), self._advisor._handle, self._pair
            cached = _fetch(lambda b, n, p: lib.c3a_advise_json(handle, ctypes.byref(pair), b, n, p))
            object.__setattr__(self, "_json", cached)
        return cached

    @property
    def warnings(self) -> Tuple[str, ...]:
        if self.warning_count == 0:
            return ()
        cached = self.__dict__.get("_warnings")
        if cached is None:
            lib, handle, pair = _capi.lib(), self._advisor._handle, self._pair
            text = _fetch(lambda b, n, p: lib.c3a_advise_warnings(handle, ctypes.byref(pair), b, n, p))
            cached = tuple(text.splitlines())
            object.__setattr__(self, "_warnings", cached)
        return cached

    @property
    def reason(self) -> str:
        """The recommendation's one-sentence reason (from the JSON document)."""
        return _json.loads(self.json)["recommendation"]["reason"]


@dataclass(frozen=True)
class Plan:
    """A training step planned under the advice: totals and the document of
    `c3advisor plan --json`."""
    entries: int
    advised_s: float
    serial_s: float
    base_s: float
    warning_count: int
    json: str = field(repr=False)


@dataclass(frozen=True)
class Profile:
    name: str
    gpu: str
    gpu_count: int
    compute_units: int


def parse_size(size: Union[int, str]) -> int:
    """Bytes of a size: an int, or a string as the command line writes it ("64MiB",
    "3.25GiB", "1.5GB", "4096"). An int must fit the C API's int64_t (InvalidArgumentError)."""
    if isinstance(size, str):
        out = ctypes.c_int64(0)
        check(_capi.lib().c3a_parse_size(_c_text("size", size), ctypes.byref(out)))
        return out.value
    return _c_int("size", size, ctypes.c_int64, also=" or a string such as '64MiB'")


def embedded_profiles() -> Tuple[str, ...]:
    """Names of the profiles compiled into the library."""
    lib = _capi.lib()
    return tuple(_fetch(lambda b, n, p: lib.c3a_embedded_profiles(b, n, p)).split("\n"))


def _settings(s, launch_order: str, chunks: int) -> Settings:
    nccl = NcclSettings(s.nccl_max_ctas, s.nccl_min_ctas) if s.nccl_max_ctas > 0 else None
    green = None
    if s.green_context:
        green = GreenContexts(s.green_gemm_sms, s.green_collective_sms or None)
    copy_engine = _text(s.copy_engine) or None
    return Settings(launch_order=launch_order, overlap=bool(s.overlap), prefetch=bool(s.prefetch),
                    nccl=nccl, green_contexts=green, copy_engine=copy_engine, chunks=chunks)


class Advisor:
    """An advisor over one hardware profile: an embedded profile name ("h200x2",
    "mi300x"; see embedded_profiles()) or a profile YAML file. Thread-safe: one advisor
    may serve every thread."""

    def __init__(self, profile: Union[str, os.PathLike]):
        lib = _capi.lib()
        self._lib = lib
        self._handle = None
        handle = ctypes.c_void_p()
        check(lib.c3a_advisor_create(_c_text("profile", profile, path=True), ctypes.byref(handle)))
        self._handle = handle
        info = _capi.ProfileInfo()
        check(lib.c3a_advisor_profile(handle, ctypes.byref(info)))
        self.profile = Profile(_text(info.name), _text(info.gpu), info.gpu_count, info.compute_units)

    def close(self):
        """Frees the library's advisor (also done when the object is collected)."""
        if self._handle is not None:
            self._lib.c3a_advisor_destroy(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "Advisor(%r)" % self.profile.name

    def _live(self):
        if self._handle is None:
            raise _invalid("the advisor is closed")
        return self._handle

    def advise(self, gemm: Tuple[int, int, int], *, dtype: str = "bf16",
               collective: str = "all_gather", size: Union[int, str, None] = None,
               ranks: Optional[int] = None, dependency: str = "none",
               gemm_class: Optional[str] = None,
               gemm_tile: Optional[Tuple[int, ...]] = None, chained: bool = False,
               layout: Optional[str] = "tn") -> Advice:
        """Advice for running the GEMM C[m x n] = A[m x k] B[k x n] (`gemm` = (m, n, k),
        `dtype`) concurrently with the collective (`collective`: all_gather, all_to_all,
        reduce_scatter, all_reduce; `size` in bytes or as "64MiB", nccl-tests sizes) on
        `ranks` GPUs (None: the profile's GPU count). `dependency`: "none" (independent),
        "collective_feeds_gemm" (the all_gather / all_to_all output is A, m x k) or
        "gemm_feeds_collective" (the GEMM's output, m x n, is reduce_scattered /
        all_to_all'd); a dependent pair may leave `size` None (the operand's size) and is
        advised a decomposed schedule ("chunked:4:dma", `chunks`). `gemm_tile`: the GEMM's
        own kernel, (tile_m, tile_n) or (tile_m, tile_n, split_k), as cuBLASLt's heuristic
        names it for the shape (`advise --gemm-tile`); None: the profile's nearest measured
        shape. `chained`: the pair is issued in a prefetch chain, the previous pair still
        running (`advise --chained`, docs/model.md §4.6): no launch cost, and collective-first
        on the library's SMs runs GEMM-first; independent pairs only. `layout`: how the
        operands lie in memory, which decides their leading dimensions (docs/model.md §1.1):
        "tn" (cuBLAS column-major A^T B, what `c3advisor measure` runs) or "row_major"
        (PyTorch's x @ W: pass it for torch tensors); a leading dimension that is not a
        multiple of 16 bytes runs on slower kernels. Raises InvalidArgumentError,
        OutOfDomainError."""
        try:
            m, n, k = gemm
        except (TypeError, ValueError):
            raise _invalid("gemm must be (m, n, k), not %r" % (gemm,)) from None
        tile = (0, 0, 0)
        if gemm_tile is not None:
            try:
                tile = tuple(gemm_tile)
            except TypeError:
                tile = ()
            if len(tile) not in (2, 3):
                raise _invalid("gemm_tile must be (tile_m, tile_n) or (tile_m, tile_n, split_k), "
                               "not %r" % (gemm_tile,))
            tile = tuple(_c_int("gemm_tile " + name, v, ctypes.c_int)
                         for name, v in zip(("tile_m", "tile_n", "split_k"), tile + (1,)))
        # a bool; another int is the library's to refuse, with its own sentence
        chained = int(chained) if isinstance(chained, bool) else _c_int("chained", chained, ctypes.c_int,
                                                                        also=" or a bool")
        pair = _capi.Pair(_c_int("gemm m", m, ctypes.c_int64), _c_int("gemm n", n, ctypes.c_int64),
                          _c_int("gemm k", k, ctypes.c_int64), _c_text("dtype", dtype),
                          _c_text("collective", collective),
                          0 if size is None else parse_size(size),
                          0 if ranks is None else _c_int("ranks", ranks, ctypes.c_int),
                          _c_text("gemm_class", None if gemm_class == "" else gemm_class, optional=True),
                          _c_text("dependency", dependency, optional=True), *tile, chained,
                          _c_text("layout", layout, optional=True))
        out = _capi.Advice()
        check(self._lib.c3a_advise(self._live(), ctypes.byref(pair), ctypes.byref(out)))
        order = _capi.ORDERS[out.order]
        settings = _settings(out.settings, order, out.chunks)
        runner_up = RunnerUp(_text(out.runner_up), out.runner_up_s) if out.runner_up else None
        return Advice(_text(out.strategy), _text(out.kind), order, _capi.TRANSPORTS[out.transport],
                      out.collective_sms, out.collective_ctas, out.gemm_sms, out.chunks,
                      out.predicted_s, out.serial_s, out.speedup, runner_up, out.strategy_count,
                      out.warning_count, settings, self, pair)

    def plan(self, trace: Union[str, os.PathLike]) -> Plan:
        """Plans a trace (one training step, docs/formats.md): a YAML file path, or YAML
        text (a str with a newline). Raises BadFileError, OutOfDomainError."""
        lib, handle = self._lib, self._live()
        totals = _capi.PlanTotals()
        if isinstance(trace, str) and "\n" in trace:
            fn, arg = lib.c3a_plan_yaml, _c_text("trace", trace)
        else:
            fn, arg = lib.c3a_plan_file, _c_text("trace", trace, path=True)
        text = _fetch(lambda b, n, p: fn(handle, arg, ctypes.byref(totals), b, n, p))
        return Plan(totals.entries, totals.advised_s, totals.serial_s, totals.base_s,
                    totals.warning_count, text)
