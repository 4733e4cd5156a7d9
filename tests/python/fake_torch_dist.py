"""A stand-in for the parts of torch that scripts/gpu-jobs/async_tp.py calls (tensors,
matmul, torch.distributed's collectives, the async-TP ops of torch.ops.symm_mem), for one
rank of a process group, so that the script runs here without torch or a GPU.

Tensors carry a shape, a dtype and one value (every element equal), enough to check what
each call is given: matmul, the collectives and the fused ops check their shapes as
torch does and compute the value the real op would give if every rank held the same
data. Nothing runs on a GPU; CUDA events report `state["elapsed_ms"]` in turn. Faults on
request: `state["raise"][op] = exception` makes op raise, `state["wrong"]` makes the
fused ops return a wrong value, `state["max_numel"]` makes larger allocations run out of
memory, `state["other_rank_fails"]` makes every MIN all-reduce report a failure on another
rank, and `state["hide_symm_mem"]()` hides torch.distributed._symmetric_memory."""
import itertools
import math
import sys
import types

MODULES = ("torch", "torch.cuda", "torch.distributed", "torch.distributed._symmetric_memory")


class OutOfMemoryError(RuntimeError):
    pass


class Tensor:
    def __init__(self, shape, dtype, value=0.0, data=None):
        self.shape, self.dtype, self.value, self.data = tuple(shape), dtype, float(value), data

    def numel(self):
        return math.prod(self.shape)

    def _like(self, value, shape=None, dtype=None):
        return Tensor(self.shape if shape is None else shape, dtype or self.dtype, value)

    def float(self):
        return self._like(self.value, dtype="float32")

    def __sub__(self, other):
        assert self.shape == other.shape, (self.shape, other.shape)
        return self._like(self.value - other.value)

    def abs(self):
        return self._like(abs(self.value))

    def max(self):
        return self._like(self.value, shape=())

    def all(self):
        return self._like(self.value, shape=())

    def item(self):
        assert self.numel() == 1, self.shape
        return self.data[0] if self.data is not None else self.value

    def tolist(self):
        return list(self.data)

    def narrow(self, dim, start, length):
        assert 0 <= start and start + length <= self.shape[dim], (self.shape, dim, start, length)
        shape = list(self.shape)
        shape[dim] = length
        return self._like(self.value, shape=shape)


def install(world=2, rank=0):
    """Puts a fresh fake torch into sys.modules; returns (log, state)."""
    log = []
    state = {"elapsed_ms": [1.0], "raise": {}, "wrong": False, "max_numel": None, "other_rank_fails": False}
    events = itertools.count()
    torch = types.ModuleType("torch")
    cuda = types.ModuleType("torch.cuda")
    dist = types.ModuleType("torch.distributed")
    symm = types.ModuleType("torch.distributed._symmetric_memory")

    def maybe_raise(op):
        if op in state["raise"]:
            raise state["raise"][op]

    torch.__version__ = "2.11.0"
    torch.version = types.SimpleNamespace(cuda="13.0")
    for name in ("bfloat16", "float16", "float32", "float64"):
        setattr(torch, name, name)
    torch.device = lambda kind="cuda", index=0: (kind, index)

    class Generator:
        def __init__(self, device=None):
            self.seed = 0
            self.count = 0

        def manual_seed(self, seed):
            self.seed = seed
            return self

        def draw(self):
            self.count += 1
            return 1.0 + self.seed * 1e-3 + self.count * 1e-4

    torch.Generator = Generator

    def allocate(op, shape, dtype):
        maybe_raise(op)
        if state["max_numel"] is not None and math.prod(shape) > state["max_numel"]:
            raise OutOfMemoryError("CUDA out of memory. Tried to allocate %d elements" % math.prod(shape))
        log.append((op, tuple(shape), dtype))

    def randn(shape, dtype=None, device=None, generator=None):
        allocate("randn", shape, dtype)
        return Tensor(shape, dtype, generator.draw())

    def empty(shape, dtype=None, device=None):
        allocate("empty", shape, dtype)
        return Tensor(shape, dtype, float("nan"))

    def mm(a, b, out=None):
        maybe_raise("mm")
        assert len(a.shape) == 2 and len(b.shape) == 2 and a.shape[1] == b.shape[0], (a.shape, b.shape)
        assert out.shape == (a.shape[0], b.shape[1]) and out.dtype == a.dtype == b.dtype, (out.shape, a.shape, b.shape)
        log.append(("mm", a.shape, b.shape))
        out.value = a.value * b.value * a.shape[1]
        return out

    torch.randn, torch.empty, torch.mm = randn, empty, mm
    torch.equal = lambda a, b: a.shape == b.shape and a.value == b.value
    torch.isfinite = lambda t: Tensor(t.shape, "bool", 1.0 if math.isfinite(t.value) else 0.0)
    torch.tensor = lambda data, dtype=None, device=None: Tensor((len(data),), dtype, data=list(data))

    class Event:
        def __init__(self, enable_timing=False):
            pass

        def record(self):
            pass

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            ms = state["elapsed_ms"]
            return ms[next(events) % len(ms)]

    cuda.Event = Event
    cuda.synchronize = lambda: None
    cuda.set_device = lambda i: log.append(("set_device", i))
    cuda.current_device = lambda: 0
    cuda.get_device_properties = lambda i: types.SimpleNamespace(name="NVIDIA H200", multi_processor_count=132)
    cuda.empty_cache = lambda: log.append(("empty_cache",))
    cuda.nccl = types.SimpleNamespace(version=lambda: (2, 28, 9))
    cuda.OutOfMemoryError = OutOfMemoryError
    torch.cuda = cuda

    # torch.distributed: this rank of `world`; every rank is taken to hold the same data.
    dist.ReduceOp = types.SimpleNamespace(MAX="max", MIN="min", SUM="sum")
    dist.group = types.SimpleNamespace(WORLD=types.SimpleNamespace(group_name="0"))
    dist.init_process_group = lambda backend, device_id=None, timeout=None: log.append(("init", backend, timeout))
    dist.destroy_process_group = lambda: log.append(("destroy",))
    dist.get_rank = lambda group=None: rank
    dist.get_world_size = lambda group=None: world
    dist.barrier = lambda: None

    def all_reduce(t, op=None):
        if op == "min" and state["other_rank_fails"]:
            t.data = [0 for _ in t.data]
        log.append(("all_reduce", op))

    def all_gather_into_tensor(out, inp):
        maybe_raise("all_gather_into_tensor")
        assert out.shape == (inp.shape[0] * world,) + inp.shape[1:] and out.dtype == inp.dtype, (out.shape, inp.shape)
        log.append(("all_gather_into_tensor", out.shape, inp.shape))
        out.value = inp.value

    def reduce_scatter_tensor(out, inp):
        maybe_raise("reduce_scatter_tensor")
        assert inp.shape == (out.shape[0] * world,) + out.shape[1:] and out.dtype == inp.dtype, (out.shape, inp.shape)
        log.append(("reduce_scatter_tensor", out.shape, inp.shape))
        out.value = inp.value * world

    dist.all_reduce, dist.all_gather_into_tensor = all_reduce, all_gather_into_tensor
    dist.reduce_scatter_tensor = reduce_scatter_tensor

    # torch.ops.symm_mem, as torch.distributed._symmetric_memory defines it (2.11)
    def fused_all_gather_matmul(A, Bs, gather_dim, group_name, *, return_A=True):
        maybe_raise("fused_all_gather_matmul")
        assert gather_dim == 0 and group_name == "0" and len(Bs) == 1 and A.shape[1] == Bs[0].shape[0]
        log.append(("fused_all_gather_matmul", A.shape, Bs[0].shape))
        rows = A.shape[0] * world
        wrong = 1.5 if state["wrong"] else 1.0
        return (Tensor((rows, A.shape[1]), A.dtype, A.value),
                [Tensor((rows, Bs[0].shape[1]), A.dtype, A.value * Bs[0].value * A.shape[1] * wrong)])

    def fused_matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name):
        maybe_raise("fused_matmul_reduce_scatter")
        assert reduce_op == "sum" and scatter_dim == 0 and group_name == "0" and A.shape[1] == B.shape[0]
        assert A.shape[0] % world == 0, A.shape
        log.append(("fused_matmul_reduce_scatter", A.shape, B.shape))
        wrong = 1.5 if state["wrong"] else 1.0
        return Tensor((A.shape[0] // world, B.shape[1]), A.dtype, A.value * B.value * A.shape[1] * world * wrong)

    torch.ops = types.SimpleNamespace(symm_mem=types.SimpleNamespace(
        fused_all_gather_matmul=fused_all_gather_matmul, fused_matmul_reduce_scatter=fused_matmul_reduce_scatter))
    symm.enable_symm_mem_for_group = lambda name: log.append(("enable_symm_mem_for_group", name))
    torch.cuda, torch.distributed = cuda, dist
    dist._symmetric_memory = symm
    sys.modules.update({"torch": torch, "torch.cuda": cuda, "torch.distributed": dist,
                        "torch.distributed._symmetric_memory": symm})

    def hide_symm_mem():
        sys.modules["torch.distributed._symmetric_memory"] = None  # import raises ImportError
        del dist._symmetric_memory

    state["hide_symm_mem"] = hide_symm_mem
    return log, state


def uninstall():
    for name in MODULES:
        sys.modules.pop(name, None)
