"""A stand-in for the parts of torch that c3advisor.torch calls, which records every call
in order (streams current at each launch, process groups made, green contexts entered,
events recorded and waited for, the rows each matmul and collective reads and writes),
so that the executor's decisions can be tested on a machine without torch or a GPU.
It runs no kernel: what the GPU does is measured by examples/torch_fsdp_overlap.py.

Matrix is a tensor of rows, each row one number (a row of A, or A's row times B): views
(narrow, unflatten) share their base's rows, so the log names the base rows each launch
touched. Under a World (ranks as threads, one Executor each), the collectives move and
sum those numbers between the ranks and matmul multiplies them by B's `factor`, executed
eagerly in issue order: a matmul that reads a row nothing wrote yet fails."""
import contextlib
import sys
import threading
import types


class Log(list):
    def names(self, kind):
        return [e for e in self if e[0] == kind]


class Stream:
    count = 0

    def __init__(self, log, name=None):
        Stream.count += 1
        self.log = log
        self.name = name or "s%d" % Stream.count

    def wait_stream(self, other):
        self.log.append(("wait", self.name, other.name))

    def wait_event(self, event):
        self.log.append(("wait_event", self.name, event.name))

    def __repr__(self):
        return self.name


class Event:
    count = 0

    def __init__(self, log):
        Event.count += 1
        self.log, self.name = log, "e%d" % Event.count

    def record(self, stream=None):
        self.log.append(("record", self.name, (stream or install.state["current"]).name))


def _narrow(index, dim, start, length):
    if dim == 0:
        if start < 0 or length < 0 or start + length > len(index):
            raise IndexError("narrow(%d, %d) of %d" % (start, length, len(index)))
        return index[start:start + length]
    return [_narrow(i, dim - 1, start, length) for i in index]


def _flat(index):
    return [index] if isinstance(index, int) else [r for i in index for r in _flat(i)]


class Matrix:
    """A tensor whose innermost dimension (cols) is one number per row; `index` is the
    nested list of base rows of this view."""

    def __init__(self, log, name, storage, index, cols, factor=1):
        self.log, self.name, self.storage, self.index, self.cols = log, name, storage, index, cols
        self.factor = factor  # what matmul multiplies a row by, when this is its B
        self.dtype = "bf16"

    @staticmethod
    def new(log, name, rows, cols, values=None, factor=1):
        storage = list(values) if values is not None else [None] * rows
        return Matrix(log, name, storage, list(range(rows)), cols, factor)

    @property
    def shape(self):
        dims, i = [], self.index
        while not isinstance(i, int):
            dims.append(len(i))
            if not i:
                break
            i = i[0]
        return tuple(dims) + (self.cols,)

    def narrow(self, dim, start, length):
        if dim >= len(self.shape) - 1:
            raise IndexError("the fake narrows row dimensions only")
        return Matrix(self.log, self.name, self.storage, _narrow(self.index, dim, start, length), self.cols, self.factor)

    def unflatten(self, dim, sizes):
        outer, inner = sizes
        if dim != 0 or outer * inner != len(self.index):
            raise ValueError("unflatten(%d, %s) of %s" % (dim, sizes, self.shape))
        return Matrix(self.log, self.name, self.storage,
                      [self.index[i * inner:(i + 1) * inner] for i in range(outer)], self.cols, self.factor)

    def rows(self):
        return _flat(self.index)

    def values(self):
        return [self.storage[r] for r in self.rows()]

    def write(self, values):
        rows = self.rows()
        if len(values) != len(rows):
            raise ValueError("%d values into %d rows" % (len(values), len(rows)))
        for r, v in zip(rows, values):
            self.storage[r] = v

    def record_stream(self, stream):
        self.log.append(("record_stream", self.name, stream.name))


class World:
    """Ranks run as threads: exchange() meets every rank's call of one collective."""

    def __init__(self, ranks):
        self.ranks = ranks
        self.barrier = threading.Barrier(ranks)
        self.slots = [None] * ranks

    def exchange(self, rank, value):
        self.slots[rank] = value
        self.barrier.wait()
        got = list(self.slots)
        self.barrier.wait()
        return got

    def run(self, fn):
        """fn(rank) on every rank, each in its own thread; re-raises the first failure."""
        errors = []

        def body(rank):
            install.state["rank"] = rank
            try:
                fn(rank)
            except BaseException as e:  # noqa: report it in the test's thread
                errors.append(e)
                self.barrier.abort()

        threads = [threading.Thread(target=body, args=(r,)) for r in range(self.ranks)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:  # the cause, not the other ranks' broken barrier
            errors.sort(key=lambda e: isinstance(e, threading.BrokenBarrierError))
            raise errors[0]


class State(threading.local):
    """The current stream and the rank, per thread (a rank of a World)."""

    def __init__(self, log):
        self.current = Stream(log, "main")
        self.rank = 0

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        setattr(self, key, value)


class Tensor:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def record_stream(self, stream):
        self.log.append(("record_stream", self.name, stream.name))


class GreenContext:
    def __init__(self, log, sms, device):
        self.log, self.sms = log, sms
        log.append(("green_create", sms, device))

    @staticmethod
    def create(num_sms, device_id=0):
        return GreenContext(install.log, num_sms, device_id)

    def set_context(self):
        self.log.append(("green_enter", self.sms, install.state["current"].name))

    def pop_context(self):
        self.log.append(("green_exit", self.sms))


def install(world=None):
    """Puts a fresh fake torch into sys.modules (and drops c3advisor.torch, so that the
    next import sees it); returns (log, state). With a World, collectives move data
    between its ranks (threads) and dist.get_rank is the thread's rank."""
    log = Log()
    state = State(log)
    install.log, install.state, install.world = log, state, world

    torch = types.ModuleType("torch")
    cuda = types.ModuleType("torch.cuda")
    green = types.ModuleType("torch.cuda.green_contexts")
    dist = types.ModuleType("torch.distributed")

    class Device:
        def __init__(self, kind="cuda", index=0):
            self.type, self.index = kind, index

    torch.device = lambda *a: Device(*a) if a and not isinstance(a[0], Device) else (a[0] if a else Device())
    torch.Tensor = Tensor
    torch.dtype = type("dtype", (), {})
    cuda.Stream = lambda device=None: Stream(log)
    cuda.Event = lambda *a, **k: Event(log)
    cuda.current_stream = lambda device=None: state["current"]
    cuda.current_device = lambda: 0

    @contextlib.contextmanager
    def stream(s):
        before = state["current"]
        state["current"] = s
        try:
            yield s
        finally:
            state["current"] = before

    cuda.stream = stream
    green.GreenContext = GreenContext
    cuda.green_contexts = green

    class Config:
        max_ctas = -1
        min_ctas = -1

    class Options:
        def __init__(self):
            self.config = Config()

    ProcessGroupNCCL = type("ProcessGroupNCCL", (), {"Options": Options})

    class Group:
        def __init__(self, budget):
            self.budget = budget

    dist.ProcessGroupNCCL = ProcessGroupNCCL
    dist.is_initialized = lambda: True
    dist.get_rank = lambda group=None: state["rank"]
    dist.get_world_size = lambda group=None: world.ranks if world else 2
    dist.get_process_group_ranks = lambda group: [0, 1]

    def new_group(ranks=None, backend=None, pg_options=None):
        budget = (pg_options.config.max_ctas, pg_options.config.min_ctas)
        log.append(("new_group", backend, budget))
        return Group(budget)

    def matmul(x, b, out=None):
        if x.shape[-1] != b.shape[0] or out.shape != x.shape[:-1] + (b.shape[1],):
            raise ValueError("matmul of %s and %s into %s" % (x.shape, b.shape, out.shape))
        log.append(("matmul", state["current"].name, x.name, tuple(x.rows()), out.name, tuple(out.rows())))
        if world:
            values = x.values()
            if None in values:
                raise AssertionError("matmul read rows of %s that nothing wrote: %s" %
                                     (x.name, [r for r, v in zip(x.rows(), values) if v is None]))
            out.write([v * b.factor for v in values])
        return out

    def empty(shape, dtype=None, device=None):
        rows, cols = shape
        return Matrix.new(log, "empty", rows, cols)

    def collective_log(op, output, input, group):
        entry = (op, state["current"].name, group.budget if group else None)
        if isinstance(input, Matrix):
            entry += (input.name, tuple(input.rows()), output.name, tuple(output.rows()))
        log.append(entry)

    def all_gather_into_tensor(output, input, group=None, async_op=False):
        collective_log("nccl_all_gather", output, input, group)
        if world:
            output.write([v for values in world.exchange(state["rank"], input.values()) for v in values])

    def reduce_scatter_tensor(output, input, group=None, async_op=False):
        collective_log("nccl_reduce_scatter", output, input, group)
        if world:
            got, n = world.exchange(state["rank"], input.values()), len(output.rows())
            mine = [values[state["rank"] * n:(state["rank"] + 1) * n] for values in got]
            if any(None in v for v in mine):
                raise AssertionError("reduce_scatter of rows nothing wrote")
            output.write([sum(col) for col in zip(*mine)])

    def all_to_all_single(output, input, group=None, async_op=False):
        log.append(("nccl_all_to_all", state["current"].name, group.budget if group else None))

    # torch.ops.symm_mem's async-TP ops (PyTorch 2.11's signatures, as
    # scripts/gpu-jobs/async_tp.py calls them), on the rows' numbers of a World's ranks.
    def fused_all_gather_matmul(a, bs, gather_dim, group_name):
        if gather_dim != 0 or len(bs) != 1 or not group_name or a.shape[-1] != bs[0].shape[0]:
            raise ValueError("fused_all_gather_matmul(%s, %d Bs, %s, %r)" % (a.shape, len(bs), gather_dim, group_name))
        log.append(("fused_all_gather_matmul", state["current"].name, a.name, tuple(a.rows()), bs[0].name))
        rows = [v for values in world.exchange(state["rank"], a.values()) for v in values]
        gathered = Matrix.new(log, "fused_gathered", len(rows), a.cols, rows)
        return gathered, [Matrix.new(log, "fused_out", len(rows), bs[0].cols, [v * bs[0].factor for v in rows])]

    def fused_matmul_reduce_scatter(a, b, reduce_op, scatter_dim, group_name):
        if reduce_op != "sum" or scatter_dim != 0 or not group_name or a.shape[-1] != b.shape[0]:
            raise ValueError("fused_matmul_reduce_scatter(%s, %r, %s, %r)" % (a.shape, reduce_op, scatter_dim,
                                                                             group_name))
        log.append(("fused_matmul_reduce_scatter", state["current"].name, a.name, tuple(a.rows()), b.name))
        got = world.exchange(state["rank"], [v * b.factor for v in a.values()])
        n = len(got[0]) // world.ranks
        mine = [values[state["rank"] * n:(state["rank"] + 1) * n] for values in got]
        return Matrix.new(log, "fused_out", n, b.cols, [sum(col) for col in zip(*mine)])

    torch.ops = types.SimpleNamespace(symm_mem=types.SimpleNamespace(
        fused_all_gather_matmul=fused_all_gather_matmul, fused_matmul_reduce_scatter=fused_matmul_reduce_scatter))
    dist.new_group = new_group
    dist.all_gather_into_tensor = all_gather_into_tensor
    dist.reduce_scatter_tensor = reduce_scatter_tensor
    torch.matmul = matmul
    torch.empty = empty
    dist.all_to_all_single = all_to_all_single
    torch.cuda, torch.distributed = cuda, dist
    sys.modules.update({"torch": torch, "torch.cuda": cuda, "torch.cuda.green_contexts": green,
                        "torch.distributed": dist})
    for name in ("c3advisor.torch", "c3advisor._torch_symm"):
        sys.modules.pop(name, None)
    return log, state


def uninstall():
    for name in ("torch", "torch.cuda", "torch.cuda.green_contexts", "torch.distributed",
                 "c3advisor.torch", "c3advisor._torch_symm"):
        sys.modules.pop(name, None)
