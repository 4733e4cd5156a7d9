"""Tests of what frameworks use beside the advisor (ctest python_frameworks): advice
settings read back from JSON, c3advisor.torch's decisions (against a recording stand-in
for torch: no GPU here), the copy-engine collectives' copy plans, the example's FSDP and
TP traces and predictions against the command line, its TP modes on fake ranks, and the collective benchmark's file
against `bench-collective --from`. What the GPU does is measured, not tested: docs/frameworks.md.

Environment (set by ctest): PYTHONPATH=<build>/python, C3ADVISOR_CLI, C3_SOURCE_DIR."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
import warnings

import c3advisor
import fake_torch
from c3advisor import GreenContexts, NcclSettings, Settings

CLI = os.environ.get("C3ADVISOR_CLI", "c3advisor")
SOURCE = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def cli(*args):
    done = subprocess.run([CLI, *args], cwd=SOURCE, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError("c3advisor %s: %s" % (" ".join(args), done.stderr))
    return done.stdout


def load_script(relpath, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SOURCE, relpath))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SettingsFromJson(unittest.TestCase):
    def test_equals_the_typed_settings_on_every_paper_and_heldout_scenario(self):
        for profile in ("h200x2", "h200x2-torch", "mi300x"):
            advisor = c3advisor.Advisor(profile)
            ranks = str(advisor.profile.gpu_count)
            kinds = set()
            # The paper's pairs and the held-out ones: on h200x2 every paper pair is advised dma.
            scenarios = []
            for name in ("paper", os.path.join(SOURCE, "data", "scenarios", "heldout.yaml")):
                doc = json.loads(cli("sweep", "--profile", profile, "--scenarios", name, "--ranks", ranks, "--json"))
                scenarios += doc["scenarios"]
            for s in scenarios:
                g, c = s["gemm"], s["collective"]
                advice = advisor.advise(gemm=(g["m"], g["n"], g["k"]), dtype=g["dtype"], collective=c["kind"],
                                        size=c["size_bytes"], ranks=c["ranks"])
                with self.subTest(profile=profile, scenario=s["name"]):
                    self.assertEqual(c3advisor.settings_from_json(advice.json), advice.settings)
                    self.assertEqual(c3advisor.settings_from_json(json.loads(advice.json)["settings"]),
                                     advice.settings)
                kinds.add(advice.kind)
            self.assertGreater(len(kinds), 1, profile)  # more than one kind of settings was read

    def test_bad_documents_raise(self):
        for bad in ("not json", "[1]", '{"settings": {"launch_order": "serial"}}', '{"settings": 3}'):
            with self.subTest(doc=bad), self.assertRaises(c3advisor.InvalidArgumentError):
                c3advisor.settings_from_json(bad)

    def test_import_c3advisor_does_not_import_torch(self):
        code = "import sys, c3advisor; sys.exit(1 if 'torch' in sys.modules else 0)"
        self.assertEqual(subprocess.run([sys.executable, "-c", code]).returncode, 0)


def sp(nccl=(24, 24)):
    return Settings("collective_first", True, True, NcclSettings(*nccl), None, None, 1)


class Executor(unittest.TestCase):
    """c3advisor.torch.Executor against fake_torch: which stream each launch went to,
    in which order, through which process group and green context."""

    def setUp(self):
        self.log, self.state = fake_torch.install()
        import c3advisor.torch as c3t
        self.c3t = c3t
        self.ex = c3t.Executor()
        self.out, self.inp = fake_torch.Tensor(self.log, "out"), fake_torch.Tensor(self.log, "in")
        self.gemm = lambda: self.log.append(("gemm", self.state["current"].name))

    def tearDown(self):
        fake_torch.uninstall()

    def run_pair(self, settings):
        del self.log[:]
        run = self.ex.run_pair(settings, self.gemm, self.c3t.AllGather(self.out, self.inp))
        launches = [e for e in self.log if e[0] in ("gemm", "nccl_all_gather", "ce_all_gather")]
        return run, launches

    def test_prefetch_launches_the_collective_first_on_its_stream(self):
        run, launches = self.run_pair(sp())
        coll, gemm = self.ex.collective_stream.name, self.ex.gemm_stream.name
        self.assertEqual(launches, [("nccl_all_gather", coll, (24, 24)), ("gemm", gemm)])
        self.assertIn(("wait", "main", coll), self.log)
        self.assertIn(("wait", "main", gemm), self.log)
        self.assertLess(self.log.index(("wait", coll, "main")), self.log.index(launches[0]))
        self.assertEqual((run.launch_order, run.transport, run.copy_engine), ("collective_first", "nccl", None))

    def test_gemm_first_and_serial(self):
        s = Settings("gemm_first", True, False, NcclSettings(24, 24), None, None, 1)
        _, launches = self.run_pair(s)
        self.assertEqual([e[0] for e in launches], ["gemm", "nccl_all_gather"])
        s = Settings("serial", False, False, NcclSettings(24, 24), None, None, 1)
        _, launches = self.run_pair(s)
        self.assertEqual(launches, [("nccl_all_gather", "main", (24, 24)), ("gemm", "main")])

    def test_one_process_group_per_cta_budget(self):
        self.ex.prepare([sp((16, 16)), sp((8, 8)), sp((16, 16))])
        self.assertEqual(self.log.names("new_group"), [("new_group", "nccl", (8, 8)), ("new_group", "nccl", (16, 16))])
        self.run_pair(sp((16, 16)))
        self.run_pair(sp((24, 24)))
        self.assertEqual(self.log.names("new_group"), [("new_group", "nccl", (24, 24))])  # only the new budget

    def test_green_contexts_only_when_a_partition_is_advised(self):
        self.run_pair(sp())
        self.assertEqual(self.log.names("green_create"), [])
        rp = Settings("collective_first", True, True, NcclSettings(16, 16), GreenContexts(116, 16), None, 1)
        _, launches = self.run_pair(rp)
        self.assertEqual(sorted(e[1] for e in self.log.names("green_create")), [16, 116])
        enter = self.log.names("green_enter")
        self.assertEqual([e[1] for e in enter], [16, 116])  # the collective's first: prefetch
        # each launch happens inside its context: enter, launch, exit
        i = self.log.index(launches[1])
        self.assertEqual(self.log[i - 1][:2], ("green_enter", 116))
        self.assertEqual(self.log[i + 1], ("green_exit", 116))
        dma_rp = Settings("collective_first", True, True, None, GreenContexts(124, None), "torch_symm_pull", 1)
        self.ex._ce = FakeCopyEngine(self.log, self.state)
        _, launches = self.run_pair(dma_rp)
        self.assertEqual([e[1] for e in self.log.names("green_enter")], [124])
        self.assertEqual(launches[0][0], "ce_all_gather")

    def test_copy_engine_runs_the_shipped_path_and_says_so(self):
        self.ex._ce = FakeCopyEngine(self.log, self.state)
        s = Settings("collective_first", True, True, None, None, "ce_push_batch_ovl", 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run, launches = self.run_pair(s)
        self.assertEqual(launches, [("ce_all_gather", self.ex.collective_stream.name), ("gemm", self.ex.gemm_stream.name)])
        self.assertEqual(run.copy_engine, "torch_symm_pull")
        self.assertIn("ce_push_batch_ovl", run.copy_engine_note)
        self.assertIn("h200x2-torch", run.copy_engine_note)  # where the shipped path is priced
        self.assertTrue(any("torch_symm_pull" in str(w.message) for w in caught))
        run, _ = self.run_pair(Settings("collective_first", True, True, None, None, "torch_symm_pull", 1))
        self.assertEqual(run.copy_engine_note, "")

    def test_rejects_what_it_cannot_run(self):
        with self.assertRaises(NotImplementedError):
            self.run_pair(Settings("collective_first", True, True, NcclSettings(24, 24), None, None, 4))
        with self.assertRaises(ValueError):
            self.run_pair(Settings("sideways", True, True, NcclSettings(24, 24), None, None, 1))
        with self.assertRaises(TypeError):
            self.ex.run_pair(sp(), self.gemm, (self.out, self.inp))

    def test_advice_of_the_advisor_runs(self):
        advice = c3advisor.Advisor("h200x2").advise(gemm=(8192, 4096, 4096), collective="all_gather",
                                                   size="32MiB", ranks=2)
        self.ex._ce = FakeCopyEngine(self.log, self.state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run, launches = self.run_pair(advice)
        expected = "ce_all_gather" if advice.transport == "copy_engine" else "nccl_all_gather"
        self.assertEqual(launches[0 if advice.settings.prefetch else 1][0], expected)
        self.assertEqual(run.launch_order, advice.order)


def rows(first, end):
    return tuple(range(first, end))


def nccl(chunks, order="collective_first", green=None):
    return Settings(order, True, order == "collective_first", NcclSettings(24, 24), green, None, chunks)


class DependentExecutor(unittest.TestCase):
    """Executor.run_dependent against fake_torch: the launches (stream, op, rows) of
    model.md §7.1's schedule, the rows they leave (ranks as threads exchanging the rows'
    numbers), and the errors."""

    def setUp(self):
        self.log, self.state = fake_torch.install()
        import c3advisor.torch as c3t
        self.c3t = c3t

    def tearDown(self):
        fake_torch.uninstall()

    def launches(self, settings, dependency, rank, m=16, k=3, n=5):
        """The launch log of one rank of 2 (streams named "coll", "gemm"; events e0, e1 ..)."""
        M = fake_torch.Matrix
        self.state["rank"] = rank
        ex = self.c3t.Executor()
        ex.collective_stream.name, ex.gemm_stream.name = "coll", "gemm"
        if dependency == "collective_feeds_gemm":
            a, out = M.new(self.log, "shard", m // 2, k), M.new(self.log, "out", m, n)
        else:
            a, out = M.new(self.log, "a", m, k), M.new(self.log, "out", m // 2, n)
        del self.log[:]
        fake_torch.Event.count = -1
        result, run = ex.run_dependent(settings, dependency, a, M.new(self.log, "b", k, n), out)
        self.assertIs(result, out)
        kinds = ("matmul", "nccl_all_gather", "nccl_reduce_scatter", "ce_all_gather", "record", "wait_event")
        return run, [e for e in self.log if e[0] in kinds]

    def test_all_gather_then_matmul_two_chunks(self):
        # R = 2, C = 2: one step; the local block first, then the other rank's block.
        ag = ("nccl_all_gather", "coll", (24, 24), "shard", rows(0, 8), "empty", rows(0, 16))
        run, log = self.launches(nccl(2), "collective_feeds_gemm", 0)
        self.assertEqual(log, [ag, ("record", "e0", "coll"),
                               ("matmul", "gemm", "shard", rows(0, 8), "out", rows(0, 8)),
                               ("wait_event", "gemm", "e0"),
                               ("matmul", "gemm", "empty", rows(8, 16), "out", rows(8, 16))])
        self.assertEqual((run.collective, run.chunks, run.steps, run.transport), ("all_gather", 2, 1, "nccl"))
        _, log = self.launches(nccl(2), "collective_feeds_gemm", 1)
        self.assertEqual(log, [ag, ("record", "e0", "coll"),
                               ("matmul", "gemm", "shard", rows(0, 8), "out", rows(8, 16)),
                               ("wait_event", "gemm", "e0"),
                               ("matmul", "gemm", "empty", rows(0, 8), "out", rows(0, 8))])

    def test_all_gather_then_matmul_four_chunks(self):
        # C = 4: two steps of 4-row pieces; step s brings rows s*4.. of every block.
        expected = {
            0: [("matmul", "gemm", "shard", rows(0, 8), "out", rows(0, 8)), ("wait_event", "gemm", "e0"),
                ("matmul", "gemm", "empty", rows(4, 8), "out", rows(8, 12)), ("wait_event", "gemm", "e1"),
                ("matmul", "gemm", "empty", rows(12, 16), "out", rows(12, 16))],
            1: [("matmul", "gemm", "shard", rows(0, 8), "out", rows(8, 16)), ("wait_event", "gemm", "e0"),
                ("matmul", "gemm", "empty", rows(0, 4), "out", rows(0, 4)), ("wait_event", "gemm", "e1"),
                ("matmul", "gemm", "empty", rows(8, 12), "out", rows(4, 8))]}
        for rank in (0, 1):
            comm = [("nccl_all_gather", "coll", (24, 24), "shard", rows(0, 4), "empty", rows(0, 8)),
                    ("record", "e0", "coll"),
                    ("nccl_all_gather", "coll", (24, 24), "shard", rows(4, 8), "empty", rows(8, 16)),
                    ("record", "e1", "coll")]
            run, log = self.launches(nccl(4), "collective_feeds_gemm", rank)
            self.assertEqual(log, comm + expected[rank], rank)
            self.assertEqual(run.steps, 2)
            # GEMM first: the local block's matmul is issued first, the steps next
            _, log = self.launches(nccl(4, "gemm_first"), "collective_feeds_gemm", rank)
            self.assertEqual(log, expected[rank][:1] + comm + expected[rank][1:], rank)

    def test_matmul_then_reduce_scatter(self):
        # Step s: one matmul of the s-th piece of both blocks, then its reduce-scatter.
        for rank in (0, 1):
            _, log = self.launches(nccl(2), "gemm_feeds_collective", rank)
            self.assertEqual(log, [("matmul", "gemm", "a", rows(0, 16), "empty", rows(0, 16)),
                                   ("record", "e0", "gemm"), ("wait_event", "coll", "e0"),
                                   ("nccl_reduce_scatter", "coll", (24, 24), "empty", rows(0, 16), "out", rows(0, 8))])
            run, log = self.launches(nccl(4), "gemm_feeds_collective", rank)
            self.assertEqual(log, [("matmul", "gemm", "a", rows(0, 4) + rows(8, 12), "empty", rows(0, 8)),
                                   ("record", "e0", "gemm"), ("wait_event", "coll", "e0"),
                                   ("nccl_reduce_scatter", "coll", (24, 24), "empty", rows(0, 8), "out", rows(0, 4)),
                                   ("matmul", "gemm", "a", rows(4, 8) + rows(12, 16), "empty", rows(8, 16)),
                                   ("record", "e1", "gemm"), ("wait_event", "coll", "e1"),
                                   ("nccl_reduce_scatter", "coll", (24, 24), "empty", rows(8, 16), "out", rows(4, 8))])
            self.assertEqual((run.collective, run.steps), ("reduce_scatter", 2))

    def test_one_chunk_is_serial_in_the_dependencys_order(self):
        _, log = self.launches(nccl(1), "collective_feeds_gemm", 1)
        self.assertEqual(log, [("nccl_all_gather", "main", (24, 24), "shard", rows(0, 8), "empty", rows(0, 16)),
                               ("matmul", "main", "empty", rows(0, 16), "out", rows(0, 16))])
        _, log = self.launches(nccl(1), "gemm_feeds_collective", 1)
        self.assertEqual(log, [("matmul", "main", "a", rows(0, 16), "empty", rows(0, 16)),
                               ("nccl_reduce_scatter", "main", (24, 24), "empty", rows(0, 16), "out", rows(0, 8))])

    def test_the_current_stream_waits_for_both_and_green_contexts_are_entered(self):
        run, _ = self.launches(nccl(2, green=GreenContexts(116, 16)), "collective_feeds_gemm", 0)
        self.assertEqual(run.green_contexts, GreenContexts(116, 16))
        self.assertIn(("wait", "main", "coll"), self.log)
        self.assertIn(("wait", "main", "gemm"), self.log)
        entered = [e[1] for e in self.log.names("green_enter")]
        self.assertEqual(entered, [16, 116, 116])  # the step, then the two matmuls
        i = next(i for i, e in enumerate(self.log) if e[0] == "nccl_all_gather")
        self.assertEqual((self.log[i - 1][:2], self.log[i + 1]), (("green_enter", 16), ("green_exit", 16)))

    def simulate(self, settings, dependency, ranks=2, m=24, k=3, n=5, ce=False):
        """Runs the pair on `ranks` threads; returns each rank's output numbers. A's row i of
        rank p is 1000 p + 7 i + 3, B multiplies by 3."""
        world = fake_torch.World(ranks)
        log, _ = fake_torch.install(world)
        import c3advisor.torch as c3t
        M, block, outs = fake_torch.Matrix, m // ranks, {}

        def rank_fn(r):
            import torch  # fake_torch's
            ex = c3t.Executor()
            if ce:
                ex._ce = FakeCopyEngine(log, fake_torch.install.state, world)
            if dependency == "collective_feeds_gemm":  # every rank's shard of one A (p = 0)
                a = M.new(log, "shard", block, k, [7 * i + 3 for i in range(r * block, (r + 1) * block)])
                out = M.new(log, "out", m, n)
            else:
                a = M.new(log, "a", m, k, [1000 * r + 7 * i + 3 for i in range(m)])
                out = M.new(log, "out", block, n)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ex.run_dependent(settings, dependency, a, M.new(log, "b", k, n, factor=3), out)
            outs[r] = out.values()
        world.run(rank_fn)
        return outs

    def test_the_rows_written_are_the_undecomposed_ones(self):
        for ranks, chunk_counts in ((2, (1, 2, 4, 6, 12)), (3, (1, 3, 6)), (4, (4, 8))):
            m, block = 24, 24 // ranks
            gathered = [3 * (7 * i + 3) for i in range(m)]
            for chunks in chunk_counts:
                for order in ("collective_first", "gemm_first"):
                    s = nccl(chunks, order)
                    with self.subTest(ranks=ranks, chunks=chunks, order=order):
                        outs = self.simulate(s, "collective_feeds_gemm", ranks)
                        self.assertEqual(outs, {r: gathered for r in range(ranks)})
                        outs = self.simulate(s, "gemm_feeds_collective", ranks)
                        self.assertEqual(outs, {r: [sum(3 * (1000 * p + 7 * (r * block + j) + 3) for p in range(ranks))
                                                    for j in range(block)] for r in range(ranks)})
        ce = Settings("collective_first", True, True, None, None, "torch_symm_pull", 4)
        self.assertEqual(self.simulate(ce, "collective_feeds_gemm", ce=True)[1], [3 * (7 * i + 3) for i in range(24)])

    def test_the_advisors_dependent_advice_runs(self):
        advisor = c3advisor.Advisor("h200x2")
        for dependency, kind, shape in (("collective_feeds_gemm", "all_gather", (8192, 5120, 8192)),
                                        ("gemm_feeds_collective", "reduce_scatter", (16384, 8192, 4096))):
            advice = advisor.advise(gemm=shape, collective=kind, ranks=2, dependency=dependency)
            self.assertGreater(advice.chunks, 1, advice.strategy)  # a decomposed schedule was advised
            m, n, k = shape
            outs = self.simulate(advice, dependency, 2, m, k, n, ce=advice.transport == "copy_engine")
            if dependency == "collective_feeds_gemm":
                self.assertEqual(outs[0], [3 * (7 * i + 3) for i in range(m)])
            else:
                self.assertEqual(outs[1][:2], [3 * (7 * (m // 2 + j) + 3) * 2 + 3000 for j in range(2)])

    def test_bad_inputs_raise_clear_errors(self):
        M, log = fake_torch.Matrix, self.log
        ex = self.c3t.Executor()
        shard, a, b = M.new(log, "shard", 8, 3), M.new(log, "a", 16, 3), M.new(log, "b", 3, 5)
        out16, out8 = M.new(log, "out", 16, 5), M.new(log, "out", 8, 5)
        cases = [
            (nccl(2), "collective_feeds_gemm", shard, b, out8, ValueError, "shards' rows"),
            (nccl(2), "collective_feeds_gemm", shard, M.new(log, "b", 4, 5), out16, ValueError, "does not give"),
            (nccl(2), "gemm_feeds_collective", a, b, out16, ValueError, "over the 2 ranks"),
            (nccl(2), "gemm_feeds_collective", a, b, M.new(log, "out", 8, 4), ValueError, "does not give"),
            (nccl(3), "collective_feeds_gemm", shard, b, out16, ValueError, "multiple of the 2 ranks"),
            (nccl(6), "gemm_feeds_collective", a, b, out8, ValueError, "chunks (6) must divide the GEMM's m (16)"),
            (nccl(32), "collective_feeds_gemm", shard, b, out16, ValueError, "must divide"),
            (nccl(2), "none", shard, b, out16, ValueError, "run_pair"),
            (Settings("collective_first", True, True, None, None, "torch_symm_pull", 2), "gemm_feeds_collective",
             a, b, out8, ValueError, "cannot reduce"),
        ]
        for settings, dependency, x, y, z, error, text in cases:
            with self.subTest(text=text), self.assertRaises(error) as caught:
                ex.run_dependent(settings, dependency, x, y, z)
            self.assertIn(text, str(caught.exception))
        with self.assertRaises(NotImplementedError) as caught:
            ex.run_dependent(nccl(2), "collective_feeds_gemm", shard, b, out16, collective="all_to_all")
        self.assertIn("all_to_all", str(caught.exception))
        with self.assertRaises(ValueError):
            ex.run_dependent(nccl(2), "collective_feeds_gemm", shard, b, out16, collective="reduce_scatter")
        with self.assertRaises(NotImplementedError) as caught:  # run_pair does not cut pairs
            ex.run_pair(nccl(2), lambda: None, self.c3t.AllGather(shard, out16))
        self.assertIn("run_dependent", str(caught.exception))
        self.assertEqual(self.log.names("matmul"), [])  # nothing was launched by a refused call


class FakeCopyEngine:
    def __init__(self, log, state, world=None):
        self.log, self.state, self.world = log, state, world

    def all_gather_into_tensor(self, output, input):
        self.log.append(("ce_all_gather", self.state["current"].name))
        if self.world:
            got = self.world.exchange(self.state["rank"], input.values())
            output.write([v for values in got for v in values])

    def all_to_all_single(self, output, input):
        self.log.append(("ce_all_to_all", self.state["current"].name))


class PullPlan(unittest.TestCase):
    def setUp(self):
        fake_torch.install()
        from c3advisor._torch_symm import pull_plan
        self.plan = pull_plan

    def tearDown(self):
        fake_torch.uninstall()

    def test_all_gather_pulls_every_rank_into_its_slot_peers_first(self):
        self.assertEqual(self.plan("all_gather", 1, 4, 100, 10),
                         [(2, 100, 20, 10), (3, 100, 30, 10), (0, 100, 0, 10), (1, 100, 10, 10)])

    def test_all_to_all_pulls_chunk_rank_of_every_rank(self):
        self.assertEqual(self.plan("all_to_all", 0, 2, 8, 6), [(1, 8, 3, 3), (0, 8, 0, 3)])
        self.assertEqual(self.plan("all_to_all", 2, 4, 0, 8), [(3, 4, 6, 2), (0, 4, 0, 2), (1, 4, 2, 2), (2, 4, 4, 2)])

    def test_every_output_element_written_once(self):
        for kind in ("all_gather", "all_to_all"):
            for world in (2, 3, 8):
                for rank in range(world):
                    n = 6 * world
                    covered = sorted((d, d + k) for _, _, d, k in self.plan(kind, rank, world, 0, n))
                    total = n * world if kind == "all_gather" else n
                    self.assertEqual(covered[0][0], 0)
                    self.assertEqual(covered[-1][1], total)
                    self.assertTrue(all(a[1] == b[0] for a, b in zip(covered, covered[1:])))

    def test_enable_group_calls_what_torch_has_without_its_deprecation_warning(self):
        from c3advisor._torch_symm import enable_group
        called = []

        def enable(name):
            called.append(name)
            warnings.warn("`enable_symm_mem_for_group` is deprecated.", FutureWarning)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            enable_group(types.SimpleNamespace(enable_symm_mem_for_group=enable), "0")
            enable_group(types.SimpleNamespace(), "1")  # PyTorch without it: nothing to call
        self.assertEqual(called, ["0"])
        self.assertEqual(caught, [])

    def test_bad_arguments_raise(self):
        for args in (("all_reduce", 0, 2, 0, 4), ("all_to_all", 0, 2, 0, 5), ("all_gather", 2, 2, 0, 4),
                     ("all_gather", 0, 2, 0, 0)):
            with self.subTest(args=args), self.assertRaises(ValueError):
                self.plan(*args)


class FsdpExample(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ex = load_script("examples/torch_fsdp_overlap.py", "torch_fsdp_overlap")

    def test_layer_shapes_equal_the_published_trace(self):
        """70B's four forward pairs equal data/traces/llama70b_fsdp.yaml's forward entries
        (both read by `plan --json`, on an 8-GPU profile as the published trace is for 8)."""
        def entries(path):
            doc = json.loads(cli("plan", "--profile", "mi300x", "--trace", path, "--json"))
            return [(e["gemm"], e["collective"], e["repeat"]) for e in doc["entries"] if e["name"].startswith("fwd_")]
        with tempfile.TemporaryDirectory() as tmp:
            ours = os.path.join(tmp, "ours.yaml")
            with open(ours, "w") as f:
                pairs = self.ex.fsdp_pairs(self.ex.MODELS["70b"], 8192, 8)
                f.write(self.ex.trace_yaml("fsdp", "70b", 8192, 80, 8, pairs))
            mine, published = entries(ours), entries("data/traces/llama70b_fsdp.yaml")
        self.assertEqual(len(mine), 4)
        self.assertEqual(mine, published)

    def test_compare_gives_the_committed_runs_ratios(self):
        """compare() (shared by fsdp and tp) recomputes the 2026-11-23 run's ratios and
        prediction errors from its medians and predictions."""
        with open(os.path.join(SOURCE, "data/measurements/torch-fsdp-overlap-h200x2-2026-11-23.json")) as f:
            run = json.load(f)
        for model, m in run["models"].items():
            r = {"measured": m["measured"]}
            self.ex.compare(r, "fsdp", m["predicted_s"])
            self.assertEqual(r["advised_vs_default"], m["advised_vs_default"])
            self.assertEqual(r["prediction_error"], m["prediction_error"])
        r = {"measured": {"serial": {"median_s": 2.0}, "advised": {"median_s": 1.6}}}  # async_tp not timed
        self.ex.compare(r, "tp", {"serial": 1.8, "advised": 1.5})
        self.assertAlmostEqual(r["advised_vs_serial"], 0.25)
        self.assertNotIn("advised_vs_async_tp", r)
        self.assertAlmostEqual(r["prediction_error"]["advised"], 1.5 / 1.6 - 1)

    def test_timeline_summary_spans_busy_and_idle(self):
        """Overlapping records count once in busy; the gaps between them are idle."""
        recs = [("gemm", 7, 100.0, 50.0), ("nccl", 13, 120.0, 60.0), ("gemm", 7, 200.0, 10.0),
                ("copy", 20, 205.0, 20.0)]
        s = self.ex.timeline_summary(recs)
        self.assertEqual(s["records"], 4)
        self.assertAlmostEqual(s["span_us"], 125.0)   # 100 .. 225
        self.assertAlmostEqual(s["busy_us"], 105.0)   # 100..180 and 200..225
        self.assertAlmostEqual(s["idle_us"], 20.0)
        self.assertEqual(s["class_us"], {"gemm": 60.0, "nccl": 60.0, "copy": 20.0})
        self.assertEqual(s["timeline"][1], ["nccl", 13, 20.0, 60.0])
        self.assertEqual(self.ex.timeline_summary([]), {"records": 0})
        self.assertEqual(self.ex.kernel_class("kernel", "ncclDevKernel_AllGather_RING_LL"), "nccl")
        self.assertEqual(self.ex.kernel_class("kernel", "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_NNT"), "gemm")
        self.assertEqual(self.ex.kernel_class("gpu_memcpy", "Memcpy PtoP (Device -> Device)"), "copy")

    def test_profiled_step_summaries(self):
        """kernel_sums (step_kernels) and device_timeline (step_timeline) from a profile:
        the profiler's key averages, and its chrome trace's kernels and copies."""
        class Avg:
            def __init__(self, key, t, count):
                self.key, self.device_time_total, self.count = key, t, count

        class Prof:
            def key_averages(self):
                return [Avg("ncclDevKernel_AllGather", 120.0, 2), Avg("nvjet_tst_gemm", 500.0, 2),
                        Avg("cudaLaunchKernel", 0.0, 4)]

            def export_chrome_trace(self, path):
                events = [{"ph": "X", "cat": "kernel", "name": "nvjet_tst_gemm", "ts": 1000.0, "dur": 250.0,
                           "args": {"stream": 7}},
                          {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather", "ts": 1100.0, "dur": 60.0,
                           "args": {"stream": 13}},
                          {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP", "ts": 1300.0, "dur": 20.0,
                           "args": {"stream": 20}},
                          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 990.0, "dur": 5.0},
                          {"ph": "i", "cat": "kernel", "name": "marker", "ts": 0.0}]
                with open(path, "w") as f:
                    json.dump({"traceEvents": events}, f)

        self.assertEqual(self.ex.kernel_sums(Prof()), {"nccl_kernels_us": 120.0, "other_kernels_us": 500.0, "kernels": 4})
        t = self.ex.device_timeline(Prof())
        self.assertEqual(t["records"], 3)
        self.assertAlmostEqual(t["span_us"], 320.0)
        self.assertAlmostEqual(t["busy_us"], 270.0)
        self.assertEqual(t["timeline"][0], ["gemm", 7, 0.0, 250.0])
        self.assertEqual(t["timeline"][2], ["copy", 20, 300.0, 20.0])

    def test_models_name_their_published_config(self):
        """Every model the example runs has a title and a reference in its trace; the Qwen
        shapes are those of data/catalog/qwen.yaml."""
        for model, cfg in self.ex.MODELS.items():
            pairs = self.ex.fsdp_pairs(cfg, 8192, 2)
            text = self.ex.trace_yaml("fsdp", model, 8192, cfg["layers"], 2, pairs)
            self.assertIn(cfg["title"], text)
            self.assertIn(cfg["ref"], text)
        with open(os.path.join(SOURCE, "data/catalog/qwen.yaml")) as f:
            catalog = f.read()
        for model, name in (("qwen7b", "qwen2.5-7b"), ("qwen72b", "qwen2.5-72b")):
            block = catalog[catalog.index("name: " + name):].split("\n  - name:")[0]
            for key in ("hidden", "ffn", "heads", "kv_heads", "head_dim"):
                self.assertIn("%s: %d\n" % (key, self.ex.MODELS[model][key]), block, (model, key))

    def test_prepare_predicts_what_plan_predicts(self):
        for profile in ("h200x2", "h200x2-torch"):
            with self.subTest(profile=profile):
                self.check_prepare(profile)

    def check_prepare(self, profile):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "advice.json")
            done = subprocess.run([sys.executable, os.path.join(SOURCE, "examples/torch_fsdp_overlap.py"),
                                   "--prepare", out, "--tokens", "2048", "--profile", profile],
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["profile"], profile)
            for model, m in doc["models"].items():
                trace = os.path.join(tmp, model + ".yaml")
                with open(trace, "w") as f:
                    f.write(m["trace"])
                self.assertIn("\nchain: prefetch\n", m["trace"])
                plan = json.loads(cli("plan", "--profile", profile, "--trace", trace, "--json"))
                self.assertEqual(plan["totals"], m["plan"]["totals"])
                self.assertEqual(plan["trace"]["chain"], "prefetch")
                p = m["predicted_s"]
                self.assertAlmostEqual(p["advised"], plan["totals"]["advised_s"], delta=1e-12)
                self.assertAlmostEqual(p["serial"], plan["totals"]["serial_s"], delta=1e-12)
                sp_sum = 0.0
                for e, entry in zip(m["entries"], plan["entries"]):
                    self.assertEqual(e["advise"], entry)  # the weight's advice is its plan entry
                    self.assertTrue(e["advise"]["chained"])
                    g, c = e["advise"]["gemm"], e["advise"]["collective"]
                    adv = json.loads(cli("advise", "--profile", profile, "--gemm", "%dx%dx%d" % (g["m"], g["n"], g["k"]),
                                         "--collective", "all_gather:%d" % c["size_bytes"], "--ranks", "2",
                                         "--chained", "--json"))
                    self.assertTrue(adv["chained"])
                    self.assertEqual(adv["strategies"], e["advise"]["strategies"])
                    self.assertEqual(adv["settings"], e["advise"]["settings"])
                    self.assertEqual(adv["recommendation"]["name"], e["advise"]["recommendation"]["name"])
                    sp = next(s["predicted_s"] for s in adv["strategies"] if s["name"] == "sp")
                    self.assertEqual(sp, e["advise"]["base_s"])  # chained, PyTorch's default runs GEMM-first
                    sp_sum += m["layers"] * sp
                self.assertAlmostEqual(p["default"], sp_sum, delta=1e-12)


class TpExample(unittest.TestCase):
    """The example's --parallel tp: its pairs, its --prepare against the command line, and
    its three modes (torch serial, PyTorch async-TP, advised run_dependent) on the ranks'
    rows of fake_torch (threads), each giving serial's output."""

    @classmethod
    def setUpClass(cls):
        cls.ex = load_script("examples/torch_fsdp_overlap.py", "torch_fsdp_overlap_tp")

    def test_pairs_are_the_published_tp2_shapes(self):
        """The TP2 GEMMs of data/scenarios/tp2-dependent.yaml (issue 12's async-TP table)
        that are LLaMA-3 8B/70B weights are the example's pairs, with their dependency."""
        doc = json.loads(cli("sweep", "--profile", "h200x2", "--scenarios", "data/scenarios/tp2-dependent.yaml",
                             "--ranks", "2", "--json"))
        published = {s["name"]: ((s["gemm"]["m"], s["gemm"]["n"], s["gemm"]["k"]), s["collective"]["kind"],
                                 s["dependency"]) for s in doc["scenarios"]}
        for model, weight, name in (("70b", "qkv", "ag_llama3_70b_qkv"), ("70b", "gate_up", "ag_llama3_70b_mlp_up"),
                                    ("8b", "gate_up", "ag_llama3_8b_mlp_up"), ("70b", "down", "rs_llama3_70b_mlp_down"),
                                    ("8b", "down", "rs_llama3_8b_mlp_down")):
            p = self.ex.tp_pairs(self.ex.MODELS[model], 8192, 2)[weight]
            with self.subTest(model=model, weight=weight):
                self.assertEqual(((p.m, p.n, p.k), p.collective, p.dependency), published[name])
        o = self.ex.tp_pairs(self.ex.MODELS["70b"], 8192, 2)["o"]  # heads x head_dim / 2 = 4096 rows of W_o
        self.assertEqual((o.m, o.n, o.k, o.collective), (8192, 8192, 4096, "reduce_scatter"))
        with self.assertRaises(ValueError) as caught:
            self.ex.tp_pairs(self.ex.MODELS["8b"], 8192, 3)
        self.assertIn("do not split", str(caught.exception))

    def prepare(self, tmp, *args):
        out = os.path.join(tmp, "tp.json")
        done = subprocess.run([sys.executable, os.path.join(SOURCE, "examples/torch_fsdp_overlap.py"),
                               "--prepare", out, "--parallel", "tp", *args], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out) as f:
            return json.load(f)

    def test_prepare_predicts_what_plan_and_advise_predict(self):
        with tempfile.TemporaryDirectory() as tmp:
            doc = self.prepare(tmp)
            self.assertEqual(doc["parallel"], "tp")
            for model, m in doc["models"].items():
                trace = os.path.join(tmp, model + ".yaml")
                with open(trace, "w") as f:
                    f.write(m["trace"])
                plan = json.loads(cli("plan", "--profile", "h200x2", "--trace", trace, "--json"))
                self.assertEqual(plan["totals"], m["plan"]["totals"])
                self.assertEqual([e["dependency"] for e in plan["entries"]],
                                 ["collective_feeds_gemm", "gemm_feeds_collective"] * 2)
                self.assertEqual(sorted(m["predicted_s"]), ["advised", "serial"])
                self.assertAlmostEqual(m["predicted_s"]["advised"], plan["totals"]["advised_s"], delta=1e-12)
                self.assertAlmostEqual(m["predicted_s"]["serial"], plan["totals"]["serial_s"], delta=1e-12)
                decomposed = 0
                self.assertNotIn("chain:", m["trace"])
                for e, p in zip(m["entries"], plan["entries"]):
                    self.assertEqual(e["advise"], p)  # the weight's advice is its plan entry
                    g, c = e["advise"]["gemm"], e["advise"]["collective"]
                    adv = json.loads(cli("advise", "--profile", "h200x2", "--gemm", "%dx%dx%d" % (g["m"], g["n"], g["k"]),
                                         "--collective", c["kind"], "--dependency", e["advise"]["dependency"],
                                         "--ranks", "2", "--json"))
                    self.assertEqual(adv["strategies"], e["advise"]["strategies"])
                    self.assertEqual(adv["settings"], e["advise"]["settings"])
                    self.assertEqual(adv["recommendation"]["predicted_s"], p["recommendation"]["predicted_s"])
                    decomposed += adv["recommendation"]["chunks"] > 1
                # Some weights are cut in pieces; a long GEMM's may stay serial (hedged).
                self.assertGreater(decomposed, 0, model)

    def test_the_torch_profile_names_the_shipped_copy_engines(self):
        with tempfile.TemporaryDirectory() as tmp:
            for profile, implementation in (("h200x2", "ce_push_batch_ovl"), ("h200x2-torch", "torch_symm_pull")):
                doc = self.prepare(tmp, "--profile", profile)
                named = {e["advise"]["settings"]["copy_engine"]["implementation"]
                         for m in doc["models"].values() for e in m["entries"] if e["advise"]["settings"]["copy_engine"]}
                self.assertEqual(named, {implementation}, profile)

    def test_bad_arguments_exit_with_a_message(self):
        script = os.path.join(SOURCE, "examples/torch_fsdp_overlap.py")
        env = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([sys.executable, script, "--prepare", os.path.join(tmp, "x.json"), "--parallel",
                                   "tp", "--ranks", "3"], capture_output=True, text=True)
            self.assertEqual(done.returncode, 2)
            self.assertIn("do not split", done.stderr)
            doc = self.prepare(tmp, "--models", "8b")
            advice = os.path.join(tmp, "tp.json")
            for args, text in ((["--parallel", "fsdp"], "holds tp advice, not fsdp"),
                               (["--models", "70b"], "has no advice for 70b")):
                done = subprocess.run([sys.executable, script, "--advice-json", advice, *args],
                                      capture_output=True, text=True, env=env)
                self.assertEqual(done.returncode, 1, done.stderr)
                self.assertIn(text, done.stderr)
            self.assertEqual(list(doc["models"]), ["8b"])

    FACTOR = {"qkv": 3, "o": 5, "gate_up": 7, "down": 11}

    def run_modes(self, profile, ranks, model="8b", tokens=8192):
        """Every mode of every pair of one layer on `ranks` threads, under the advisor's TP
        advice for these shapes; returns {mode: {weight: {rank: output numbers}}}.
        A's row i of rank p is 1000 p + 7 i + 3 (the all-gather pairs' shards: one
        sequence, row i = 7 i + 3); each weight multiplies by its own FACTOR."""
        pairs = self.ex.tp_pairs(self.ex.MODELS[model], tokens, ranks)
        advisor = c3advisor.Advisor(profile)
        advice = {w: advisor.advise(gemm=(p.m, p.n, p.k), collective=p.collective, ranks=ranks,
                                    dependency=p.dependency) for w, p in pairs.items()}
        world = fake_torch.World(ranks)
        log, _ = fake_torch.install(world)
        import c3advisor.torch as c3t
        M, outs = fake_torch.Matrix, {}

        def rank_fn(r):
            import torch  # fake_torch's
            ex = c3t.Executor()
            ex._ce = FakeCopyEngine(log, fake_torch.install.state, world)
            rows = tokens // ranks
            act, weights = {}, {}
            for w, p in pairs.items():
                weights[w] = M.new(log, "w_" + w, p.k, p.n, factor=self.FACTOR[w])
                if p.dependency == "collective_feeds_gemm":
                    act[w] = {"a": M.new(log, "x", rows, p.k, [7 * i + 3 for i in range(r * rows, (r + 1) * rows)]),
                              "gathered": M.new(log, "gathered", p.m, p.k), "out": M.new(log, "out", p.m, p.n)}
                else:
                    act[w] = {"a": M.new(log, "y", p.m, p.k, [1000 * r + 7 * i + 3 for i in range(p.m)]),
                              "product": M.new(log, "product", p.m, p.n), "out": M.new(log, "out", rows, p.n)}
            layers = types.SimpleNamespace(pairs=pairs, weights=[weights], act=act)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for mode in ("serial", "async_tp", "advised"):
                    for w in self.ex.WEIGHTS:
                        got = self.ex.tp_pair(torch, torch.distributed, ex, layers, w, 0,
                                              mode, advice, "0")
                        outs.setdefault(mode, {}).setdefault(w, {})[r] = got.values()
        world.run(rank_fn)
        return outs, advice, log

    def test_every_mode_gives_serials_output(self):
        tokens = 8192
        for profile, ranks in (("h200x2", 2), ("mi300x", 4)):
            outs, advice, log = self.run_modes(profile, ranks)
            with self.subTest(profile=profile, ranks=ranks):
                self.assertEqual(outs["async_tp"], outs["serial"])
                self.assertEqual(outs["advised"], outs["serial"])
                self.assertEqual(outs["serial"]["qkv"][0], [3 * (7 * i + 3) for i in range(tokens)])
                self.assertEqual(outs["serial"]["gate_up"][ranks - 1], [7 * (7 * i + 3) for i in range(tokens)])
                block = tokens // ranks
                self.assertEqual(outs["serial"]["down"][1],
                                 [sum(11 * (1000 * p + 7 * (block + j) + 3) for p in range(ranks)) for j in range(block)])
                self.assertEqual(outs["serial"]["o"][0],
                                 [sum(5 * (1000 * p + 7 * j + 3) for p in range(ranks)) for j in range(block)])
                self.assertTrue(any(a.chunks > 1 for a in advice.values()))  # decomposed schedules ran
                names = [e[0] for e in log]
                for op in ("fused_all_gather_matmul", "fused_matmul_reduce_scatter", "nccl_reduce_scatter"):
                    self.assertIn(op, names)


class Machine(unittest.TestCase):
    def test_driver_version_is_nvidia_smis_or_unknown(self):
        """Here (no GPU) "unknown" unless nvidia-smi answers; either way a non-empty string
        without a newline, as the torch jobs' provenance records it."""
        from c3advisor._machine import driver_version
        v = driver_version()
        self.assertTrue(v and "\n" not in v, v)
        env = dict(os.environ, PATH="")  # no nvidia-smi at all
        code = "from c3advisor._machine import driver_version; print(driver_version())"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        self.assertEqual(done.stdout.strip(), "unknown", done.stderr)


class CollectiveBenchFile(unittest.TestCase):
    def test_the_command_line_reads_it(self):
        bench = load_script("scripts/gpu-jobs/torch_collectives.py", "torch_collectives")
        prov = {"backend": "torch", "device": "NVIDIA H200 x2", "gpus": 2, "compute_units": 132,
                "versions": {"torch": "2.11.0", "nccl": "2.28.9"}, "notes": ["test"], "git_sha": "x",
                "date": "2026-11-23T00:00:00Z", "command": "test", "c3advisor_version": "0.1.0"}
        records = [bench.record("all_gather", "torch_symm_pull", 2, 1 << 20, [2e-5, 1e-5, 3e-5], 6, True),
                   bench.record("all_gather", "nccl", 2, 1 << 20, [4e-5, 4e-5, 5e-5], 6, True),
                   bench.record("all_to_all", "torch_symm_pull", 2, 1 << 20, [], 6, False, "boom")]
        self.assertEqual(records[0]["time_s"], 2e-5)
        self.assertAlmostEqual(records[0]["busbw_bytes_per_s"], (1 << 20) / 2e-5 / 2)
        self.assertFalse(records[2]["ok"])
        self.assertEqual(bench.sizes_bytes(64 << 10, 1 << 30)[-1], 1 << 30)
        self.assertEqual(len(bench.sizes_bytes(64 << 10, 1 << 30)), 15)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.json")
            bench.write_atomically(path, bench.document(prov, records))
            back = json.loads(cli("bench-collective", "--from", path, "--json"))
            self.assertEqual([(r["transport"], r["ok"]) for r in back["records"]],
                             [("torch_symm_pull", True), ("nccl", True), ("torch_symm_pull", False)])
            self.assertEqual(back["records"][0]["time_s"], 2e-5)
            self.assertIn("torch_symm_pull", cli("bench-collective", "--from", path))


if __name__ == "__main__":
    unittest.main()
