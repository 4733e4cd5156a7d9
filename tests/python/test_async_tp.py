"""Tests of scripts/gpu-jobs/async_tp.py (ctest python_async_tp): its plain parts (arguments,
the pairs read from a raw measurements file, the shapes per rank, the peer entries and
their merge into the file), its loop (failures recorded, the budget), and the whole
script against tests/python/fake_torch_dist.py (no torch or GPU here): what it passes to
torch, what it writes, and that the command line reads the file back and keeps the peers
through `measure --resume`. What PyTorch does on the GPUs is measured, not tested
(docs/accuracy.md, "Peers").

Environment (set by ctest): C3ADVISOR_CLI, C3_SOURCE_DIR."""
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import tempfile
import unittest
from unittest import mock

import fake_torch_dist

CLI = os.environ.get("C3ADVISOR_CLI", "c3advisor")
SOURCE = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MULTICAST_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def load_script():
    path = os.path.join(SOURCE, "scripts", "gpu-jobs", "async_tp.py")
    spec = importlib.util.spec_from_file_location("async_tp", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tp = load_script()


def cli(*args, check=True):
    done = subprocess.run([CLI, *args], cwd=SOURCE, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError("c3advisor %s: %s" % (" ".join(args), done.stderr))
    return done


def concurrent_record(m, n, k, kind, ranks, dependency, strategy="serial", dtype="bf16"):
    """A record as `measure` writes it (io/raw_measurements.cpp; its key is checked on load)."""
    size = m * (k if dependency == "collective_feeds_gemm" else n) * 2
    key = "concurrent %dx%dx%d:%s %s size_bytes=%d ranks=%d strategy=%s" % (m, n, k, dtype, kind, size, ranks, strategy)
    record = {"key": key, "what": "concurrent", "m": m, "n": n, "k": k, "dtype": dtype, "kind": kind,
              "size_bytes": size, "ranks": ranks, "strategy": strategy}
    if dependency != "none":
        record["key"] += " dependency=" + dependency
        record["dependency"] = dependency
    record.update({"ok": True, "error": "", "median_s": 1e-3, "min_s": 1e-3, "max_s": 1e-3, "runs_s": [1e-3],
                   "warmup_runs": 1, "verified": True})
    return record


AG = ("collective_feeds_gemm", "all_gather")
RS = ("gemm_feeds_collective", "reduce_scatter")


def document(records):
    return {"schema_version": 1, "provenance": {}, "records": records}


class Arguments(unittest.TestCase):
    def test_defaults_are_the_issues_median_of_20(self):
        a = tp.parse_args(["--raw", "x.json"])
        self.assertEqual((a.runs, a.warmup, a.implementations), (20, 5, ["torch_serial", "torch_async_tp"]))
        self.assertEqual(tp.parse_args(["--raw", "x", "--implementations", "torch_async_tp"]).implementations,
                         ["torch_async_tp"])

    def test_bad_arguments_exit(self):
        for argv in (["--raw", "x", "--implementations", "torch_fast"], ["--raw", "x", "--runs", "0"],
                     ["--raw", "x", "--warmup", "-1"], ["--raw", "x", "--tolerance", "0"], []):
            with self.subTest(argv=argv), self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                tp.parse_args(argv)

    def test_multicast_must_be_off(self):
        self.assertIsNone(tp.multicast_problem(MULTICAST_OFF))
        problem = tp.multicast_problem(dict(MULTICAST_OFF, NCCL_NVLS_ENABLE="1"))
        self.assertIn("NCCL_NVLS_ENABLE", problem)
        self.assertIn("TORCH_SYMM_MEM_DISABLE_MULTICAST", tp.multicast_problem({"NCCL_NVLS_ENABLE": "0"}))


class PairsAndShapes(unittest.TestCase):
    def test_the_dependent_pairs_of_a_file_once_each_in_order(self):
        doc = document([
            {"key": "gemm", "what": "gemm", "m": 1, "n": 1, "k": 1, "dtype": "bf16"},
            concurrent_record(4096, 1024, 512, "all_gather", 2, "none", "sp"),
            concurrent_record(4096, 1024, 512, "reduce_scatter", 2, RS[0]),
            concurrent_record(4096, 1024, 512, "all_gather", 2, AG[0]),
            concurrent_record(4096, 1024, 512, "reduce_scatter", 2, RS[0], "chunked:2:cu"),
            concurrent_record(4096, 1024, 512, "all_to_all", 2, AG[0]),
            concurrent_record(4096, 1024, 512, "all_gather", 4, AG[0])])
        pairs = tp.dependent_pairs(doc)
        self.assertEqual([(p.kind, p.ranks) for p in pairs],
                         [("reduce_scatter", 2), ("all_gather", 2), ("all_to_all", 2), ("all_gather", 4)])
        self.assertEqual(pairs[1], tp.Pair(4096, 1024, 512, "bf16", "all_gather", 4096 * 512 * 2, 2, AG[0]))
        keep, skipped = tp.runnable(pairs, 2)
        self.assertEqual(keep, pairs[:2])
        self.assertIn("no async-TP op for all_to_all", skipped[0][1])
        self.assertIn("measured at 4 ranks", skipped[1][1])

    def test_the_issues_shapes(self):
        """The issue's table: M x K x N per rank, A's shard M/2 x K gathered, times K x N."""
        for M, K, N in ((8192, 8192, 5120), (8192, 8192, 28672), (8192, 4096, 14336), (4096, 12288, 24576),
                        (8192, 16384, 53248), (2048, 4096, 7168)):
            pair = tp.Pair(M, N, K, "bf16", "all_gather", M * K * 2, 2, AG[0])  # c3advisor's m x n x k
            self.assertEqual(tp.peer_shapes(pair, 2),
                             {"a": (M // 2, K), "gathered": (M, K), "b": (K, N), "out": (M, N)})
        rs = tp.Pair(8192, 8192, 3584, "bf16", "reduce_scatter", 8192 * 8192 * 2, 2, RS[0])
        self.assertEqual(tp.peer_shapes(rs, 2),
                         {"a": (8192, 3584), "b": (3584, 8192), "product": (8192, 8192), "out": (4096, 8192)})
        self.assertEqual(tp.peer_shapes(rs._replace(ranks=4), 4)["out"], (2048, 8192))

    def test_pairs_that_cannot_run_say_why(self):
        ag = tp.Pair(4096, 1024, 512, "bf16", "all_gather", 4096 * 512 * 2, 2, AG[0])
        for pair, world, why in ((ag, 4, "at 2 ranks"), (ag._replace(m=4095, size_bytes=4095 * 512 * 2), 2, "split"),
                                 (ag._replace(size_bytes=4096), 2, "not the GEMM's A"),
                                 (ag._replace(dtype="fp8", size_bytes=4096 * 512), 2, "fp8"),
                                 (ag._replace(dtype="int4"), 2, "unknown dtype"),
                                 (ag._replace(kind="all_to_all"), 2, "no async-TP op"),
                                 (ag._replace(dependency=RS[0]), 2, "no async-TP op"),
                                 (ag._replace(n=0), 2, "must be > 0")):
            with self.subTest(why=why), self.assertRaisesRegex(ValueError, why):
                tp.peer_shapes(pair, world)


def entry(impl, m=4096, time_s=1e-3, error=""):
    pair = tp.Pair(m, 1024, 512, "bf16", "all_gather", m * 512 * 2, 2, AG[0])
    return tp.peer_entry(pair, impl, [] if error else [time_s, 2 * time_s, 3 * time_s], 5, not error, error,
                         "NVIDIA H200 x2", {"torch": "2.11.0"})


class EntriesAndMerge(unittest.TestCase):
    def test_an_entry_is_a_record_of_the_pair(self):
        e = entry("torch_async_tp")
        self.assertEqual((e["ok"], e["median_s"], e["min_s"], e["max_s"], e["verified"]), (True, 2e-3, 1e-3, 3e-3, True))
        self.assertEqual(e["dependency"], "collective_feeds_gemm")
        failed = entry("torch_async_tp", error="OutOfMemoryError: CUDA out of memory")
        self.assertEqual((failed["ok"], failed["median_s"], failed["runs_s"], failed["verified"]), (False, 0.0, [], False))
        wrong = tp.peer_entry(tp.Pair(2, 2, 2, "bf16", "all_gather", 8, 2, AG[0]), "torch_async_tp", [1e-3, 2e-3], 1,
                              False, "verification_failed: x", "d", {})
        self.assertEqual((wrong["ok"], wrong["runs_s"], wrong["median_s"]), (False, [1e-3, 2e-3], 0.0))
        self.assertEqual(tp.peer_entry(tp.Pair(2, 2, 2, "bf16", "all_gather", 8, 2, AG[0]), "x", [], 0, False, "",
                                       "d", {})["error"], "no timed run")

    def test_merge_replaces_the_same_run_and_keeps_everything_else(self):
        doc = document([concurrent_record(4096, 1024, 512, "all_gather", 2, AG[0])])
        doc["extra"] = {"kept": True}
        doc = tp.merge_peers(doc, [entry("torch_serial"), entry("torch_async_tp")])
        doc = tp.merge_peers(doc, [entry("torch_async_tp", m=8192)])
        again = tp.merge_peers(doc, [entry("torch_serial", time_s=5e-3)])
        self.assertEqual([(e["implementation"], e["m"]) for e in again["peers"]],
                         [("torch_serial", 4096), ("torch_async_tp", 4096), ("torch_async_tp", 8192)])
        self.assertEqual(again["peers"][0]["median_s"], 10e-3)
        self.assertEqual(doc["peers"][0]["median_s"], 2e-3)  # the input is not changed
        self.assertEqual(again["records"], doc["records"])
        self.assertEqual(again["extra"], {"kept": True})

    def test_files_are_replaced_whole(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "raw.json")
            tp.write_atomically(path, document([]))
            tp.save_entries(path, [entry("torch_serial")])
            self.assertEqual(os.listdir(tmp), ["raw.json"])
            self.assertEqual(len(tp.load_raw(path)["peers"]), 1)
            for text, why in (("{", "cannot read"), ('{"records": []}', "not a c3advisor raw"),
                              ('{"schema_version": 1, "records": [], "peers": {}}', "must be a list")):
                with open(path, "w") as f:
                    f.write(text)
                with self.subTest(why=why), self.assertRaisesRegex(ValueError, why):
                    tp.load_raw(path)
            with self.assertRaisesRegex(ValueError, "cannot read"):
                tp.load_raw(os.path.join(tmp, "absent.json"))


class FakeBench:
    warmup, device, versions = 2, "dev", {"torch": "t"}

    def __init__(self, fail_m=()):
        self.fail_m, self.calls = fail_m, []

    def measure(self, pair, implementations):
        self.calls.append(pair.m)
        if pair.m in self.fail_m:
            raise RuntimeError("CUDA error: an illegal memory access was encountered\nmore")
        return {"torch_serial": ([1e-3], True, ""), "torch_async_tp": ([2e-3], False, "verification_failed: x")}


class Loop(unittest.TestCase):
    pairs = [tp.Pair(m, 8, 8, "bf16", "all_gather", m * 16, 2, AG[0]) for m in (2, 4, 6)]

    def test_a_failing_pair_is_recorded_and_the_next_runs(self):
        saved, lines = [], []
        entries = tp.run_pairs(self.pairs, FakeBench(fail_m=(4,)), ["torch_serial", "torch_async_tp"],
                               saved.append, lines.append)
        self.assertEqual(len(saved), 3)  # after each pair
        self.assertEqual([len(s) for s in saved], [2, 2, 2])
        self.assertEqual([e["ok"] for e in entries], [True, False, False, False, True, False])
        self.assertEqual(entries[2]["error"], "RuntimeError: CUDA error: an illegal memory access was encountered")
        self.assertEqual(entries[1]["error"], "verification_failed: x")
        self.assertEqual(entries[1]["runs_s"], [2e-3])
        self.assertTrue(any("FAILED" in line for line in lines))

    def test_no_pair_starts_after_the_budget(self):
        clock = iter([0.0, 1.0, 5.0, 11.0]).__next__
        bench, lines = FakeBench(), []
        tp.run_pairs(self.pairs, bench, ["torch_serial"], lambda e: None, lines.append, budget_s=10, clock=clock)
        self.assertEqual(bench.calls, [2, 4])
        self.assertIn("1 of 3 pairs not started", lines[-1])
        # the ranks stop together: one rank over its budget stops every rank
        bench = FakeBench()
        tp.run_pairs(self.pairs, bench, ["torch_serial"], lambda e: None, lambda line: None, budget_s=10,
                     clock=lambda: 0.0, agree=lambda ok: False)
        self.assertEqual(bench.calls, [])

    def test_relative_difference(self):
        self.assertEqual(tp.relative_difference(0.0, 0.0), 0.0)
        self.assertEqual(tp.relative_difference(1.0, 0.0), float("inf"))
        self.assertEqual(tp.relative_difference(0.5, 4.0), 0.125)


class Script(unittest.TestCase):
    """The whole script on rank 0 of 2, against fake_torch_dist."""

    def setUp(self):
        self.log, self.state = fake_torch_dist.install(world=2, rank=0)
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "dependent.json")
        records = [concurrent_record(1024, 512, 256, "all_gather", 2, AG[0]),
                   concurrent_record(1024, 512, 256, "all_gather", 2, AG[0], "chunked:2:cu"),
                   concurrent_record(1024, 256, 128, "reduce_scatter", 2, RS[0]),
                   concurrent_record(1024, 512, 256, "all_to_all", 2, AG[0])]
        tp.write_atomically(self.path, document(records))

    def tearDown(self):
        fake_torch_dist.uninstall()
        self.tmp.cleanup()

    def run_script(self, *args):
        with mock.patch.dict(os.environ, MULTICAST_OFF), contextlib.redirect_stdout(io.StringIO()):
            tp.main(["--raw", self.path, "--runs", "3", "--warmup", "1", *args])
        return tp.load_raw(self.path)

    def calls(self, op):
        return [e[1:] for e in self.log if e[0] == op]

    def test_times_both_implementations_of_each_pair_and_writes_them(self):
        self.state["elapsed_ms"] = [2.0, 4.0, 3.0]  # the timed runs (warm-ups are not read): median 3 ms
        doc = self.run_script()
        self.assertEqual(len(doc["records"]), 4)
        self.assertEqual([(e["implementation"], e["kind"]) for e in doc["peers"]],
                         [("torch_serial", "all_gather"), ("torch_async_tp", "all_gather"),
                          ("torch_serial", "reduce_scatter"), ("torch_async_tp", "reduce_scatter")])
        for e in doc["peers"]:
            self.assertTrue(e["ok"] and e["verified"], e)
            self.assertEqual((e["warmup_runs"], len(e["runs_s"]), e["device"]), (1, 3, "NVIDIA H200 x2"))
            self.assertEqual(e["versions"], {"torch": "2.11.0", "cuda": "13.0", "nccl": "2.28.9"})
        self.assertEqual(doc["peers"][0]["runs_s"], [2e-3, 4e-3, 3e-3])
        self.assertEqual(doc["peers"][0]["median_s"], 3e-3)
        # what torch was given: the issue's shapes per rank
        self.assertEqual(self.calls("all_gather_into_tensor")[0], ((1024, 256), (512, 256)))
        self.assertIn(((1024, 256), (256, 512)), self.calls("mm"))
        self.assertEqual(self.calls("fused_all_gather_matmul")[0], ((512, 256), (256, 512)))
        self.assertEqual(self.calls("reduce_scatter_tensor")[0], ((512, 256), (1024, 256)))
        self.assertIn(((1024, 128), (128, 256)), self.calls("mm"))
        self.assertEqual(self.calls("fused_matmul_reduce_scatter")[0], ((1024, 128), (128, 256)))
        self.assertEqual(len(self.calls("fused_all_gather_matmul")), 4)  # warm-up + 3 runs
        self.assertIn(("enable_symm_mem_for_group", "0"), self.log)
        # a second run replaces the entries rather than adding to them
        self.assertEqual(len(self.run_script()["peers"]), 4)

    def test_a_wrong_async_result_fails_verification(self):
        self.state["wrong"] = True
        peers = self.run_script()["peers"]
        self.assertTrue(peers[0]["ok"] and peers[0]["verified"])
        self.assertFalse(peers[1]["ok"])
        self.assertTrue(peers[1]["error"].startswith("verification_failed: max |async - serial| / max |serial| = 0.5"),
                        peers[1]["error"])
        self.assertEqual(len(peers[1]["runs_s"]), 3)

    def test_failures_are_recorded_and_the_run_goes_on(self):
        self.state["raise"]["fused_all_gather_matmul"] = RuntimeError("no such op")
        peers = self.run_script()["peers"]
        self.assertEqual([e["ok"] for e in peers], [True, False, True, True])
        self.assertEqual(peers[1]["error"], "RuntimeError: no such op")

    def test_out_of_memory_at_allocation(self):
        self.state["max_numel"] = 300000  # the all_gather pair's 1024 x 512 output does not fit
        peers = self.run_script()["peers"]
        self.assertEqual([e["ok"] for e in peers], [False, False, True, True])
        self.assertTrue(peers[0]["error"].startswith("OutOfMemoryError: CUDA out of memory"), peers[0]["error"])
        self.assertIn(("empty_cache",), self.log)

    def test_a_failure_on_another_rank_fails_here_too(self):
        self.state["other_rank_fails"] = True
        peers = self.run_script()["peers"]
        self.assertEqual({e["error"] for e in peers}, {"allocation failed on another rank"})

    def test_without_symmetric_memory_async_tp_fails_alone(self):
        self.state["hide_symm_mem"]()
        peers = self.run_script()["peers"]
        self.assertEqual([e["ok"] for e in peers], [True, False, True, False])
        self.assertIn("symmetric memory unavailable", peers[1]["error"])

    def test_only_one_implementation(self):
        peers = self.run_script("--implementations", "torch_async_tp")["peers"]
        self.assertEqual([e["implementation"] for e in peers], ["torch_async_tp"] * 2)
        self.assertEqual([(e["ok"], e["verified"]) for e in peers], [(True, False)] * 2)  # nothing to check against

    def test_refuses_to_run_with_multicast_on(self):
        with mock.patch.dict(os.environ, dict(MULTICAST_OFF, TORCH_SYMM_MEM_DISABLE_MULTICAST="0")), \
                self.assertRaises(SystemExit) as stop:
            tp.main(["--raw", self.path])
        self.assertIn("TORCH_SYMM_MEM_DISABLE_MULTICAST", str(stop.exception.code))
        self.assertNotIn("peers", tp.load_raw(self.path))


class CommandLine(unittest.TestCase):
    """The file the script writes is a raw measurements file c3advisor reads, and
    `measure --resume` keeps its peers."""

    def test_measure_resume_keeps_the_peers(self):
        fake_torch_dist.install()
        self.addCleanup(fake_torch_dist.uninstall)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "raw.json")
            measure = ["measure", "--backend", "sim", "--scenarios", "paper", "--only", "cb1_896M", "--ranks", "2",
                       "--rp", "16", "--dma-rp", "8", "--runs", "2", "--warmup", "0", "--out", path]
            cli(*measure)
            doc = tp.load_raw(path)
            doc["records"] += [concurrent_record(1024, 512, 256, "all_gather", 2, AG[0]),
                               concurrent_record(2048, 256, 128, "reduce_scatter", 2, RS[0])]
            tp.write_atomically(path, doc)
            with mock.patch.dict(os.environ, MULTICAST_OFF), contextlib.redirect_stdout(io.StringIO()):
                tp.main(["--raw", path, "--runs", "2", "--warmup", "0"])
            before = tp.load_raw(path)
            self.assertEqual(len(before["peers"]), 4)
            cli(*measure, "--resume")
            after = tp.load_raw(path)
            self.assertEqual(after["peers"], before["peers"])
            self.assertEqual(len(after["records"]), len(before["records"]))
            # a peer entry c3advisor cannot read is an error naming its key path
            after["peers"][1]["dependency"] = "none"
            tp.write_atomically(path, after)
            done = cli(*measure, "--resume", check=False)
            self.assertEqual(done.returncode, 2)
            self.assertIn("peers[1].dependency", done.stderr)

    def test_validate_shows_them_beside_the_pick(self):
        """measure (sim) on dependent scenarios, the script, then validate from the file."""
        _, state = fake_torch_dist.install()
        self.addCleanup(fake_torch_dist.uninstall)
        state["elapsed_ms"] = [5.0]
        only = ["p06_mistral-7b_training_tp_ag_out_proj_dgrad", "p08_llama3.2-3b_training_tp_rs_mlp_down",
                "p03_mixtral-8x7b_prefill_ep_dispatch_expert_up"]  # all_gather, reduce_scatter, all_to_all
        scenarios = ["--scenarios", "data/scenarios/dependent-s2201-n48.yaml", "--only", ",".join(only),
                     "--ranks", "2"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "dependent.json")
            cli("measure", "--backend", "sim", "--profile", "h200x2", "--runs", "2", "--warmup", "0",
                "--chunks", "2,4", "--out", path, *scenarios)
            with mock.patch.dict(os.environ, MULTICAST_OFF), contextlib.redirect_stdout(io.StringIO()):
                tp.main(["--raw", path, "--runs", "2", "--warmup", "0"])
            validate = ["validate", "--profile", "h200x2", "--backend", "replay:" + path, *scenarios]
            doc = json.loads(cli(*validate, "--json").stdout)
            text = cli(*validate).stdout
        by_name = {s["name"]: s for s in doc["scenarios"]}
        self.assertNotIn("peers", by_name[only[2]])  # no async-TP op for all_to_all
        for name in only[:2]:
            peers = by_name[name]["peers"]
            self.assertEqual([p["implementation"] for p in peers], ["torch_serial", "torch_async_tp"])
            pick = next(s["measured_s"] for s in by_name[name]["strategies"] if s["name"] == by_name[name]["pick"])
            serial = next(s["measured_s"] for s in by_name[name]["strategies"] if s["name"] == "serial")
            for p in peers:
                self.assertTrue(p["ok"] and p["verified"])
                self.assertAlmostEqual(p["measured_s"], 5e-3)
                self.assertAlmostEqual(p["pick_vs_peer"], pick / 5e-3)
                self.assertAlmostEqual(p["serial_vs_peer"], serial / 5e-3)
        self.assertEqual([(p["implementation"], p["scenarios"]) for p in doc["peers"]],
                         [("torch_serial", 2), ("torch_async_tp", 2)])
        self.assertIn("\npeers: a framework's own runs of the pair", text)
        self.assertIn("pick vs torch_async_tp: geometric mean ", text)


if __name__ == "__main__":
    unittest.main()
