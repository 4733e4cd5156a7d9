#!/usr/bin/env python3
"""Times PyTorch's own ways of running c3advisor's dependent pairs, one process per GPU,
and writes them into the raw measurements JSON that `c3advisor measure` wrote for the
same pairs, under the top-level key "peers" (docs/formats.md), so that c3advisor's
schedules and PyTorch's are compared from one run (`c3advisor validate`):

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
      torchrun --nproc-per-node 2 scripts/gpu-jobs/async_tp.py --raw dependent.json

The pairs are the file's concurrent records with a `dependency` at ranks = the number of
processes (the scenarios `measure` ran). Per pair, two implementations:

  torch_serial    all_gather_into_tensor then matmul (collective_feeds_gemm), or matmul
                  then reduce_scatter_tensor (gemm_feeds_collective), on the default NCCL
                  group, one stream: the serial path a framework runs by default;
  torch_async_tp  torch.ops.symm_mem.fused_all_gather_matmul, or
                  torch.ops.symm_mem.fused_matmul_reduce_scatter (PyTorch's async tensor
                  parallel, over symmetric memory; NVLink multicast stays off).

Shapes per rank, c3advisor's pair m x n x k with an all_gather of m k b bytes (the gathered
A) or a reduce_scatter of m n b bytes (the GEMM's output C): all-gather, A's shard m/R x k
gathered into m x k, times B k x n (the issue's "M x K x N per rank" with M = m, K = k,
N = n); reduce-scatter, A m x k times B k x n, C m x n reduce-scattered into m/R x n.
all_to_all pairs (no async-TP op) and pairs at other ranks are skipped.

Timing: warm-up runs, then timed runs, each from a barrier-aligned start to its end (CUDA
events; every run's time is the max over ranks), median, min and max. The async result
is compared with the serial one (bf16: max |async - serial| <= tolerance x max |serial|,
and the gathered A bit for bit). A pair or implementation that fails (out of memory, an
op this torch lacks) is recorded with its error; the run goes on. Rank 0 rewrites the
file after each pair (temporary file, then rename), keeping every record and every
peer entry of other pairs.

Everything above `main` is plain Python (no torch): tests/python/test_async_tp.py."""
import argparse
import collections
import datetime
import json
import os
import statistics
import sys
import time

IMPLEMENTATIONS = ("torch_serial", "torch_async_tp")
SERIAL, ASYNC_TP = IMPLEMENTATIONS
ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "fp8": 1}
TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
# The dependency each async-TP op implements, by collective kind.
SUPPORTED = {"all_gather": "collective_feeds_gemm", "reduce_scatter": "gemm_feeds_collective"}
MULTICAST_OFF = (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                 ("NVSHMEM_DISABLE_NVLS", "1"))

Pair = collections.namedtuple("Pair", "m n k dtype kind size_bytes ranks dependency")


# ---- arguments and environment ----

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--raw", required=True,
                    help="c3advisor raw measurements JSON: read for the pairs, rewritten with 'peers'")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per implementation (>= 1)")
    ap.add_argument("--warmup", type=int, default=5, help="warm-up runs per implementation (>= 0)")
    ap.add_argument("--tolerance", type=float, default=2e-2,
                    help="max |async - serial| / max |serial| accepted (bf16: a few units of the last place)")
    ap.add_argument("--implementations", default=",".join(IMPLEMENTATIONS),
                    help="comma-separated, of: " + ", ".join(IMPLEMENTATIONS))
    ap.add_argument("--budget-s", type=float, default=0.0,
                    help="start no pair after this many seconds (0: no limit)")
    ap.add_argument("--pg-timeout-s", type=float, default=300.0,
                    help="process group timeout: a rank stuck in a collective ends the run after it")
    a = ap.parse_args(argv)
    a.implementations = [s for s in a.implementations.split(",") if s]
    bad = [s for s in a.implementations if s not in IMPLEMENTATIONS]
    if bad or not a.implementations:
        ap.error("--implementations: %s (valid: %s)" % (",".join(bad) or "none given", ", ".join(IMPLEMENTATIONS)))
    if a.runs < 1 or a.warmup < 0:
        ap.error("--runs must be >= 1 and --warmup >= 0")
    if not a.tolerance > 0:
        ap.error("--tolerance must be > 0")
    return a


def multicast_problem(environ):
    """None when NVLink multicast is off in `environ`, else the message to stop with."""
    wrong = [k for k, v in MULTICAST_OFF if environ.get(k) != v]
    if not wrong:
        return None
    return ("NVLink multicast must stay off: set %s (%s not set so)" %
            (" ".join("%s=%s" % kv for kv in MULTICAST_OFF), ", ".join(wrong)))


# ---- the raw measurements file ----

def load_raw(path):
    """The raw measurements document at `path`; ValueError naming the file when it is not one."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError("%s: cannot read a JSON document: %s" % (path, e)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("records"), list) or doc.get("schema_version") != 1:
        raise ValueError("%s: not a c3advisor raw measurements file (schema_version 1 with 'records')" % path)
    if "peers" in doc and not isinstance(doc["peers"], list):
        raise ValueError("%s: 'peers' must be a list" % path)
    return doc


def dependent_pairs(doc):
    """The distinct pairs of the document's concurrent records that have a dependency, in
    the order of their first record."""
    out, seen = [], set()
    for r in doc.get("records", []):
        if not isinstance(r, dict) or r.get("what") != "concurrent" or r.get("dependency", "none") == "none":
            continue
        p = Pair(int(r["m"]), int(r["n"]), int(r["k"]), str(r["dtype"]), str(r["kind"]),
                 int(r["size_bytes"]), int(r["ranks"]), str(r["dependency"]))
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def runnable(pairs, world):
    """(pairs to time, [(pair, why skipped)]): async-TP has ops for all_gather feeding the
    GEMM and the GEMM feeding reduce_scatter only, and a pair runs at its own ranks."""
    keep, skipped = [], []
    for p in pairs:
        if SUPPORTED.get(p.kind) != p.dependency:
            skipped.append((p, "PyTorch has no async-TP op for %s with %s" % (p.kind, p.dependency)))
        elif p.ranks != world:
            skipped.append((p, "measured at %d ranks, this run has %d" % (p.ranks, world)))
        else:
            keep.append(p)
    return keep, skipped


def peer_shapes(pair, world):
    """The tensors' shapes per rank. collective_feeds_gemm (all_gather): a = A's shard
    (m/R, k), gathered = (m, k), b = (k, n), out = (m, n). gemm_feeds_collective
    (reduce_scatter): a = (m, k), b = (k, n), product = (m, n), out = (m/R, n).
    ValueError when the pair cannot be run so."""
    if SUPPORTED.get(pair.kind) != pair.dependency:
        raise ValueError("no async-TP op for %s with %s" % (pair.kind, pair.dependency))
    if pair.ranks != world:
        raise ValueError("the pair is at %d ranks, this run has %d" % (pair.ranks, world))
    if min(pair.m, pair.n, pair.k) <= 0:
        raise ValueError("GEMM %dx%dx%d: dimensions must be > 0" % (pair.m, pair.n, pair.k))
    if pair.dtype not in ELEMENT_BYTES:
        raise ValueError("unknown dtype %r" % pair.dtype)
    if pair.m % world:
        raise ValueError("m = %d rows do not split into %d ranks" % (pair.m, world))
    feeds = pair.dependency == "collective_feeds_gemm"
    operand = pair.m * (pair.k if feeds else pair.n) * ELEMENT_BYTES[pair.dtype]
    if pair.size_bytes != operand:
        raise ValueError("the %s moves %d bytes, not the GEMM's %s (%d bytes)" %
                         (pair.kind, pair.size_bytes, "A, m x k" if feeds else "C, m x n", operand))
    if pair.dtype not in TORCH_DTYPES:
        raise ValueError("dtype %s: the async-TP ops here take bf16, fp16 or fp32 (fp8 needs the scaled ops)" %
                         pair.dtype)
    rows = pair.m // world
    if feeds:
        return {"a": (rows, pair.k), "gathered": (pair.m, pair.k), "b": (pair.k, pair.n), "out": (pair.m, pair.n)}
    return {"a": (pair.m, pair.k), "b": (pair.k, pair.n), "product": (pair.m, pair.n), "out": (rows, pair.n)}


def describe(pair):
    link = "<-" if pair.dependency == "collective_feeds_gemm" else "->"
    return "%dx%dx%d:%s %s %s %d B" % (pair.m, pair.n, pair.k, pair.dtype, link, pair.kind, pair.size_bytes)


def peer_entry(pair, implementation, runs_s, warmup, verified, error, device, versions):
    """One entry of "peers": the pair's parameters as in its records, then the measurement
    as in a record (ok, error, median_s, min_s, max_s, runs_s, warmup_runs, verified). A
    failed entry keeps the runs it timed (a wrong result: every run) with zero times."""
    ok = not error and bool(runs_s)
    return {"implementation": implementation, "m": pair.m, "n": pair.n, "k": pair.k, "dtype": pair.dtype,
            "kind": pair.kind, "size_bytes": pair.size_bytes, "ranks": pair.ranks, "dependency": pair.dependency,
            "ok": ok, "error": "" if ok else (error or "no timed run"),
            "median_s": statistics.median(runs_s) if ok else 0.0,
            "min_s": min(runs_s) if ok else 0.0, "max_s": max(runs_s) if ok else 0.0,
            "runs_s": [float(t) for t in runs_s], "warmup_runs": int(warmup),
            "verified": bool(verified and ok), "device": device, "versions": dict(versions)}


def identity(entry):
    """What makes two peer entries the same measurement (the one to replace)."""
    return tuple(entry.get(k) for k in ("implementation", "m", "n", "k", "dtype", "kind", "size_bytes", "ranks",
                                         "dependency"))


def merge_peers(doc, entries):
    """`doc` with `entries` in its "peers": an entry replaces the one of the same
    implementation and pair, in place; new ones are appended. Every other key is kept."""
    out = dict(doc)
    peers = list(doc.get("peers", []))
    where = {identity(e): i for i, e in enumerate(peers)}
    for e in entries:
        i = where.get(identity(e))
        if i is None:
            where[identity(e)] = len(peers)
            peers.append(e)
        else:
            peers[i] = e
    out["peers"] = peers
    return out


def write_atomically(path, doc):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def save_entries(path, entries):
    """Re-reads `path`, merges `entries` into its peers and rewrites it atomically."""
    write_atomically(path, merge_peers(load_raw(path), entries))


def first_line(e):
    text = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, text[0] if text else "")


def run_pairs(pairs, bench, implementations, save, log, budget_s=0.0, clock=time.monotonic,
              agree=lambda ok: ok):
    """Times every pair with `bench` (bench.measure(pair, implementations) -> {implementation:
    (runs_s, verified, error)}, bench.warmup, bench.device, bench.versions) and calls
    save(entries) after each pair. An exception of one pair becomes an error entry for each
    implementation; the next pair runs. With budget_s > 0 no pair starts after budget_s
    seconds (agree(ok): True when ok on every rank, so that the ranks stop together).
    Returns the entries."""
    start = clock()
    all_entries = []
    for i, pair in enumerate(pairs):
        if budget_s > 0 and not agree(clock() - start <= budget_s):
            log("budget of %.0f s spent: %d of %d pairs not started" % (budget_s, len(pairs) - i, len(pairs)))
            break
        try:
            results = bench.measure(pair, implementations)
        except Exception as e:  # noqa: BLE001 -- recorded, never ends the run
            results = {impl: ([], False, first_line(e)) for impl in implementations}
        entries = []
        for impl in implementations:
            runs_s, verified, error = results.get(impl, ([], False, "not run"))
            entries.append(peer_entry(pair, impl, runs_s, bench.warmup, verified, error, bench.device,
                                      bench.versions))
            e = entries[-1]
            log("%-40s %-15s %s" % (describe(pair), impl, "%9.3f ms  %s" % (e["median_s"] * 1e3, "verified"
                if e["verified"] else "NOT verified") if e["ok"] else "FAILED " + e["error"]))
        save(entries)
        all_entries += entries
    return all_entries


def relative_difference(max_abs_difference, max_abs_reference):
    """max |got - ref| / max |ref| (0 / 0 = 0; x / 0 = inf)."""
    if max_abs_reference == 0:
        return 0.0 if max_abs_difference == 0 else float("inf")
    return max_abs_difference / max_abs_reference


# ---- on the GPUs (torch) ----

class TorchBench:
    """The two implementations on the GPUs of one process group (one process per GPU)."""

    def __init__(self, torch, dist, runs, warmup, tolerance):
        self.torch, self.dist = torch, dist
        self.runs, self.warmup, self.tolerance = runs, warmup, tolerance
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.group_name = dist.group.WORLD.group_name
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.device = "%s x%d" % (props.name, self.world)
        self.versions = {"torch": str(torch.__version__), "cuda": str(torch.version.cuda),
                         "nccl": ".".join(str(v) for v in torch.cuda.nccl.version())}
        self.symm_error = ""
        try:
            import torch.distributed._symmetric_memory as symm_mem  # registers torch.ops.symm_mem
            enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
            if enable is not None:  # needed before PyTorch 2.8, a no-op or absent later
                enable(self.group_name)
        except (ImportError, RuntimeError, AttributeError) as e:
            self.symm_error = "symmetric memory unavailable: " + first_line(e)

    def agree(self, ok):
        """True when `ok` on every rank."""
        t = self.torch.tensor([1 if ok else 0], device="cuda")
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MIN)
        return bool(t.item())

    def _time(self, fn):
        torch, dist = self.torch, self.dist
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for i in range(self.warmup + self.runs):
            torch.cuda.synchronize()
            dist.barrier()
            start.record()
            fn()
            end.record()
            end.synchronize()
            if i >= self.warmup:
                times.append(start.elapsed_time(end) / 1e3)
        t = torch.tensor(times, dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.tolist()

    def _close(self, got, ref):
        diff = (got.float() - ref.float()).abs().max().item()
        scale = ref.float().abs().max().item()
        return relative_difference(diff, scale)

    def _tensors(self, pair, shapes):
        torch = self.torch
        dtype = getattr(torch, TORCH_DTYPES[pair.dtype])
        g = torch.Generator(device="cuda")
        g.manual_seed(1000 + self.rank)
        t = {"a": torch.randn(shapes["a"], dtype=dtype, device="cuda", generator=g),
             "b": torch.randn(shapes["b"], dtype=dtype, device="cuda", generator=g)}
        for name in ("gathered", "product", "out"):
            if name in shapes:
                t[name] = torch.empty(shapes[name], dtype=dtype, device="cuda")
        return t

    def _one(self, fn, check):
        """(runs_s, verified, error) of one implementation, agreed over the ranks. check()
        returns (True, ""), (False, why) for a wrong result, or (False, "") when there is
        nothing to check against."""
        runs, error = [], ""
        try:
            runs = self._time(fn)
        except Exception as e:  # noqa: BLE001 -- OOM, an op this torch lacks: recorded
            error = first_line(e)
            self.torch.cuda.empty_cache()
        if not self.agree(not error):
            return [], False, error or "failed on another rank"
        try:
            close, why = check()
        except Exception as e:  # noqa: BLE001
            close, why = False, "the check failed: " + first_line(e)
        if self.agree(close):
            return runs, True, ""
        unchecked = self.agree(not why)  # False when some rank found a wrong result
        return runs, False, "" if unchecked else "verification_failed: " + (why or "on another rank")

    def measure(self, pair, implementations):
        torch, dist = self.torch, self.dist
        shapes = peer_shapes(pair, self.world)
        feeds = pair.dependency == "collective_feeds_gemm"
        t, alloc_error = None, ""
        try:
            t = self._tensors(pair, shapes)
        except Exception as e:  # noqa: BLE001
            alloc_error = first_line(e)
        if not self.agree(not alloc_error):
            t = None
            torch.cuda.empty_cache()
            return {impl: ([], False, alloc_error or "allocation failed on another rank") for impl in implementations}
        ref, result = {}, {}

        def serial():
            if feeds:
                dist.all_gather_into_tensor(t["gathered"], t["a"])
                torch.mm(t["gathered"], t["b"], out=t["out"])
            else:
                torch.mm(t["a"], t["b"], out=t["product"])
                dist.reduce_scatter_tensor(t["out"], t["product"])

        def serial_check():
            # serial is the reference: finite, and this rank's rows of the gathered A are its shard
            own = not feeds or torch.equal(t["gathered"].narrow(0, self.rank * shapes["a"][0], shapes["a"][0]), t["a"])
            finite = bool(torch.isfinite(t["out"]).all().item())
            if not (own and finite):
                return False, "the serial output is not finite or not gathered in rank order"
            ref["out"], ref["gathered"] = t["out"], t.get("gathered")
            return True, ""

        def async_tp():
            if self.symm_error:
                raise RuntimeError(self.symm_error)
            if feeds:
                gathered, outs = torch.ops.symm_mem.fused_all_gather_matmul(t["a"], [t["b"]], 0, self.group_name)
                result["gathered"], result["out"] = gathered, outs[0]
            else:
                result["out"] = torch.ops.symm_mem.fused_matmul_reduce_scatter(t["a"], t["b"], "sum", 0,
                                                                                self.group_name)

        def async_check():
            if "out" not in ref:
                return False, ""  # timed, but no serial result to compare with
            if feeds and not torch.equal(result["gathered"], ref["gathered"]):
                return False, "the gathered A differs from all_gather_into_tensor's"
            d = self._close(result["out"], ref["out"])
            if d <= self.tolerance:
                return True, ""
            return False, "max |async - serial| / max |serial| = %.3g > %.3g" % (d, self.tolerance)

        out = {}
        # serial first: it is the reference the async result is checked against
        if SERIAL in implementations:
            out[SERIAL] = self._one(serial, serial_check)
        if ASYNC_TP in implementations:
            out[ASYNC_TP] = self._one(async_tp, async_check)
        ref.clear()
        result.clear()
        t = None
        torch.cuda.empty_cache()
        return out


def main(argv=None):
    a = parse_args(argv)
    problem = multicast_problem(os.environ)
    if problem:
        sys.exit(problem)
    try:
        pairs = dependent_pairs(load_raw(a.raw))
    except ValueError as e:
        sys.exit(str(e))

    import torch
    import torch.distributed as dist

    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local),
                            timeout=datetime.timedelta(seconds=a.pg_timeout_s))
    rank, world = dist.get_rank(), dist.get_world_size()
    log = (lambda line: print(line, flush=True)) if rank == 0 else (lambda line: None)
    todo, skipped = runnable(pairs, world)
    for p, why in skipped:
        log("%-40s skipped: %s" % (describe(p), why))
    if not todo:
        log("%s: no dependent all_gather or reduce_scatter pair at %d ranks" % (a.raw, world))
    bench = TorchBench(torch, dist, a.runs, a.warmup, a.tolerance)
    save = (lambda entries: save_entries(a.raw, entries)) if rank == 0 else (lambda entries: None)
    entries = run_pairs(todo, bench, a.implementations, save, log, a.budget_s, agree=bench.agree)
    log("%s: %d peer entries written (%d failed)" % (a.raw, len(entries), sum(not e["ok"] for e in entries)))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
