#!/usr/bin/env python3
"""A forward step over N transformer layers (LLaMA-3 8B and 70B layer shapes, bf16),
each weight's GEMM paired with a collective, run several ways, with c3advisor `plan`'s
prediction of each for the same trace (which this script writes).

--parallel fsdp (default): each layer's weights sharded over the ranks and all-gathered
before use, layer i+1's all-gather prefetched while layer i's GEMMs run:

  default   PyTorch's FSDP default: the all-gather launched first on the NCCL group's
            own stream (async_op=True), the GEMM on the compute stream
  advised   each pair run as c3advisor advised it, through c3advisor.torch
  serial    the all-gather, then the GEMM

--parallel tp: tensor parallelism over the ranks with sequence-parallel activations
(Megatron-LM's): qkv and gate_up all-gather their input's token shards, then multiply
(column-parallel); o and down multiply, then reduce-scatter the partial sums back to
token shards (row-parallel). Each collective feeds its GEMM or is fed by it:

  serial    all_gather_into_tensor then matmul, or matmul then reduce_scatter_tensor
  async_tp  PyTorch's async tensor parallel: torch.ops.symm_mem.fused_all_gather_matmul
            and fused_matmul_reduce_scatter (symmetric memory, multicast off)
  advised   Executor.run_dependent under advise(..., dependency=...)'s decomposed schedule

docs/frameworks.md shows the runs' numbers. Two steps:

  # 1. anywhere libc3advisor.so is (no torch, no GPU): the traces, advice and plans
  PYTHONPATH=build/python python3 examples/torch_fsdp_overlap.py --prepare advice.json [--parallel tp]
  # 2. on the GPUs (torch only), one process per GPU; NVLink multicast stays off
  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
    PYTHONPATH=python torchrun --nproc-per-node 2 examples/torch_fsdp_overlap.py \\
    --advice-json advice.json --out results.json

FSDP pairs follow data/traces/*_fsdp.yaml: at weight granularity, each forward GEMM of
layer i (x[tokens, in] @ W[in, out]) with the all-gather of the same weight of layer i+1;
the last layer prefetches layer 0 (the next step's first layer), so every GEMM has a
pair and the trace's repeat is N. TP pairs are the four GEMMs of each layer with their
own all-gather or reduce-scatter (dependent trace entries). Each pair ends when both its
halves have (the streams join), so a step is the sum of its pairs, as `plan` adds them.
Left out, as in the traces: attention's core, norms, embedding, backward."""
import argparse
import collections
import datetime
import json
import os
import statistics
import sys

# Model configs (LLaMA-3: Meta's config.json, data/catalog/llama.yaml cites them; Qwen2.5:
# data/catalog/qwen.yaml): hidden, FFN, query heads, KV heads, head dim, layers run. 3b and
# 405b were first run on 2026-11-26, as shapes the chained-pair term (docs/model.md §4.6)
# was not derived from; qwen7b and qwen72b were added later as a fresh test of the same kind.
MODELS = {  # "title" names it in traces and reports, "ref" its published configuration
    "8b": {"hidden": 4096, "ffn": 14336, "heads": 32, "kv_heads": 8, "head_dim": 128, "layers": 8},
    "70b": {"hidden": 8192, "ffn": 28672, "heads": 64, "kv_heads": 8, "head_dim": 128, "layers": 4},
    "3b": {"hidden": 3072, "ffn": 8192, "heads": 24, "kv_heads": 8, "head_dim": 128, "layers": 8},
    "405b": {"hidden": 16384, "ffn": 53248, "heads": 128, "kv_heads": 8, "head_dim": 128, "layers": 2},
    "qwen7b": {"hidden": 3584, "ffn": 18944, "heads": 28, "kv_heads": 4, "head_dim": 128, "layers": 8,
               "title": "Qwen2.5 7B", "ref": "Qwen2.5-7B config.json (data/catalog/qwen.yaml)"},
    "qwen72b": {"hidden": 8192, "ffn": 29568, "heads": 64, "kv_heads": 8, "head_dim": 128, "layers": 4,
                "title": "Qwen2.5 72B", "ref": "Qwen2.5-72B config.json (data/catalog/qwen.yaml)"},
}
for _name, _cfg in MODELS.items():
    _cfg.setdefault("title", "LLaMA-3 %s" % _name.upper())
    _cfg.setdefault("ref", "Meta Llama 3 %s config.json" % _name.upper())

WEIGHTS = ("qkv", "o", "gate_up", "down")
# Per parallelism: the modes timed (in this order), and which strategy of each pair's
# advice predicts a mode (None: the recommendation); modes not listed are not predicted.
MODES = {"fsdp": ("default", "advised", "serial"), "tp": ("serial", "async_tp", "advised")}
PREDICTED_BY = {"fsdp": {"default": "sp", "advised": None, "serial": "serial"},
                "tp": {"advised": None, "serial": "serial"}}
# The ratios printed and stored ("advised_vs_default": default / advised - 1).
COMPARED = {"fsdp": (("advised", "default"),), "tp": (("advised", "serial"), ("advised", "async_tp"))}
MULTICAST_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
# bf16 outputs of a decomposed or fused pair against the serial one: max |got - serial| /
# max |serial| (another GEMM kernel per piece and another reduction order round differently).
TOLERANCE = 2e-2

# One pair of a trace: GEMM x[m, k] @ W[k, n]; size_bytes None: the operand it moves.
Pair = collections.namedtuple("Pair", "name m n k collective dependency size_bytes")


def weight_shapes(cfg):
    """(in, out) of each weight of one layer, in forward order."""
    h, f = cfg["hidden"], cfg["ffn"]
    qkv = (cfg["heads"] + 2 * cfg["kv_heads"]) * cfg["head_dim"]
    return {"qkv": (h, qkv), "o": (cfg["heads"] * cfg["head_dim"], h), "gate_up": (h, 2 * f), "down": (f, h)}


def fsdp_pairs(cfg, tokens, ranks):
    """Each weight's FSDP pair: its forward GEMM with the all-gather of the next layer's
    same weight (k x n bf16, independent of the GEMM)."""
    return {w: Pair("fwd_%s__ag_next_%s" % (w, w), tokens, n, k, "all_gather", "none", k * n * 2)
            for w, (k, n) in weight_shapes(cfg).items()}


def tp_pairs(cfg, tokens, ranks):
    """Each weight's pair at tensor parallelism `ranks`, sequence parallel: qkv and gate_up
    (column-parallel) all-gather the tokens / ranks rows of each rank's input, then
    x[tokens, in] @ W[in, out / ranks]; o and down (row-parallel) compute
    x[tokens, in / ranks] @ W[in / ranks, out] and reduce-scatter the partial sums to
    tokens / ranks rows. ValueError when the ranks do not split the model."""
    for what, value in (("tokens", tokens), ("query heads", cfg["heads"]), ("KV heads", cfg["kv_heads"]),
                        ("FFN", cfg["ffn"])):
        if value % ranks:
            raise ValueError("tensor parallelism over %d ranks: the %s (%d) do not split over them" %
                             (ranks, what, value))
    out = {}
    for w, (k, n) in weight_shapes(cfg).items():
        if w in ("qkv", "gate_up"):
            out[w] = Pair("fwd_%s__ag_x" % w, tokens, n // ranks, k, "all_gather", "collective_feeds_gemm", None)
        else:
            out[w] = Pair("fwd_%s__rs_y" % w, tokens, n, k // ranks, "reduce_scatter", "gemm_feeds_collective", None)
    return out


PAIRS = {"fsdp": fsdp_pairs, "tp": tp_pairs}


def trace_yaml(parallel, model, tokens, layers, ranks, pairs):
    """The trace of one step (the format of data/traces/*.yaml, docs/formats.md)."""
    what = {"fsdp": ("the forward GEMMs of one FSDP step of",
                     "each with the all-gather of the same weight of the next layer",
                     "%d tokens per GPU, bf16, FSDP over %d ranks" % (tokens, ranks)),
            "tp": ("the forward GEMMs of one tensor-parallel step of",
                   "each with the all-gather that feeds it or the reduce-scatter it feeds",
                   "%d tokens, bf16, TP over %d ranks, sequence parallel" % (tokens, ranks))}[parallel]
    lines = ["# written by examples/torch_fsdp_overlap.py: %s" % what[0],
             "# %s (%d layers), %s." % (MODELS[model]["title"], layers, what[1]),
             "schema_version: 1", "name: torch_%s_%s" % (parallel, model),
             'description: "forward of %d %s layers, %s"' % (layers, MODELS[model]["title"], what[2]),
             'provenance: {source: published, ref: "%s; examples/torch_fsdp_overlap.py"}' % MODELS[model]["ref"],
             "defaults: {dtype: bf16, ranks: %d}" % ranks]
    if parallel == "fsdp":  # each all-gather launched while the previous pair runs (docs/model.md §4.6)
        lines.append("chain: prefetch")
    lines.append("entries:")
    for p in pairs.values():
        size = "" if p.size_bytes is None else ", size: %d" % p.size_bytes
        dependency = "" if p.dependency == "none" else ", dependency: %s" % p.dependency
        lines.append("  - {name: %s, gemm: %dx%dx%d, collective: %s%s%s, repeat: %d}" %
                     (p.name, p.m, p.n, p.k, p.collective, size, dependency, layers))
    return "\n".join(lines) + "\n"


def prepare(args):
    """Advice and plan of every model's trace, through the Python package (no torch). Each
    weight's advice is its plan entry: an FSDP trace is a prefetch chain, priced as such."""
    import c3advisor
    advisor = c3advisor.Advisor(args.profile)
    parallel = args.parallel
    doc = {"parallel": parallel, "profile": args.profile, "ranks": args.ranks, "tokens": args.tokens, "models": {}}
    for model in args.models.split(","):
        cfg, layers = MODELS[model], args.layers or MODELS[model]["layers"]
        pairs = PAIRS[parallel](cfg, args.tokens, args.ranks)
        trace = trace_yaml(parallel, model, args.tokens, layers, args.ranks, pairs)
        plan = json.loads(advisor.plan(trace).json)
        entries = [{"weight": w, "advise": e} for w, e in zip(pairs, plan["entries"])]
        doc["models"][model] = {"layers": layers, "trace": trace, "plan": plan, "entries": entries,
                                "predicted_s": predictions(entries, layers, PREDICTED_BY[parallel])}
    with open(args.prepare, "w") as f:
        json.dump(doc, f, indent=1)
    for model, m in doc["models"].items():
        print("%s (%s): %s" % (model, parallel, ", ".join("%s %s" % (e["weight"], e["advise"]["recommendation"]["name"])
                                                         for e in m["entries"])))
        print("  predicted step: " + ", ".join("%s %.3f ms" % (k, v * 1e3) for k, v in m["predicted_s"].items()))


def strategy_s(doc, name):
    """The predicted time of strategy `name` (None: the recommendation) in an advise document."""
    if name is None:
        return doc["recommendation"]["predicted_s"]
    return next(s["predicted_s"] for s in doc["strategies"] if s["name"] == name)


def predictions(entries, layers, predicted_by):
    """Each predicted mode's step: its strategy's time (PREDICTED_BY; fsdp: default = `sp`,
    collective first with the library's CTAs) summed over the pairs, repeat = layers."""
    out = {mode: 0.0 for mode in predicted_by}
    for e in entries:
        for mode, name in predicted_by.items():
            out[mode] += layers * strategy_s(e["advise"], name)
    return out


# ----------------------------------------------------------------------------- GPU part:
# timing, provenance and reporting, shared by both parallelisms

def summary(times_s):
    return {"median_s": statistics.median(times_s), "min_s": min(times_s), "max_s": max(times_s),
            "runs_s": times_s}


def timed(torch, dist, fn, warmup, runs):
    """Per run: CUDA-event time on this rank from a barrier-aligned start; then the max
    over ranks of each run (the pair ends when the last rank's does)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = []
    for i in range(warmup + runs):
        torch.cuda.synchronize()
        dist.barrier()
        start.record()
        fn()
        end.record()
        end.synchronize()
        if i >= warmup:
            out.append(start.elapsed_time(end) / 1e3)
    t = torch.tensor(out, dtype=torch.float64, device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.tolist()


def interleaved(torch, dist, modes, step, warmup, steps):
    """Each mode's step times, modes interleaved step by step so that drift hits all alike:
    `warmup` untimed steps of each mode, then `steps` rounds of one timed step per mode."""
    for mode in modes:
        for _ in range(warmup):
            step(mode)
    runs = {mode: [] for mode in modes}
    for _ in range(steps):
        for mode in modes:
            runs[mode] += timed(torch, dist, lambda: step(mode), 0, 1)
    return {mode: summary(runs[mode]) for mode in modes}


def all_ranks_true(torch, dist, ok):
    t = torch.tensor([1 if ok else 0], device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return bool(t.item())


def provenance(torch, world, argv):
    from c3advisor._machine import driver_version
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {"device": props.name, "gpus": world, "sms": props.multi_processor_count,
            "versions": {"torch": torch.__version__, "cuda": str(torch.version.cuda),
                         "nccl": ".".join(str(v) for v in torch.cuda.nccl.version()),
                         "driver": driver_version()},
            "git_sha": os.environ.get("C3_GIT_SHA", "unknown"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": "torchrun --nproc-per-node %d %s" % (world, " ".join(argv)),
            "environment": {k: os.environ.get(k) for k in MULTICAST_OFF}}


def compare(r, parallel, predicted):
    """Adds the measured ratios (COMPARED) and each predicted mode's error to result r."""
    measured = {mode: s["median_s"] for mode, s in r["measured"].items()}
    for mode, other in COMPARED[parallel]:
        if mode in measured and other in measured:
            r["%s_vs_%s" % (mode, other)] = measured[other] / measured[mode] - 1.0
    r["prediction_error"] = {mode: predicted[mode] / measured[mode] - 1.0 for mode in predicted if mode in measured}


def report(title, r, parallel):
    print(title)
    for mode, s in r["measured"].items():
        line = "  %-8s measured %8.3f ms (min %.3f, max %.3f)" % (mode, s["median_s"] * 1e3, s["min_s"] * 1e3,
                                                                   s["max_s"] * 1e3)
        if mode in r["prediction_error"]:
            line += "  predicted %8.3f ms (%+.1f%%)" % (r["predicted_s"][mode] * 1e3, r["prediction_error"][mode] * 100)
        print(line)
    for mode, other in COMPARED[parallel]:
        key = "%s_vs_%s" % (mode, other)
        if key in r:
            print("  %s vs %s: %+.1f%%" % (mode, other, r[key] * 100))
    sys.stdout.flush()


# ----------------------------------------------------------------------------- FSDP

class Layers:
    """Sharded weights of N layers (each rank's shard in symmetric memory, so that the
    copy engines can pull it), two gathered-weight buffers, and the activations."""

    def __init__(self, torch, executor, cfg, layers, tokens, rank, world):
        self.torch = torch
        self.shapes = weight_shapes(cfg)
        self.world = world
        dev = torch.device("cuda", torch.cuda.current_device())
        g = torch.Generator(device=dev).manual_seed(7 + rank)
        self.shard_numel = {w: k * n // world for w, (k, n) in self.shapes.items()}
        per_layer = sum(self.shard_numel.values())
        self.shards = []  # [layer][weight] -> view into a symmetric buffer
        for _ in range(layers):
            buf = executor.copy_engine.buffer(per_layer, torch.bfloat16)
            buf.tensor.normal_(0, 0.02, generator=g)
            views, off = {}, 0
            for w in WEIGHTS:
                views[w] = buf.tensor.narrow(0, off, self.shard_numel[w])
                off += self.shard_numel[w]
            self.shards.append(views)
        # Filled (never left uninitialized: a NaN pattern would fail the equality checks).
        self.gathered = [{w: torch.empty(k * n, dtype=torch.bfloat16, device=dev).normal_(0, 0.02, generator=g)
                          for w, (k, n) in self.shapes.items()} for _ in range(2)]
        self.inputs = {w: torch.randn(tokens, k, dtype=torch.bfloat16, device=dev, generator=g)
                       for w, (k, n) in self.shapes.items()}
        self.outputs = {w: torch.empty(tokens, n, dtype=torch.bfloat16, device=dev) for w, (k, n) in self.shapes.items()}

    def gemm(self, w, buf):
        k, n = self.shapes[w]
        weight, x, y = self.gathered[buf][w].view(k, n), self.inputs[w], self.outputs[w]
        return lambda: self.torch.matmul(x, weight, out=y)

    def gemm_linear(self, w, buf):
        """The same product with the weight stored as nn.Linear stores it (out x in):
        x @ W.t(), as F.linear computes it (cuBLAS's TN layout, the calibration's)."""
        k, n = self.shapes[w]
        weight, x, y = self.gathered[buf][w].view(n, k), self.inputs[w], self.outputs[w]
        return lambda: self.torch.matmul(x, weight.t(), out=y)

    def pairs(self):
        """(weight, layer i's GEMM, all-gather output, next layer's shard) in step order."""
        n = len(self.shards)
        for i in range(n):
            cur, nxt = i % 2, (i + 1) % 2
            for w in WEIGHTS:
                yield w, self.gemm(w, cur), self.gathered[nxt][w], self.shards[(i + 1) % n][w]


def run_pair(dist, c3t, executor, mode, setting, gemm, out, shard):
    """One weight's GEMM with the next layer's all-gather under `mode`."""
    if mode == "serial":
        dist.all_gather_into_tensor(out, shard)
        gemm()
    elif mode == "default":
        work = dist.all_gather_into_tensor(out, shard, async_op=True)
        gemm()
        work.wait()
    else:
        executor.run_pair(setting, gemm, c3t.AllGather(out, shard))


def run_step(torch, dist, c3t, executor, layers, mode, settings):
    for w, gemm, out, shard in layers.pairs():
        run_pair(dist, c3t, executor, mode, settings[w], gemm, out, shard)


def checks(torch, dist, c3t, executor, layers, rank, world):
    """The copy-engine all-gather and all-to-all against NCCL's, and one pair under a
    forced SM partition (green contexts) against the plain results."""
    out = {}
    for w in WEIGHTS:
        shard = layers.shards[0][w]
        ref = torch.empty(shard.numel() * world, dtype=shard.dtype, device=shard.device)
        got = torch.zeros_like(ref)
        dist.all_gather_into_tensor(ref, shard)
        executor.copy_engine.all_gather_into_tensor(got, shard)
        out["all_gather_%s_equal_nccl" % w] = all_ranks_true(torch, dist, torch.equal(ref, got))
    x = torch.randn(1 << 24, dtype=torch.bfloat16, device="cuda")
    ref, got = torch.empty_like(x), torch.zeros_like(x)
    dist.all_to_all_single(ref, x)
    executor.copy_engine.all_to_all_single(got, x)  # from a plain tensor: through a staging buffer
    out["all_to_all_32MiB_equal_nccl"] = all_ranks_true(torch, dist, torch.equal(ref, got))
    # A partition (rp:16 on 132 SMs): GEMM in a green context of 116 SMs, NCCL with 16 CTAs.
    from c3advisor.advisor import GreenContexts, NcclSettings, Settings
    sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    for name, green in (("rp16_gemm_and_collective", GreenContexts(sms - 16, 16)),
                        ("rp16_gemm_only", GreenContexts(sms - 16, None))):
        s = Settings("collective_first", True, True, NcclSettings(16, 16), green, None, 1)
        w = "o"
        gemm = layers.gemm(w, 0)
        try:
            gemm()
            y_ref = layers.outputs[w].clone()
            g_ref = torch.empty_like(layers.gathered[1][w])
            dist.all_gather_into_tensor(g_ref, layers.shards[1][w])
            layers.outputs[w].zero_()
            layers.gathered[1][w].zero_()
            executor.run_pair(s, gemm, c3t.AllGather(layers.gathered[1][w], layers.shards[1][w]))
            torch.cuda.synchronize()
            ok = torch.equal(y_ref, layers.outputs[w]) and torch.equal(g_ref, layers.gathered[1][w])
            t = timed(torch, dist, lambda: executor.run_pair(
                s, gemm, c3t.AllGather(layers.gathered[1][w], layers.shards[1][w])), 2, 5)
            out[name] = {"equal": all_ranks_true(torch, dist, ok), **summary(t)}
        except Exception as e:  # report, go on: green contexts are beta in PyTorch
            out[name] = {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}
    return out


def isolated(torch, dist, executor, layers, runs, variants=False):
    """Each weight's GEMM, NCCL all-gather and copy-engine all-gather alone. `variants`
    (--check) adds the GEMM in nn.Linear's layout (`gemm_linear`) and the NCCL all-gather
    from a copy of the shard in ordinary memory (`all_gather_nccl_plain`), so that the
    example's layout and its symmetric shards can be told from the model's error."""
    out = {}
    for w in WEIGHTS:
        gemm = layers.gemm(w, 0)
        out_buf, shard = layers.gathered[1][w], layers.shards[0][w]
        out[w] = {"gemm": summary(timed(torch, dist, gemm, 3, runs)),
                  "all_gather_nccl": summary(timed(torch, dist, lambda: dist.all_gather_into_tensor(out_buf, shard), 3, runs)),
                  "all_gather_copy_engine": summary(timed(
                      torch, dist, lambda: executor.copy_engine.all_gather_into_tensor(out_buf, shard), 3, runs))}
        if variants:
            plain = shard.clone()
            out[w]["gemm_linear"] = summary(timed(torch, dist, layers.gemm_linear(w, 0), 3, runs))
            out[w]["all_gather_nccl_plain"] = summary(timed(
                torch, dist, lambda: dist.all_gather_into_tensor(out_buf, plain), 3, runs))
            del plain
    return out


def pair_times(torch, dist, c3t, executor, layers, settings, runs):
    """Each weight's pair alone under each mode (3 warm-up runs, then `runs`): what the step
    sums, so that a step's prediction error can be told from its pairs' (docs/frameworks.md)."""
    out = {}
    for w in WEIGHTS:
        gemm, out_buf, shard = layers.gemm(w, 0), layers.gathered[1][w], layers.shards[1 % len(layers.shards)][w]
        out[w] = {mode: summary(timed(torch, dist, lambda: run_pair(dist, c3t, executor, mode, settings[w], gemm,
                                                                     out_buf, shard), 3, runs))
                  for mode in MODES["fsdp"]}
    return out


def diagnostics(torch, dist, executor, layers):
    """What ran on the device during one copy-engine all-gather (profiler event names):
    the data should move in memcpy records, with only the barrier kernels as kernels."""
    from torch.profiler import ProfilerActivity, profile
    shard, out_buf = layers.shards[0]["gate_up"], layers.gathered[1]["gate_up"]
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        executor.copy_engine.all_gather_into_tensor(out_buf, shard)
        torch.cuda.synchronize()
    names = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            names[e.name] = names.get(e.name, 0) + 1
    return names


def profiled_steps(torch, dist, modes, step, summarize):
    """One step of each mode under the profiler; per mode, every rank's summarize(prof)."""
    from torch.profiler import ProfilerActivity, profile
    out = {}
    for mode in modes:
        torch.cuda.synchronize()
        dist.barrier()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step(mode)
            torch.cuda.synchronize()
        ranks = [None] * dist.get_world_size()
        dist.all_gather_object(ranks, summarize(prof))
        out[mode] = ranks
    return out


def kernel_sums(prof):
    """The summed device time of NCCL's kernels and of the other kernels, in us."""
    nccl_us = other_us = 0.0
    kernels = 0
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None)
        if t is None:
            t = getattr(e, "cuda_time_total", 0.0)
        if not t:
            continue
        kernels += e.count
        if "nccl" in e.key.lower():
            nccl_us += t
        else:
            other_us += t
    return {"nccl_kernels_us": nccl_us, "other_kernels_us": other_us, "kernels": kernels}


def step_kernels(torch, dist, modes, step):
    """One step of each mode under the profiler: each rank's summed device time of NCCL's
    kernels and of the other kernels (GEMMs, copy-engine barriers), in us. If the default
    step's NCCL kernels take much longer than its all-gathers alone, they wait on their
    SMs for the other rank (docs/frameworks.md, "Where the default's -12% comes from")."""
    return profiled_steps(torch, dist, modes, step, kernel_sums)


def kernel_class(cat, name):
    """A device record's class in a step's timeline."""
    low = name.lower()
    if cat != "kernel":
        return "copy"
    if "nccl" in low:
        return "nccl"
    if "barrier" in low:
        return "barrier"
    if any(s in low for s in ("gemm", "nvjet", "sm90", "sm100", "cutlass", "xmma", "cublas")):
        return "gemm"
    return "other"


def timeline_summary(records):
    """records: (class, stream, start_us, dur_us). The span from the first start to the
    last end, the time some record ran (busy: the union), the idle rest, and the summed
    durations per class."""
    if not records:
        return {"records": 0}
    records = sorted(records, key=lambda r: r[2])
    t0 = records[0][2]
    busy, cur_s, cur_e = 0.0, None, None
    for _, _, s, d in records:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                busy += cur_e - cur_s
            cur_s, cur_e = s, s + d
        else:
            cur_e = max(cur_e, s + d)
    busy += cur_e - cur_s
    span = max(s + d for _, _, s, d in records) - t0
    by_class = {}
    for c, _, _, d in records:
        by_class[c] = by_class.get(c, 0.0) + d
    return {"records": len(records), "span_us": span, "busy_us": busy, "idle_us": span - busy,
            "class_us": by_class,
            "timeline": [[c, st, round(s - t0, 1), round(d, 1)] for c, st, s, d in records]}


def device_timeline(prof):
    """The profiled step's kernels and copies as timeline_summary gives them."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f).get("traceEvents", [])
    return timeline_summary([(kernel_class(e.get("cat"), e.get("name", "")), (e.get("args") or {}).get("stream", -1),
                              float(e["ts"]), float(e.get("dur", 0.0)))
                             for e in events
                             if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")])


def step_timeline(torch, dist, modes, step):
    """One step of each mode under the profiler, as each rank's device timeline (kernels
    and copies: class, stream, start and duration in us from the first record) with its
    span, busy and idle time: where a step's time goes beyond its kernels' own."""
    return profiled_steps(torch, dist, modes, step, device_timeline)


def run_fsdp_model(torch, dist, c3t, executor, args, advice, model, rank, world):
    """One model's FSDP modes (and --check's checks): its entry of the results file."""
    m = advice["models"][model]
    settings = {e["weight"]: c3t.settings_from_json(e["advise"]) for e in m["entries"]}
    executor.prepare(settings.values())
    layers = Layers(torch, executor, MODELS[model], m["layers"], advice["tokens"], rank, world)
    r = {"layers": m["layers"], "advice": {e["weight"]: e["advise"]["recommendation"]["name"] for e in m["entries"]},
         "predicted_s": m["predicted_s"], "plan_totals": m["plan"]["totals"]}
    if args.check:
        r["checks"] = checks(torch, dist, c3t, executor, layers, rank, world)
        try:
            r["copy_engine_device_events"] = diagnostics(torch, dist, executor, layers)
        except Exception as e:  # the profiler is a diagnostic: report and go on
            r["copy_engine_device_events"] = {"error": "%s: %s" % (type(e).__name__, e)}
    r["isolated"] = isolated(torch, dist, executor, layers, args.steps, variants=args.check)
    if args.check:
        r["pairs"] = pair_times(torch, dist, c3t, executor, layers, settings, args.steps)
    r["measured"] = interleaved(torch, dist, MODES["fsdp"],
                                lambda mode: run_step(torch, dist, c3t, executor, layers, mode, settings),
                                args.warmup, args.steps)
    if args.check:
        try:
            r["step_kernels"] = step_kernels(torch, dist, MODES["fsdp"],
                                             lambda mode: run_step(torch, dist, c3t, executor, layers, mode, settings))
        except Exception as e:  # a diagnostic: report and go on
            r["step_kernels"] = {"error": "%s: %s" % (type(e).__name__, e)}
        try:
            r["step_timeline"] = step_timeline(torch, dist, MODES["fsdp"],
                                               lambda mode: run_step(torch, dist, c3t, executor, layers, mode, settings))
        except Exception as e:  # a diagnostic: report and go on
            r["step_timeline"] = {"error": "%s: %s" % (type(e).__name__, e)}
    return r


# ----------------------------------------------------------------------------- TP

class TpLayers:
    """Each layer's weight shards (qkv and gate_up: this rank's columns, k x n/R; o and
    down: its rows, k/R x n) and, per weight, the activations, shared by the layers:
    all-gather pairs: this rank's token shard `a` (tokens/R x k, in symmetric memory so
    that the copy engines can pull it), the gathered input and the output (tokens x n);
    reduce-scatter pairs: the input `a` (tokens x k), the full product and this rank's
    reduce-scattered rows `out` (tokens/R x n)."""

    def __init__(self, torch, executor, pairs, layers, rank, world):
        dev = torch.device("cuda", torch.cuda.current_device())
        g = torch.Generator(device=dev).manual_seed(11 + rank)
        bf16 = torch.bfloat16
        self.pairs = pairs
        self.weights = [{w: torch.empty(p.k, p.n, dtype=bf16, device=dev).normal_(0, 0.02, generator=g)
                         for w, p in pairs.items()} for _ in range(layers)]
        self.act = {}
        for w, p in pairs.items():
            rows = p.m // world
            if p.dependency == "collective_feeds_gemm":
                a = executor.copy_engine.buffer(rows * p.k, bf16).tensor.view(rows, p.k)
                a.normal_(0, 1, generator=g)
                self.act[w] = {"a": a, "gathered": torch.empty(p.m, p.k, dtype=bf16, device=dev),
                               "out": torch.empty(p.m, p.n, dtype=bf16, device=dev)}
            else:
                self.act[w] = {"a": torch.randn(p.m, p.k, dtype=bf16, device=dev, generator=g),
                               "product": torch.empty(p.m, p.n, dtype=bf16, device=dev),
                               "out": torch.empty(rows, p.n, dtype=bf16, device=dev)}


def tp_pair(torch, dist, executor, layers, w, layer, mode, settings, group_name):
    """Runs weight w's pair of one layer in `mode`; returns its output (tokens x n for an
    all-gather pair, this rank's tokens/R x n for a reduce-scatter pair)."""
    p, b, t = layers.pairs[w], layers.weights[layer][w], layers.act[w]
    feeds = p.dependency == "collective_feeds_gemm"
    if mode == "serial":
        if feeds:
            dist.all_gather_into_tensor(t["gathered"], t["a"])
            torch.matmul(t["gathered"], b, out=t["out"])
        else:
            torch.matmul(t["a"], b, out=t["product"])
            dist.reduce_scatter_tensor(t["out"], t["product"])
        return t["out"]
    if mode == "async_tp":
        if feeds:
            _, outs = torch.ops.symm_mem.fused_all_gather_matmul(t["a"], [b], 0, group_name)
            return outs[0]
        return torch.ops.symm_mem.fused_matmul_reduce_scatter(t["a"], b, "sum", 0, group_name)
    out, _ = executor.run_dependent(settings[w], p.dependency, t["a"], b, t["out"])
    return out


def tp_step(torch, dist, executor, layers, mode, settings, group_name):
    for layer in range(len(layers.weights)):
        for w in WEIGHTS:
            tp_pair(torch, dist, executor, layers, w, layer, mode, settings, group_name)


def async_tp_group(torch, dist):
    """The group name PyTorch's async-TP ops take (registering torch.ops.symm_mem)."""
    import torch.distributed._symmetric_memory as symm_mem
    from c3advisor._torch_symm import enable_group
    name = dist.group.WORLD.group_name
    enable_group(symm_mem, name)
    return name


def relative_difference(got, ref):
    """max |got - ref| / max |ref| (0 when both are 0)."""
    diff = (got.float() - ref.float()).abs().max().item()
    scale = ref.float().abs().max().item()
    return diff / scale if scale > 0 else (0.0 if diff == 0 else float("inf"))


def tp_checks(torch, dist, executor, layers, settings, group_name):
    """Each weight's output of layer 0 under async_tp and advised against serial's: the
    max relative difference (max over ranks), whether bit-equal, and ok (within
    TOLERANCE on every rank); a mode that raises is recorded with its error."""
    out = {}
    for w in WEIGHTS:
        ref = tp_pair(torch, dist, executor, layers, w, 0, "serial", settings, group_name).clone()
        out[w] = {}
        for mode in ("async_tp", "advised"):
            error, diff, equal = "", float("inf"), False
            try:
                layers.act[w]["out"].zero_()  # a mode that writes nothing cannot pass
                got = tp_pair(torch, dist, executor, layers, w, 0, mode, settings, group_name)
                torch.cuda.synchronize()
                diff, equal = relative_difference(got, ref), bool(torch.equal(got, ref))
            except Exception as e:  # report, go on (an op this torch lacks, out of memory)
                error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            d = torch.tensor([diff], dtype=torch.float64, device="cuda")
            dist.all_reduce(d, op=dist.ReduceOp.MAX)
            ran = all_ranks_true(torch, dist, not error)  # every rank calls each all_reduce
            out[w][mode] = {"max_relative_difference": d.item(), "bitwise_equal": all_ranks_true(torch, dist, equal),
                            "ok": all_ranks_true(torch, dist, not error and diff <= TOLERANCE)}
            if not ran:
                out[w][mode]["error"] = error or "failed on another rank"
    return out


def tp_isolated(torch, dist, executor, layers, settings, group_name, modes, runs):
    """Each weight's pair (layer 0) alone in every mode, and its GEMM and its NCCL
    collective alone."""
    out = {}
    for w in WEIGHTS:
        p, t, b = layers.pairs[w], layers.act[w], layers.weights[0][w]
        if p.dependency == "collective_feeds_gemm":
            gemm = lambda t=t, b=b: torch.matmul(t["gathered"], b, out=t["out"])
            collective = lambda t=t: dist.all_gather_into_tensor(t["gathered"], t["a"])
        else:
            gemm = lambda t=t, b=b: torch.matmul(t["a"], b, out=t["product"])
            collective = lambda t=t: dist.reduce_scatter_tensor(t["out"], t["product"])
        out[w] = {"gemm": summary(timed(torch, dist, gemm, 3, runs)),
                  "%s_nccl" % p.collective: summary(timed(torch, dist, collective, 3, runs))}
        for mode in modes:
            out[w][mode] = summary(timed(torch, dist, lambda w=w, mode=mode: tp_pair(
                torch, dist, executor, layers, w, 0, mode, settings, group_name), 3, runs))
    return out


def run_tp_model(torch, dist, c3t, executor, args, advice, model, rank, world):
    """One model's TP modes, each output checked against serial's: its entry of the
    results file. A mode whose check fails or raises is not timed."""
    m = advice["models"][model]
    settings = {e["weight"]: c3t.settings_from_json(e["advise"]) for e in m["entries"]}
    executor.prepare(settings.values())
    pairs = tp_pairs(MODELS[model], advice["tokens"], world)
    layers = TpLayers(torch, executor, pairs, m["layers"], rank, world)
    try:
        group_name, symm_error = async_tp_group(torch, dist), ""
    except Exception as e:  # symmetric memory missing: async_tp is reported, not run
        group_name, symm_error = None, "%s: %s" % (type(e).__name__, e)
    r = {"layers": m["layers"], "advice": {e["weight"]: e["advise"]["recommendation"]["name"] for e in m["entries"]},
         "predicted_s": m["predicted_s"], "plan_totals": m["plan"]["totals"],
         "pairs": {w: {"m": p.m, "n": p.n, "k": p.k, "collective": p.collective, "dependency": p.dependency}
                   for w, p in pairs.items()}}
    r["checks"] = tp_checks(torch, dist, executor, layers, settings, group_name)
    if symm_error:
        r["checks"]["async_tp_unavailable"] = symm_error
    modes = [mode for mode in MODES["tp"]
             if mode == "serial" or all(r["checks"][w][mode]["ok"] for w in WEIGHTS)]
    r["not_timed"] = [mode for mode in MODES["tp"] if mode not in modes]
    r["isolated"] = tp_isolated(torch, dist, executor, layers, settings, group_name, modes, args.steps)
    r["measured"] = interleaved(torch, dist, modes,
                                lambda mode: tp_step(torch, dist, executor, layers, mode, settings, group_name),
                                args.warmup, args.steps)
    return r


# ----------------------------------------------------------------------------- the GPU run

RUN_MODEL = {"fsdp": run_fsdp_model, "tp": run_tp_model}


def run_gpu(args):
    for k, v in MULTICAST_OFF.items():
        if os.environ.get(k) != v:
            sys.exit("set %s (NVLink multicast stays off on shared machines)" %
                     " ".join("%s=%s" % kv for kv in MULTICAST_OFF.items()))
    with open(args.advice_json) as f:
        advice = json.load(f)
    parallel = advice.get("parallel", "fsdp")  # files of before --parallel are FSDP's
    if args.parallel_given and args.parallel != parallel:
        sys.exit("%s holds %s advice, not %s (--prepare it with --parallel %s)" %
                 (args.advice_json, parallel, args.parallel, args.parallel))
    missing = [model for model in args.models.split(",") if model not in advice["models"]]
    if missing:
        sys.exit("%s has no advice for %s (it has %s)" % (args.advice_json, ", ".join(missing),
                                                          ", ".join(advice["models"])))
    import torch
    import torch.distributed as dist
    import c3advisor.torch as c3t

    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    if world != advice["ranks"]:
        sys.exit("the advice is for %d ranks, this run has %d" % (advice["ranks"], world))
    executor = c3t.Executor()
    result = {"provenance": provenance(torch, world, sys.argv), "parallel": parallel, "profile": advice["profile"],
              "tokens": advice["tokens"], "steps": args.steps, "warmup": args.warmup, "models": {}}
    for model in args.models.split(","):
        m = advice["models"][model]
        r = RUN_MODEL[parallel](torch, dist, c3t, executor, args, advice, model, rank, world)
        compare(r, parallel, m["predicted_s"])
        result["models"][model] = r
        if rank == 0:
            report("%s, %s, %d layers, %d tokens%s, %d GPUs (advice: %s)" %
                   (MODELS[model]["title"], parallel.upper(), m["layers"], advice["tokens"],
                    "/GPU" if parallel == "fsdp" else "", world,
                    ", ".join("%s %s" % kv for kv in r["advice"].items())), r, parallel)
            if args.out:
                with open(args.out, "w") as f:
                    json.dump(result, f, indent=1)
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prepare", metavar="ADVICE_JSON", help="write the traces' advice and plans (no torch needed)")
    ap.add_argument("--advice-json", help="the file --prepare wrote (the GPU run)")
    ap.add_argument("--out", help="the GPU run's results (JSON)")
    ap.add_argument("--parallel", choices=sorted(PAIRS),
                    help="fsdp (default) or tp; the GPU run takes it from the advice file")
    ap.add_argument("--models", default="8b,70b")
    ap.add_argument("--layers", type=int, default=0,
                    help="layers per model (default 8 for 8b, 4 for 70b; fsdp: even)")
    ap.add_argument("--tokens", type=int, default=8192,
                    help="fsdp: tokens per GPU; tp: tokens of the sequence the ranks share (each holds 1/ranks)")
    ap.add_argument("--profile", default="h200x2")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--check", action="store_true",
                    help="fsdp: verify the copy-engine path and green contexts too, and time each weight's pair alone in every mode (tp always checks its outputs)")
    args = ap.parse_args()
    args.parallel_given = args.parallel is not None
    args.parallel = args.parallel or "fsdp"
    for model in args.models.split(","):
        if model not in MODELS:
            ap.error("unknown model %r (have %s)" % (model, ", ".join(MODELS)))
    if args.layers < 0 or (args.layers % 2 and args.parallel == "fsdp"):
        ap.error("--layers must be even and >= 0 (two gathered-weight buffers alternate)"
                 if args.parallel == "fsdp" else "--layers must be >= 0")
    if args.tokens <= 0 or args.ranks < 2 or args.steps < 1 or args.warmup < 0:
        ap.error("--tokens must be > 0, --ranks >= 2, --steps >= 1, --warmup >= 0")
    if args.prepare:
        try:
            for model in args.models.split(","):
                PAIRS[args.parallel](MODELS[model], args.tokens, args.ranks)
        except ValueError as e:
            ap.error(str(e))
        prepare(args)
    elif args.advice_json:
        run_gpu(args)
    else:
        ap.error("give --prepare FILE (advice) or --advice-json FILE (the GPU run)")


if __name__ == "__main__":
    main()
