#!/usr/bin/env python3
"""An FSDP-style forward step over N transformer layers (LLaMA-3 8B and 70B layer shapes,
bf16), each layer's weights sharded over the ranks and all-gathered before use, with
layer i+1's all-gather prefetched while layer i's GEMMs run, run three ways:

  default   PyTorch's FSDP default: the all-gather launched first on the NCCL group's
            own stream (async_op=True), the GEMM on the compute stream
  advised   each pair run as c3advisor advised it, through c3advisor.torch
  serial    the all-gather, then the GEMM

and c3advisor `plan`'s prediction of each, for the same trace (which this script writes).
docs/frameworks.md shows a run's numbers. Two steps:

  # 1. anywhere libc3advisor.so is (no torch, no GPU): the traces, advice and plans
  PYTHONPATH=build/python python3 examples/torch_fsdp_overlap.py --prepare advice.json
  # 2. on the GPUs (torch only), one process per GPU; NVLink multicast stays off
  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
    PYTHONPATH=python torchrun --nproc-per-node 2 examples/torch_fsdp_overlap.py \\
    --advice-json advice.json --out results.json

Pairs follow data/traces/*_fsdp.yaml: at weight granularity, each forward GEMM of layer
i (x[tokens, in] @ W[in, out]) with the all-gather of the same weight of layer i+1; the
last layer prefetches layer 0 (the next step's first layer), so every GEMM has a pair
and the trace's repeat is N. Each pair ends when both its kernels have (the two streams
join), so the step is the sum of its pairs, as `plan` adds them. Left out, as in the
traces: attention's core, norms, embedding, backward."""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

# LLaMA-3 configs (Meta's config.json): hidden, FFN, query heads, KV heads, head dim.
MODELS = {
    "8b": {"hidden": 4096, "ffn": 14336, "heads": 32, "kv_heads": 8, "head_dim": 128, "layers": 8},
    "70b": {"hidden": 8192, "ffn": 28672, "heads": 64, "kv_heads": 8, "head_dim": 128, "layers": 4},
}
WEIGHTS = ("qkv", "o", "gate_up", "down")
MODES = ("default", "advised", "serial")
MULTICAST_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def weight_shapes(cfg):
    """(in, out) of each weight of one layer, in forward order."""
    h, f = cfg["hidden"], cfg["ffn"]
    qkv = (cfg["heads"] + 2 * cfg["kv_heads"]) * cfg["head_dim"]
    return {"qkv": (h, qkv), "o": (cfg["heads"] * cfg["head_dim"], h), "gate_up": (h, 2 * f), "down": (f, h)}


def trace_yaml(model, cfg, tokens, layers, ranks):
    """The trace of one step (the format of data/traces/*.yaml, docs/formats.md)."""
    lines = ["# written by examples/torch_fsdp_overlap.py: the forward GEMMs of one FSDP step of",
             "# LLaMA-3 %s (%d layers), each with the all-gather of the same weight of the next layer." %
             (model.upper(), layers),
             "schema_version: 1", "name: torch_fsdp_%s" % model,
             'description: "forward of %d LLaMA-3 %s layers, %d tokens per GPU, bf16, FSDP over %d ranks"' %
             (layers, model.upper(), tokens, ranks),
             'provenance: {source: published, ref: "Meta Llama 3 %s config.json; examples/torch_fsdp_overlap.py"}' %
             model.upper(),
             "defaults: {dtype: bf16, ranks: %d}" % ranks, "entries:"]
    for w, (k, n) in weight_shapes(cfg).items():
        lines.append("  - {name: fwd_%s__ag_next_%s, gemm: %dx%dx%d, collective: all_gather, size: %d, repeat: %d}" %
                     (w, w, tokens, n, k, k * n * 2, layers))
    return "\n".join(lines) + "\n"


def prepare(args):
    """Advice and plan of every model's trace, through the Python package (no torch)."""
    import c3advisor
    advisor = c3advisor.Advisor(args.profile)
    doc = {"profile": args.profile, "ranks": args.ranks, "tokens": args.tokens, "models": {}}
    for model in args.models.split(","):
        cfg, layers = MODELS[model], args.layers or MODELS[model]["layers"]
        trace = trace_yaml(model, cfg, args.tokens, layers, args.ranks)
        plan = json.loads(advisor.plan(trace).json)
        entries = []
        for w, (k, n) in weight_shapes(cfg).items():
            advice = advisor.advise(gemm=(args.tokens, n, k), collective="all_gather", size=k * n * 2,
                                    ranks=args.ranks)
            entries.append({"weight": w, "advise": json.loads(advice.json)})
        doc["models"][model] = {"layers": layers, "trace": trace, "plan": plan, "entries": entries,
                                "predicted_s": predictions(entries, layers)}
    with open(args.prepare, "w") as f:
        json.dump(doc, f, indent=1)
    for model, m in doc["models"].items():
        print("%s: %s" % (model, ", ".join("%s %s" % (e["weight"], e["advise"]["recommendation"]["name"])
                                           for e in m["entries"])))
        print("  predicted step: " + ", ".join("%s %.3f ms" % (k, v * 1e3) for k, v in m["predicted_s"].items()))


def predictions(entries, layers):
    """Each mode's predicted step: default = `sp` (collective first, library's CTAs),
    advised = the recommendation, serial; summed over the pairs (repeat = layers)."""
    def strategy_s(doc, name):
        return next(s["predicted_s"] for s in doc["strategies"] if s["name"] == name)
    out = {"default": 0.0, "advised": 0.0, "serial": 0.0}
    for e in entries:
        d = e["advise"]
        out["default"] += layers * strategy_s(d, "sp")
        out["advised"] += layers * d["recommendation"]["predicted_s"]
        out["serial"] += layers * strategy_s(d, "serial")
    return out


# ----------------------------------------------------------------------------- GPU part

def summary(times_s):
    return {"median_s": statistics.median(times_s), "min_s": min(times_s), "max_s": max(times_s),
            "runs_s": times_s}


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

    def pairs(self):
        """(weight, layer i's GEMM, all-gather output, next layer's shard) in step order."""
        n = len(self.shards)
        for i in range(n):
            cur, nxt = i % 2, (i + 1) % 2
            for w in WEIGHTS:
                yield w, self.gemm(w, cur), self.gathered[nxt][w], self.shards[(i + 1) % n][w]


def run_step(torch, dist, c3t, executor, layers, mode, settings):
    for w, gemm, out, shard in layers.pairs():
        if mode == "serial":
            dist.all_gather_into_tensor(out, shard)
            gemm()
        elif mode == "default":
            work = dist.all_gather_into_tensor(out, shard, async_op=True)
            gemm()
            work.wait()
        else:
            executor.run_pair(settings[w], gemm, c3t.AllGather(out, shard))


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


def all_ranks_true(torch, dist, ok):
    t = torch.tensor([1 if ok else 0], device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return bool(t.item())


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


def isolated(torch, dist, executor, layers, runs):
    """Each weight's GEMM, NCCL all-gather and copy-engine all-gather alone."""
    out = {}
    for w in WEIGHTS:
        gemm = layers.gemm(w, 0)
        out_buf, shard = layers.gathered[1][w], layers.shards[0][w]
        out[w] = {"gemm": summary(timed(torch, dist, gemm, 3, runs)),
                  "all_gather_nccl": summary(timed(torch, dist, lambda: dist.all_gather_into_tensor(out_buf, shard), 3, runs)),
                  "all_gather_copy_engine": summary(timed(
                      torch, dist, lambda: executor.copy_engine.all_gather_into_tensor(out_buf, shard), 3, runs))}
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


def provenance(torch, world, argv):
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {"device": props.name, "gpus": world, "sms": props.multi_processor_count,
            "versions": {"torch": torch.__version__, "cuda": str(torch.version.cuda),
                         "nccl": ".".join(str(v) for v in torch.cuda.nccl.version())},
            "git_sha": os.environ.get("C3_GIT_SHA", "unknown"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": "torchrun --nproc-per-node %d %s" % (world, " ".join(argv)),
            "environment": {k: os.environ.get(k) for k in MULTICAST_OFF}}


def run_gpu(args):
    for k, v in MULTICAST_OFF.items():
        if os.environ.get(k) != v:
            sys.exit("set %s (NVLink multicast stays off on shared machines)" %
                     " ".join("%s=%s" % kv for kv in MULTICAST_OFF.items()))
    import torch
    import torch.distributed as dist
    import c3advisor.torch as c3t

    with open(args.advice_json) as f:
        advice = json.load(f)
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    if world != advice["ranks"]:
        sys.exit("the advice is for %d ranks, this run has %d" % (advice["ranks"], world))
    executor = c3t.Executor()
    result = {"provenance": provenance(torch, world, sys.argv), "profile": advice["profile"],
              "tokens": advice["tokens"], "steps": args.steps, "warmup": args.warmup, "models": {}}
    for model in args.models.split(","):
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
        r["isolated"] = isolated(torch, dist, executor, layers, args.steps)
        # Modes interleaved step by step, so that drift hits all three alike.
        for mode in MODES:
            for _ in range(args.warmup):
                run_step(torch, dist, c3t, executor, layers, mode, settings)
        runs = {mode: [] for mode in MODES}
        for _ in range(args.steps):
            for mode in MODES:
                runs[mode] += timed(torch, dist, lambda: run_step(torch, dist, c3t, executor, layers, mode, settings), 0, 1)
        r["measured"] = {mode: summary(runs[mode]) for mode in MODES}
        d, a = r["measured"]["default"]["median_s"], r["measured"]["advised"]["median_s"]
        r["advised_vs_default"] = d / a - 1.0
        r["prediction_error"] = {mode: m["predicted_s"][mode] / r["measured"][mode]["median_s"] - 1.0 for mode in MODES}
        result["models"][model] = r
        if rank == 0:
            print("LLaMA-3 %s, %d layers, %d tokens/GPU, %d GPUs (advice: %s)" %
                  (model.upper(), m["layers"], advice["tokens"], world,
                   ", ".join("%s %s" % kv for kv in r["advice"].items())))
            for mode in MODES:
                s = r["measured"][mode]
                print("  %-8s measured %8.3f ms (min %.3f, max %.3f)  predicted %8.3f ms (%+.1f%%)" %
                      (mode, s["median_s"] * 1e3, s["min_s"] * 1e3, s["max_s"] * 1e3,
                       m["predicted_s"][mode] * 1e3, r["prediction_error"][mode] * 100))
            print("  advised vs default: %+.1f%%" % (r["advised_vs_default"] * 100), flush=True)
            if args.out:
                with open(args.out, "w") as f:
                    json.dump(result, f, indent=1)
        del layers
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prepare", metavar="ADVICE_JSON", help="write the traces' advice and plans (no torch needed)")
    ap.add_argument("--advice-json", help="the file --prepare wrote (the GPU run)")
    ap.add_argument("--out", help="the GPU run's results (JSON)")
    ap.add_argument("--models", default="8b,70b")
    ap.add_argument("--layers", type=int, default=0, help="layers per model (even; default 8 for 8b, 4 for 70b)")
    ap.add_argument("--tokens", type=int, default=8192, help="tokens per GPU")
    ap.add_argument("--profile", default="h200x2")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="verify the copy-engine path and green contexts too")
    args = ap.parse_args()
    for model in args.models.split(","):
        if model not in MODELS:
            ap.error("unknown model %r (have %s)" % (model, ", ".join(MODELS)))
    if args.layers and args.layers % 2:
        ap.error("--layers must be even (two gathered-weight buffers alternate)")
    if args.prepare:
        prepare(args)
    elif args.advice_json:
        run_gpu(args)
    else:
        ap.error("give --prepare FILE (advice) or --advice-json FILE (the GPU run)")


if __name__ == "__main__":
    main()
