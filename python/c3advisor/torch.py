"""c3advisor.torch: runs a GEMM + collective pair in PyTorch the way c3advisor advised.

Import it only where torch is installed (`import c3advisor` never imports torch). The
advice's settings (docs/capi.md, "Settings") become PyTorch objects:

| setting | PyTorch |
|---|---|
| nccl.max_ctas / min_ctas | a NCCL process group made with ProcessGroupNCCL.Options().config.max_ctas / min_ctas, one per budget (cached) |
| green_contexts (only when a partition is advised) | torch.cuda.green_contexts.GreenContext.create(sms, device) for the GEMM, and for the collective when it is on SMs (cached per SM count) |
| overlap / prefetch (launch order) | two CUDA streams; the collective's launched first when prefetch, the GEMM's first otherwise; one stream, collective then GEMM, when neither |
| copy_engine | the shipped copy-engine collectives, `torch_symm_pull` (c3advisor/_torch_symm.py), whatever implementation the profile was calibrated with: the run says so (PairRun.copy_engine_note) |

It never changes clocks, power or NVLink multicast. docs/frameworks.md is the guide.

    import c3advisor, c3advisor.torch as c3t
    advice = c3advisor.Advisor("h200x2").advise(gemm=(m, n, k), collective="all_gather",
                                                size=out.numel() * out.element_size(), ranks=2)
    executor = c3t.Executor()                  # after dist.init_process_group("nccl")
    run = executor.run_pair(advice, gemm=lambda: torch.matmul(a, b, out=c),
                            collective=c3t.AllGather(out, shard))
"""
import warnings
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Optional, Tuple, Union

import torch
import torch.distributed as dist

from ._torch_symm import NAME as COPY_ENGINE_IMPLEMENTATION
from ._torch_symm import CopyEngineCollectives, SymmetricBuffer
from .advisor import Advice, GreenContexts, NcclSettings, Settings
from .settings import settings_from_json

__all__ = ["AllGather", "AllToAll", "COPY_ENGINE_IMPLEMENTATION", "CopyEngineCollectives",
           "Executor", "PairRun", "SymmetricBuffer", "settings_from_json", "settings_of"]


@dataclass(frozen=True)
class AllGather:
    """dist.all_gather_into_tensor(output, input): output holds world_size inputs."""
    output: torch.Tensor
    input: torch.Tensor


@dataclass(frozen=True)
class AllToAll:
    """dist.all_to_all_single(output, input) with equal splits."""
    output: torch.Tensor
    input: torch.Tensor


@dataclass(frozen=True)
class PairRun:
    """What run_pair enqueued: the launch order, the transport and the objects used."""
    launch_order: str                  # "serial", "gemm_first", "collective_first"
    transport: str                     # "nccl" or "copy_engine"
    nccl: Optional[NcclSettings]       # the budget of the process group used
    green_contexts: Optional[GreenContexts]
    copy_engine: Optional[str]         # the implementation run (torch_symm_pull)
    copy_engine_note: str              # set when the advice named another implementation


def settings_of(advice: Union[Advice, Settings, dict, str]) -> Settings:
    """The Settings of an Advice, a Settings, or an advise --json document (dict or text)."""
    if isinstance(advice, Settings):
        return advice
    if isinstance(advice, Advice):
        return advice.settings
    return settings_from_json(advice)


def _check(settings: Settings):
    if settings.launch_order not in ("serial", "gemm_first", "collective_first"):
        raise ValueError("unknown launch_order %r" % settings.launch_order)
    if settings.chunks != 1:
        raise NotImplementedError("decomposed schedules (chunks=%d) are not run yet" % settings.chunks)
    if settings.copy_engine is None and settings.nccl is None:
        raise ValueError("settings name neither a NCCL budget nor a copy-engine implementation")


class _Partition:
    """A green context of `sms` SMs and the way to launch into it: a stream of the context
    where PyTorch has GreenContext.Stream(), else set_context()/pop_context() around the
    launch (PyTorch 2.11: the context's default stream becomes current and waits for the
    stream that was current; pop_context makes that stream wait for it)."""

    def __init__(self, sms: int, device: torch.device):
        from torch.cuda import green_contexts
        self.sms = sms
        ctx_type = green_contexts.GreenContext
        self.ctx = ctx_type.create(sms, device.index) if hasattr(ctx_type, "create") else \
            ctx_type(num_sms=sms, device_id=device.index)
        self.stream = self.ctx.Stream() if hasattr(self.ctx, "Stream") else None

    def launch(self, parent: torch.cuda.Stream, fn: Callable[[], object]):
        """Runs fn in the partition after `parent`'s work; `parent` waits for it."""
        if self.stream is not None:
            self.stream.wait_stream(parent)
            with torch.cuda.stream(self.stream):
                fn()
            parent.wait_stream(self.stream)
            return
        with torch.cuda.stream(parent):
            self.ctx.set_context()
            try:
                fn()
            finally:
                self.ctx.pop_context()


class Executor:
    """Applies advice to GEMM + collective pairs of one rank. Create it after
    dist.init_process_group("nccl") and torch.cuda.set_device; `group` is the ranks of
    the collective (default: all). The process groups, green contexts and copy-engine
    buffers it makes are collective objects: every rank must meet the same advice in the
    same order (call prepare() with all of it first to make them up front)."""

    def __init__(self, group=None, device=None):
        if not dist.is_initialized():
            raise RuntimeError("c3advisor.torch.Executor needs dist.init_process_group('nccl') first")
        self.device = torch.device(device) if device is not None else torch.device("cuda", torch.cuda.current_device())
        self.group = group
        self.ranks = None if group is None else dist.get_process_group_ranks(group)
        self._groups: Dict[Tuple[int, int], object] = {}
        self._partitions: Dict[int, _Partition] = {}
        self._ce: Optional[CopyEngineCollectives] = None
        self.gemm_stream = torch.cuda.Stream(self.device)
        self.collective_stream = torch.cuda.Stream(self.device)
        self._notes = set()

    def process_group(self, nccl: NcclSettings):
        """A NCCL process group over this executor's ranks with the CTA budget (cached)."""
        key = (nccl.max_ctas, nccl.min_ctas)
        pg = self._groups.get(key)
        if pg is None:
            opts = dist.ProcessGroupNCCL.Options()
            opts.config.max_ctas = nccl.max_ctas
            opts.config.min_ctas = nccl.min_ctas
            pg = dist.new_group(ranks=self.ranks, backend="nccl", pg_options=opts)
            self._groups[key] = pg
        return pg

    def partition(self, sms: int) -> _Partition:
        """A green context of `sms` SMs on this GPU (cached)."""
        part = self._partitions.get(sms)
        if part is None:
            part = _Partition(sms, self.device)
            self._partitions[sms] = part
        return part

    @property
    def copy_engine(self) -> CopyEngineCollectives:
        """The shipped copy-engine collectives (torch_symm_pull) over this executor's ranks."""
        if self._ce is None:
            self._ce = CopyEngineCollectives(self.group, self.device)
        return self._ce

    def prepare(self, advice: Iterable[Union[Advice, Settings, dict, str]]):
        """Makes every process group, green context and the copy-engine collectives the
        advice needs, in a fixed order (so that every rank makes them alike)."""
        all_settings = [settings_of(a) for a in advice]
        for s in all_settings:
            _check(s)
        for key in sorted({(s.nccl.max_ctas, s.nccl.min_ctas) for s in all_settings if s.nccl}):
            self.process_group(NcclSettings(*key))
        for s in all_settings:
            g = s.green_contexts
            if g is not None:
                self.partition(g.gemm_sms)
                if g.collective_sms:
                    self.partition(g.collective_sms)
        if any(s.copy_engine is not None for s in all_settings):
            _ = self.copy_engine

    def _collective_launcher(self, s: Settings, collective) -> Tuple[Callable[[], object], str]:
        if not isinstance(collective, (AllGather, AllToAll)):
            raise TypeError("collective must be AllGather or AllToAll, not %r" % type(collective).__name__)
        gather = isinstance(collective, AllGather)
        if s.copy_engine is not None:
            ce = self.copy_engine
            fn = ce.all_gather_into_tensor if gather else ce.all_to_all_single
            note = ""
            if s.copy_engine != COPY_ENGINE_IMPLEMENTATION:
                note = ("the advice's copy_engine is %r (what its profile was calibrated with); "
                        "ran the shipped %s" % (s.copy_engine, COPY_ENGINE_IMPLEMENTATION))
                if note not in self._notes:
                    self._notes.add(note)
                    warnings.warn("c3advisor.torch: " + note, stacklevel=3)
            return (lambda: fn(collective.output, collective.input)), note
        pg = self.process_group(s.nccl)
        if gather:
            # async_op=False: enqueued on the current stream (PyTorch >= 2.8) or on the
            # group's stream, which the current stream then waits for; no host wait either way.
            return (lambda: dist.all_gather_into_tensor(collective.output, collective.input, group=pg)), ""
        return (lambda: dist.all_to_all_single(collective.output, collective.input, group=pg)), ""

    def run_pair(self, advice: Union[Advice, Settings, dict, str], gemm: Callable[[], object],
                 collective: Union[AllGather, AllToAll]) -> PairRun:
        """Enqueues the GEMM (`gemm()`, which launches it on the current stream) and the
        collective under the advice, after the current stream's work; on return the
        current stream waits for both. Nothing waits on the host. The tensors must stay
        alive until the current stream has passed this point (as for any async op)."""
        s = settings_of(advice)
        _check(s)
        main = torch.cuda.current_stream(self.device)
        launch_collective, note = self._collective_launcher(s, collective)
        transport = "copy_engine" if s.copy_engine is not None else "nccl"
        run = PairRun(s.launch_order, transport, s.nccl, s.green_contexts,
                      COPY_ENGINE_IMPLEMENTATION if s.copy_engine is not None else None, note)
        if not s.overlap:  # serial: one after the other on the current stream
            launch_collective()
            gemm()
            return run
        green = s.green_contexts
        gemm_part = self.partition(green.gemm_sms) if green else None
        coll_part = self.partition(green.collective_sms) if green and green.collective_sms else None

        def start(stream, part, fn):
            stream.wait_stream(main)
            if part is not None:
                part.launch(stream, fn)
            else:
                with torch.cuda.stream(stream):
                    fn()

        launches = [(self.collective_stream, coll_part, launch_collective), (self.gemm_stream, gemm_part, gemm)]
        if not s.prefetch:
            launches.reverse()
        for stream, part, fn in launches:
            start(stream, part, fn)
        for t in (collective.output, collective.input):
            t.record_stream(self.collective_stream)
        main.wait_stream(self.collective_stream)
        main.wait_stream(self.gemm_stream)
        return run
