"""A stand-in for the parts of torch that c3advisor.torch calls, which records every call
in order (streams current at each launch, process groups made, green contexts entered),
so that the executor's decisions can be tested on a machine without torch or a GPU.
It runs no kernel: what the GPU does is measured by examples/torch_fsdp_overlap.py."""
import contextlib
import sys
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

    def __repr__(self):
        return self.name


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


def install():
    """Puts a fresh fake torch into sys.modules (and drops c3advisor.torch, so that the
    next import sees it); returns (log, state)."""
    log = Log()
    state = {"current": Stream(log, "main")}
    install.log, install.state = log, state

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
    dist.get_rank = lambda group=None: 0
    dist.get_world_size = lambda group=None: 2
    dist.get_process_group_ranks = lambda group: [0, 1]

    def new_group(ranks=None, backend=None, pg_options=None):
        budget = (pg_options.config.max_ctas, pg_options.config.min_ctas)
        log.append(("new_group", backend, budget))
        return Group(budget)

    def all_gather_into_tensor(output, input, group=None, async_op=False):
        log.append(("nccl_all_gather", state["current"].name, group.budget if group else None))

    def all_to_all_single(output, input, group=None, async_op=False):
        log.append(("nccl_all_to_all", state["current"].name, group.budget if group else None))

    dist.new_group = new_group
    dist.all_gather_into_tensor = all_gather_into_tensor
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
