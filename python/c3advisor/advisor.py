"""Advisor: advice for GEMM + collective pairs and plans of training steps, over the C
API of libc3advisor.so (include/c3advisor.h). Results are frozen dataclasses."""
import ctypes
import json as _json
import os
from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

from . import _capi
from .errors import InvalidArgumentError, check

_JSON_BUFFER = 1 << 16  # bytes tried first; a larger document is fetched at its size


def _text(raw):
    return raw.decode("utf-8", "replace")


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
    "3.25GiB", "1.5GB", "4096")."""
    if isinstance(size, bool):
        raise InvalidArgumentError("size must be bytes or a string such as '64MiB', not a bool")
    if isinstance(size, int):
        return size
    if not isinstance(size, str):
        raise InvalidArgumentError("size must be bytes or a string such as '64MiB', not %r" % (size,))
    out = ctypes.c_int64(0)
    check(_capi.lib().c3a_parse_size(size.encode(), ctypes.byref(out)))
    return out.value


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
        check(lib.c3a_advisor_create(os.fsencode(profile), ctypes.byref(handle)))
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
            raise InvalidArgumentError("the advisor is closed")
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
            raise InvalidArgumentError("gemm must be (m, n, k), not %r" % (gemm,)) from None
        tile = (0, 0, 0)
        if gemm_tile is not None:
            try:
                tile = tuple(int(v) for v in gemm_tile) + ((1,) if len(gemm_tile) == 2 else ())
            except (TypeError, ValueError):
                tile = ()
            if len(tile) != 3:
                raise InvalidArgumentError("gemm_tile must be (tile_m, tile_n) or (tile_m, tile_n, split_k), "
                                           "not %r" % (gemm_tile,))
        if not isinstance(chained, int):  # a bool; another int is the library's to refuse
            raise InvalidArgumentError("chained must be True or False, not %r" % (chained,))
        if layout is not None and (not isinstance(layout, str) or "\0" in layout):
            raise InvalidArgumentError("layout must be \"tn\" or \"row_major\" (None: \"tn\"), not %r" % (layout,))
        pair = _capi.Pair(int(m), int(n), int(k), dtype.encode(), collective.encode(),
                          0 if size is None else parse_size(size), 0 if ranks is None else int(ranks),
                          gemm_class.encode() if gemm_class else None,
                          dependency.encode() if dependency is not None else None, *tile, int(chained),
                          layout.encode() if layout is not None else None)
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
            fn, arg = lib.c3a_plan_yaml, trace.encode()
        else:
            fn, arg = lib.c3a_plan_file, os.fsencode(trace)
        text = _fetch(lambda b, n, p: fn(handle, arg, ctypes.byref(totals), b, n, p))
        return Plan(totals.entries, totals.advised_s, totals.serial_s, totals.base_s,
                    totals.warning_count, text)
