"""torch_symm_pull: all-gather and all-to-all on the GPUs' copy engines, for one process
per GPU, over PyTorch symmetric memory (torch.distributed._symmetric_memory).

Each rank's input lives in (or is first copied into) a symmetric buffer that every peer
has mapped; after a barrier, each rank pulls every peer's piece with Tensor.copy_ from
the peer's mapping: a contiguous same-dtype device copy, which PyTorch issues as one
cudaMemcpyAsync, and which the driver runs on a copy engine over NVLink. No SM moves
data; the only kernels are the two barriers (one small CTA each: a signal to every
peer and a wait for theirs), before the pulls (every input is written) and after them
(every peer has finished reading, so the inputs may be rewritten).

Imported by c3advisor.torch; needs torch with CUDA and an initialized process group.
Never uses NVLink multicast (set TORCH_SYMM_MEM_DISABLE_MULTICAST=1 where it is off).
docs/frameworks.md describes it and its measured bandwidth."""
import warnings
from typing import Dict, List, Optional, Tuple

import torch
import torch.distributed as dist

NAME = "torch_symm_pull"


def _symm_mem():
    try:
        import torch.distributed._symmetric_memory as symm_mem
    except ImportError as e:  # torch without distributed or symmetric memory
        raise RuntimeError("%s needs torch.distributed._symmetric_memory (PyTorch 2.5 or later "
                           "built with CUDA): %s" % (NAME, e)) from None
    return symm_mem


def enable_group(symm_mem, group_name: str):
    """symm_mem.enable_symm_mem_for_group(group_name) where PyTorch still has it: needed
    before PyTorch 2.8, deprecated later (a no-op whose FutureWarning is silenced here)."""
    enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
    if enable is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            enable(group_name)


def pull_plan(kind: str, rank: int, world_size: int, offset: int, numel: int) -> List[Tuple[int, int, int, int]]:
    """The copies one rank issues, in issue order (peers from rank + 1 on, its own piece
    last): (source rank, offset in the source's buffer, offset in the output, elements).
    all_gather: `numel` elements at `offset` of every rank, in rank order.
    all_to_all: `numel` = the send buffer at `offset`; chunk `rank` of every rank's."""
    if world_size < 1 or not 0 <= rank < world_size or numel <= 0 or offset < 0:
        raise ValueError("%s: bad rank %d of %d, offset %d, numel %d" % (NAME, rank, world_size, offset, numel))
    if kind == "all_gather":
        piece = lambda src: (src, offset, src * numel, numel)
    elif kind == "all_to_all":
        if numel % world_size:
            raise ValueError("%s all_to_all: %d elements do not split into %d chunks" % (NAME, numel, world_size))
        chunk = numel // world_size
        piece = lambda src: (src, offset + rank * chunk, src * chunk, chunk)
    else:
        raise ValueError("%s: no collective %r (all_gather, all_to_all)" % (NAME, kind))
    return [piece((rank + i) % world_size) for i in range(1, world_size + 1)]


def _group_name(group) -> str:
    group = group if group is not None else dist.group.WORLD
    return group.group_name


class SymmetricBuffer:
    """`numel` elements of `dtype` in symmetric memory on this rank's GPU, mapped by every
    rank of `group`. Collective: every rank creates its buffers in the same order with
    the same sizes. `tensor` is this rank's part; write inputs into views of it to save
    the copy into a staging buffer."""

    def __init__(self, numel: int, dtype: torch.dtype, device=None, group=None):
        if numel <= 0:
            raise ValueError("%s: a symmetric buffer needs numel > 0, not %d" % (NAME, numel))
        symm_mem = _symm_mem()
        device = torch.device(device) if device is not None else torch.device("cuda", torch.cuda.current_device())
        name = _group_name(group)
        enable_group(symm_mem, name)
        self.numel = int(numel)
        self.dtype = dtype
        self.device = device
        self.tensor = symm_mem.empty(self.numel, dtype=dtype, device=device)
        self.handle = symm_mem.rendezvous(self.tensor, name)
        self.rank = self.handle.rank
        self.world_size = self.handle.world_size
        self._peer_views: Dict[Tuple[int, int, int], torch.Tensor] = {}

    def contains(self, t: torch.Tensor) -> bool:
        """Whether t is a contiguous piece of this rank's part."""
        if t.dtype != self.dtype or t.device != self.device or not t.is_contiguous():
            return False
        base, size = self.tensor.data_ptr(), t.element_size()
        return base <= t.data_ptr() and t.data_ptr() + t.numel() * size <= base + self.numel * size

    def offset_of(self, t: torch.Tensor) -> int:
        return (t.data_ptr() - self.tensor.data_ptr()) // t.element_size()

    def peer(self, rank: int, offset: int, numel: int) -> torch.Tensor:
        """Rank `rank`'s elements [offset, offset + numel), mapped into this process."""
        key = (rank, offset, numel)
        view = self._peer_views.get(key)
        if view is None:
            if offset < 0 or offset + numel > self.numel:
                raise ValueError("%s: elements [%d, %d) outside a buffer of %d" %
                                 (NAME, offset, offset + numel, self.numel))
            view = self.handle.get_buffer(rank, (numel,), self.dtype, offset)
            self._peer_views[key] = view
        return view

    def barrier(self):
        """Signals every peer and waits for each one's signal, on the current stream."""
        self.handle.barrier(channel=0)


class CopyEngineCollectives:
    """The copy-engine collectives of one rank: `all_gather_into_tensor` and
    `all_to_all_single` with torch.distributed's signatures (equal splits), enqueued on
    the current stream (which waits for them on return, as for any stream-ordered op).
    Inputs inside a SymmetricBuffer made by `buffer()` are pulled from directly;
    others are first copied into a staging buffer (allocated once per size: a
    collective call, so every rank must call with the same sizes in the same order,
    as for any collective)."""

    name = NAME

    def __init__(self, group=None, device=None):
        if not dist.is_initialized():
            raise RuntimeError("%s needs an initialized torch.distributed process group" % NAME)
        self.group = group
        self.device = torch.device(device) if device is not None else torch.device("cuda", torch.cuda.current_device())
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        # One stream per source rank: the pulls from different peers run at once.
        self._streams: List[torch.cuda.Stream] = [torch.cuda.Stream(self.device) for _ in range(self.world_size)]
        self._buffers: List[SymmetricBuffer] = []
        self._staging: Dict[Tuple[int, torch.dtype], SymmetricBuffer] = {}

    def buffer(self, numel: int, dtype: torch.dtype) -> SymmetricBuffer:
        """A symmetric buffer for inputs (collective: every rank calls it alike)."""
        buf = SymmetricBuffer(numel, dtype, self.device, self.group)
        self._buffers.append(buf)
        return buf

    def _source(self, t: torch.Tensor) -> Tuple[SymmetricBuffer, int]:
        for buf in self._buffers:
            if buf.contains(t):
                return buf, buf.offset_of(t)
        key = (t.numel(), t.dtype)
        staging = self._staging.get(key)
        if staging is None:
            staging = SymmetricBuffer(t.numel(), t.dtype, self.device, self.group)
            self._staging[key] = staging
        staging.tensor.copy_(t.reshape(-1))  # on the current stream: a local device copy
        return staging, 0

    def _pull(self, kind: str, output: torch.Tensor, input: torch.Tensor, sync_after: bool):
        buf, offset = self._source(input)
        current = torch.cuda.current_stream(self.device)
        buf.barrier()  # every rank's input is written
        flat = output.view(-1)
        used = []
        for src, src_offset, dst_offset, numel in pull_plan(kind, self.rank, self.world_size, offset, input.numel()):
            stream = self._streams[src]
            stream.wait_stream(current)
            with torch.cuda.stream(stream):
                source = buf.peer(src, src_offset, numel) if src != self.rank else buf.tensor.narrow(0, src_offset, numel)
                flat.narrow(0, dst_offset, numel).copy_(source)
            used.append(stream)
        for stream in used:
            current.wait_stream(stream)
        if sync_after:
            buf.barrier()  # every peer has read this rank's input

    def all_gather_into_tensor(self, output: torch.Tensor, input: torch.Tensor, *, sync_after: bool = True):
        """output (world_size * input.numel() elements, contiguous) = every rank's input
        in rank order, as dist.all_gather_into_tensor."""
        n = input.numel()
        if not output.is_contiguous() or output.numel() != n * self.world_size or output.dtype != input.dtype:
            raise ValueError("%s all_gather: output must be contiguous with %d x %d elements of %s" %
                             (NAME, self.world_size, n, input.dtype))
        self._pull("all_gather", output, input, sync_after)

    def all_to_all_single(self, output: torch.Tensor, input: torch.Tensor, *, sync_after: bool = True):
        """Equal splits: chunk j of output = chunk `rank` of rank j's input, as
        dist.all_to_all_single without split sizes."""
        n = input.numel()
        if n % self.world_size or not output.is_contiguous() or output.numel() != n or output.dtype != input.dtype:
            raise ValueError("%s all_to_all: input and output need %d equal chunks of one dtype" %
                             (NAME, self.world_size))
        self._pull("all_to_all", output, input, sync_after)
