"""c3advisor.torch: runs a GEMM + collective pair in PyTorch the way c3advisor advised.

Import it only where torch is installed (`import c3advisor` never imports torch). The
advice's settings (docs/capi.md, "Settings") become PyTorch objects:

| setting | PyTorch |
|---|---|
| nccl.max_ctas / min_ctas | a NCCL process group made with ProcessGroupNCCL.Options().config.max_ctas / min_ctas, one per budget (cached) |
| green_contexts (only when a partition is advised) | torch.cuda.green_contexts.GreenContext.create(sms, device) for the GEMM, and for the collective when it is on SMs (cached per SM count) |
| overlap / prefetch (launch order) | two CUDA streams; the collective's launched first when prefetch, the GEMM's first otherwise; one stream, collective then GEMM, when neither |
| copy_engine | the shipped copy-engine collectives, `torch_symm_pull` (c3advisor/_torch_symm.py), whatever implementation the profile was calibrated with: the run says so (PairRun.copy_engine_note) when it is another one; profile h200x2-torch is calibrated on torch_symm_pull |
| chunks (dependent pairs) | Executor.run_dependent: the decomposed schedule of docs/model.md §7.1 on the two streams, ordered by events (c3advisor/_dependent.py lists its launches) |

It never changes clocks, power or NVLink multicast. docs/frameworks.md is the guide.

    import c3advisor, c3advisor.torch as c3t
    advice = c3advisor.Advisor("h200x2").advise(gemm=(m, n, k), collective="all_gather",
                                                size=out.numel() * out.element_size(), ranks=2,
                                                layout="row_major")  # torch tensors: row-major
    executor = c3t.Executor()                  # after dist.init_process_group("nccl")
    run = executor.run_pair(advice, gemm=lambda: torch.matmul(a, b, out=c),
                            collective=c3t.AllGather(out, shard))
    # a dependent pair (advise(..., dependency="collective_feeds_gemm")): y = all_gather(shard) @ w
    y, run = executor.run_dependent(advice, "collective_feeds_gemm", shard, w, y)
"""
import warnings
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Optional, Tuple, Union

import torch
import torch.distributed as dist

from ._dependent import DependentLaunch, check_dependent, dependent_launches
from ._torch_symm import NAME as COPY_ENGINE_IMPLEMENTATION
from ._torch_symm import CopyEngineCollectives, SymmetricBuffer
from .advisor import Advice, GreenContexts, NcclSettings, Settings
from .settings import settings_from_json

__all__ = ["AllGather", "AllToAll", "COPY_ENGINE_IMPLEMENTATION", "CopyEngineCollectives",
           "DependentLaunch", "DependentRun", "Executor", "PairRun", "SymmetricBuffer", "settings_from_json", "settings_of"]


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


@dataclass(frozen=True)
class DependentRun:
    """What run_dependent enqueued: the schedule (every launch of this rank, in issue
    order, with its stream and rows), the transport and the objects used."""
    dependency: str                    # "collective_feeds_gemm" or "gemm_feeds_collective"
    collective: str                    # "all_gather" or "reduce_scatter"
    chunks: int                        # 1: serial, in the dependency's order
    steps: int                         # chunks / ranks (1 when serial)
    transport: str                     # "nccl" or "copy_engine"
    nccl: Optional[NcclSettings]
    green_contexts: Optional[GreenContexts]
    copy_engine: Optional[str]
    copy_engine_note: str
    launches: Tuple[DependentLaunch, ...]


def settings_of(advice: Union[Advice, Settings, dict, str]) -> Settings:
    """The Settings of an Advice, a Settings, or an advise --json document (dict or text)."""
    if isinstance(advice, Settings):
        return advice
    if isinstance(advice, Advice):
        return advice.settings
    return settings_from_json(advice)


def _check(settings: Settings, dependent: bool = False):
    if settings.launch_order not in ("serial", "gemm_first", "collective_first"):
        raise ValueError("unknown launch_order %r" % settings.launch_order)
    if settings.chunks < 1:
        raise ValueError("chunks must be at least 1, not %d" % settings.chunks)
    if settings.chunks != 1 and not dependent:
        raise NotImplementedError("a decomposed schedule (chunks=%d) is advised for dependent pairs: "
                                  "run it with Executor.run_dependent" % settings.chunks)
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


def _other_implementation_note(advised: str) -> str:
    """What a run says when the advice names a copy-engine implementation other than the shipped one."""
    return ("the advice's copy_engine is %r (what its profile was calibrated with); ran the shipped %s "
            "(a profile calibrated on it prices what runs: h200x2-torch, docs/calibration.md)"
            % (advised, COPY_ENGINE_IMPLEMENTATION))


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
            _check(s, dependent=True)
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
                note = _other_implementation_note(s.copy_engine)
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

    def _copy_engine_note(self, s: Settings) -> str:
        if s.copy_engine is None or s.copy_engine == COPY_ENGINE_IMPLEMENTATION:
            return ""
        note = _other_implementation_note(s.copy_engine)
        if note not in self._notes:
            self._notes.add(note)
            warnings.warn("c3advisor.torch: " + note, stacklevel=4)
        return note

    def run_dependent(self, advice: Union[Advice, Settings, dict, str], dependency: str,
                      a: torch.Tensor, b: torch.Tensor, out: torch.Tensor,
                      collective: Optional[str] = None) -> Tuple[torch.Tensor, DependentRun]:
        """Runs a dependent pair under the advice (its `chunks`, transport, CTA budget and
        green contexts; docs/model.md §7.1), after the current stream's work; on return
        the current stream waits for all of it. Nothing waits on the host.

        collective_feeds_gemm (all_gather -> matmul): `a` is this rank's shard of A
        (m/R x k rows, row-major), `b` is k x n, `out` (m x n) receives the gathered A @ b.
        gemm_feeds_collective (matmul -> reduce_scatter): `a` is this rank's A (m x k),
        `out` (m/R x n) receives this rank's rows of the reduce-scattered sum of every
        rank's a @ b: exactly what reduce_scatter_tensor(out, a @ b) gives.
        `collective` defaults to the dependency's all_gather / reduce_scatter; all_to_all
        raises NotImplementedError. Returns (out, DependentRun).
        Raises ValueError: shapes that do not make the pair, chunks not 1 and not a
        multiple of the ranks or not dividing m, copy engines advised for a reduction."""
        s = settings_of(advice)
        _check(s, dependent=True)
        kind = collective or {"collective_feeds_gemm": "all_gather",
                              "gemm_feeds_collective": "reduce_scatter"}.get(dependency, "")
        ranks, rank = dist.get_world_size(self.group), dist.get_rank(self.group)
        m = self._dependent_m(dependency, a, b, out, ranks)
        check_dependent(dependency, kind, m, ranks, s.chunks)
        if s.copy_engine is not None and kind == "reduce_scatter":
            raise ValueError("copy engines cannot reduce: a reduce_scatter needs NCCL settings, "
                             "not copy_engine %r" % s.copy_engine)
        launches = dependent_launches(dependency, kind, m, ranks, rank, s.chunks,
                                      collective_first=s.prefetch or not s.overlap)
        note = self._copy_engine_note(s)
        transport = "copy_engine" if s.copy_engine is not None else "nccl"
        run = DependentRun(dependency, kind, s.chunks, 1 if s.chunks == 1 else s.chunks // ranks, transport,
                           s.nccl, s.green_contexts,
                           COPY_ENGINE_IMPLEMENTATION if s.copy_engine is not None else None, note,
                           tuple(launches))
        self._run_launches(s, launches, a, b, out, m, ranks, rank)
        return out, run

    @staticmethod
    def _dependent_m(dependency: str, a, b, out, ranks: int) -> int:
        """m of the pair from the operands' shapes; ValueError when they do not make one."""
        shapes = tuple(tuple(t.shape) for t in (a, b, out))
        if any(len(sh) != 2 for sh in shapes):
            raise ValueError("a, b and out must be matrices (2-D), not shapes %s" % (shapes,))
        (a_rows, k), (k_b, n), (out_rows, n_out) = shapes
        if k != k_b or n != n_out:
            raise ValueError("a %s @ b %s does not give out's %d columns" % (shapes[0], shapes[1], n_out))
        if dependency == "collective_feeds_gemm":
            if out_rows != a_rows * ranks:
                raise ValueError("collective_feeds_gemm: out must have the %d ranks' shards' rows "
                                 "(%d x %d = %d), not %d" % (ranks, ranks, a_rows, ranks * a_rows, out_rows))
            return out_rows
        if dependency == "gemm_feeds_collective" and a_rows != out_rows * ranks:
            raise ValueError("gemm_feeds_collective: out must have a's rows over the %d ranks "
                             "(%d / %d), not %d" % (ranks, a_rows, ranks, out_rows))
        return a_rows

    def _run_launches(self, s: Settings, launches, a, b, out, m: int, ranks: int, rank: int):
        main = torch.cuda.current_stream(self.device)
        block = m // ranks
        gather = any(l.op == "all_gather" for l in launches)
        serial = s.chunks == 1
        if s.copy_engine is not None:
            ce = self.copy_engine
            all_gather = ce.all_gather_into_tensor
        else:
            pg = self.process_group(s.nccl)
            all_gather = lambda o, i: dist.all_gather_into_tensor(o, i, group=pg)
            reduce_scatter = lambda o, i: dist.reduce_scatter_tensor(o, i, group=pg)
        # collective_feeds_gemm: the gathered pieces, step s's in rows [s R piece, (s+1) R piece)
        # (rank p's at + p piece); gemm_feeds_collective: the GEMM's output C, staged alike.
        width = a.shape[1] if gather else b.shape[1]
        staged = torch.empty((m, width), dtype=a.dtype if gather else out.dtype, device=self.device)
        piece = block if serial else m // s.chunks

        def step_rows(step):  # the staged rows of one step: R pieces
            return staged.narrow(0, step * ranks * piece, ranks * piece)

        def launch(l: DependentLaunch):
            if l.op == "all_gather":
                first, rows = l.rows[rank]  # this rank's piece of the step
                all_gather(step_rows(l.step) if not serial else staged, a.narrow(0, first - rank * block, rows))
            elif l.op == "reduce_scatter":
                first, rows = l.out_rows[0]
                reduce_scatter(out.narrow(0, first, rows), step_rows(l.step) if not serial else staged)
            elif serial:
                if gather:
                    torch.matmul(staged, b, out=out)
                else:
                    torch.matmul(a, b, out=staged)
            elif gather:
                (first, rows), = l.rows
                src = a if l.step < 0 else step_rows(l.step).narrow(0, (first // block) * piece, piece)
                torch.matmul(src, b, out=out.narrow(0, first, rows))
            else:  # the step's piece of every rank's block, as one (R, piece, k) strided batch
                step = l.rows[0][0] // piece
                src = a.unflatten(0, (ranks, block)).narrow(1, step * piece, piece)
                torch.matmul(src, b, out=step_rows(step).unflatten(0, (ranks, piece)))

        if serial:  # the undecomposed pair, in the dependency's order, on the current stream
            for l in launches:
                launch(l)
            return
        green = s.green_contexts
        parts = {"gemm": self.partition(green.gemm_sms) if green else None,
                 "collective": self.partition(green.collective_sms) if green and green.collective_sms else None}
        streams = {"gemm": self.gemm_stream, "collective": self.collective_stream}
        for stream in streams.values():
            stream.wait_stream(main)
        # collective_feeds_gemm: event s after step s, which the matmuls of its pieces wait for;
        # gemm_feeds_collective: event s after the matmul of step s, which step s waits for.
        events = {}
        for l in launches:
            stream = streams[l.stream]
            producer = l.op == ("all_gather" if gather else "matmul")
            step = l.step if l.op != "matmul" or gather else l.rows[0][0] // piece
            if not producer and step >= 0:
                stream.wait_event(events[step])
            if parts[l.stream] is not None:
                parts[l.stream].launch(stream, lambda l=l: launch(l))
            else:
                with torch.cuda.stream(stream):
                    launch(l)
            if producer:
                events[step] = torch.cuda.Event()
                events[step].record(stream)
        for t in (a, b, out, staged):
            for stream in streams.values():
                t.record_stream(stream)
        main.wait_stream(self.collective_stream)
        main.wait_stream(self.gemm_stream)
