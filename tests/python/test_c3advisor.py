"""Tests of the Python package c3advisor (ctest python_package): it agrees with the
command line's JSON on every paper scenario and a few held-out ones for two embedded
profiles, its typed results agree with that JSON, and every error raises.

Environment (set by ctest): PYTHONPATH=<build>/python, C3ADVISOR_CLI=<the c3advisor
binary>, C3_SOURCE_DIR=<the repository>."""
import json
import os
import subprocess
import threading
import unittest

import c3advisor

CLI = os.environ.get("C3ADVISOR_CLI", "c3advisor")
SOURCE = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
PROFILES = ("h200x2", "h200x2-torch", "mi300x")


def cli(*args):
    done = subprocess.run([CLI, *args], cwd=SOURCE, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError("c3advisor %s: %s" % (" ".join(args), done.stderr))
    return done.stdout


def scenarios(profile, source, ranks):
    """The pairs of a scenarios file as the CLI reads them (sweep --json)."""
    doc = json.loads(cli("sweep", "--profile", profile, "--scenarios", source,
                         "--ranks", str(ranks), "--json"))
    return [(s["name"], s["gemm"], s["collective"]) for s in doc["scenarios"]]


def settings_json(settings):
    """The "settings" object of `advise --json` from a c3advisor.Settings."""
    green = settings.green_contexts
    return {"launch_order": settings.launch_order, "overlap": settings.overlap,
            "prefetch": settings.prefetch,
            "nccl": None if settings.nccl is None else
            {"max_ctas": settings.nccl.max_ctas, "min_ctas": settings.nccl.min_ctas},
            "green_contexts": None if green is None else
            {"gemm_sms": green.gemm_sms, "collective_sms": green.collective_sms},
            "copy_engine": None if settings.copy_engine is None else
            {"implementation": settings.copy_engine},
            "chunks": settings.chunks}


class AgreesWithTheCommandLine(unittest.TestCase):
    def check_scenarios(self, profile, source, limit=None):
        advisor = c3advisor.Advisor(profile)
        ranks = advisor.profile.gpu_count
        pairs = scenarios(profile, source, ranks)[:limit]
        self.assertGreater(len(pairs), 0)
        kinds = set()
        for name, gemm, coll in pairs:
            with self.subTest(profile=profile, scenario=name):
                advice = advisor.advise(gemm=(gemm["m"], gemm["n"], gemm["k"]), dtype=gemm["dtype"],
                                        collective=coll["kind"], size=coll["size_bytes"],
                                        ranks=coll["ranks"])
                expected = cli("advise", "--profile", profile,
                               "--gemm", "%dx%dx%d:%s" % (gemm["m"], gemm["n"], gemm["k"], gemm["dtype"]),
                               "--collective", "%s:%d" % (coll["kind"], coll["size_bytes"]),
                               "--ranks", str(coll["ranks"]), "--json")
                self.assertEqual(advice.json, expected)
                doc = json.loads(expected)
                rec = doc["recommendation"]
                self.assertEqual(advice.strategy, rec["name"])
                self.assertEqual(advice.kind, rec["kind"])
                self.assertEqual(advice.order, rec["order"])
                self.assertEqual(advice.transport, "copy_engine" if rec["transport"] == "dma" else "nccl")
                self.assertEqual(advice.predicted_s, rec["predicted_s"])
                self.assertEqual(advice.gemm_sms, rec["gemm_cus"])
                self.assertEqual(advice.collective_sms, rec["collective_cus"])
                self.assertEqual(advice.speedup, rec["speedup"])
                self.assertEqual(advice.serial_s, next(s["predicted_s"] for s in doc["strategies"]
                                                       if s["name"] == "serial"))
                others = [s for s in doc["strategies"] if s["name"] != rec["name"]]
                fastest_other = min(others, key=lambda s: s["predicted_s"])
                self.assertEqual(advice.runner_up.strategy, fastest_other["name"])
                self.assertEqual(advice.runner_up.predicted_s, fastest_other["predicted_s"])
                self.assertEqual(settings_json(advice.settings), doc["settings"])
                self.assertEqual(list(advice.warnings), doc["warnings"])
                self.assertEqual(advice.reason, rec["reason"])
                kinds.add(advice.kind)
        return kinds

    def test_paper_scenarios(self):
        kinds = set()
        for profile in PROFILES:
            kinds |= self.check_scenarios(profile, "paper")
        # the scenarios reach more than one kind of advice, so the settings differ
        self.assertGreater(len(kinds), 1, kinds)

    def test_heldout_scenarios(self):
        for profile in PROFILES:
            self.check_scenarios(profile, "data/scenarios/heldout.yaml", limit=6)

    def test_plan_agrees_with_cli(self):
        trace = os.path.join(SOURCE, "data", "traces", "llama70b_fsdp.yaml")
        advisor = c3advisor.Advisor("mi300x")
        plan = advisor.plan(trace)
        expected = cli("plan", "--profile", "mi300x", "--trace", trace, "--json")
        self.assertEqual(plan.json, expected)
        totals = json.loads(expected)["totals"]
        self.assertEqual(plan.advised_s, totals["advised_s"])
        self.assertEqual(plan.serial_s, totals["serial_s"])
        self.assertEqual(plan.base_s, totals["base_s"])
        self.assertEqual(plan.entries, len(json.loads(expected)["entries"]))
        with open(trace) as f:
            from_text = advisor.plan(f.read())
        self.assertEqual(from_text.json, plan.json)


class Api(unittest.TestCase):
    def test_sizes_and_defaults(self):
        advisor = c3advisor.Advisor("h200x2")
        a = advisor.advise(gemm=(8192, 8192, 8192), size="896MiB", ranks=2)
        b = advisor.advise(gemm=(8192, 8192, 8192), size=896 << 20)  # ranks: the profile's 2
        self.assertEqual(a, b)
        self.assertEqual(c3advisor.parse_size("3.25GiB"), int(3.25 * 2**30))
        self.assertIn("h200x2", c3advisor.embedded_profiles())
        self.assertEqual(advisor.profile.gpu_count, 2)
        self.assertRegex(c3advisor.version(), r"^\d+\.\d+\.\d+")

    def test_profile_file(self):
        path = os.path.join(SOURCE, "data", "profiles", "h200x2.yaml")
        with c3advisor.Advisor(path) as from_file:
            a = from_file.advise(gemm=(8192, 8192, 8192), size="896MiB", ranks=2)
        b = c3advisor.Advisor("h200x2").advise(gemm=(8192, 8192, 8192), size="896MiB", ranks=2)
        self.assertEqual(a, b)

    def test_threads_share_one_advisor(self):
        advisor = c3advisor.Advisor("h200x2")
        sizes = ["%dMiB" % (64 * i) for i in range(1, 9)]
        expected = [advisor.advise(gemm=(8192, 28672, 8192), size=s) for s in sizes]
        results, errors = {}, []

        def work(tid):
            try:
                results[tid] = [advisor.advise(gemm=(8192, 28672, 8192), size=s) for s in sizes]
                advisor.advise(gemm=(8192, 8192, 8192), size="0")
            except c3advisor.InvalidArgumentError as e:
                errors.append(e.message)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(errors), 8)
        for tid in range(8):
            self.assertEqual(results[tid], expected)


class ReadmeExample(unittest.TestCase):
    def test_readme_python_block_runs_and_prints_what_it_says(self):
        with open(os.path.join(SOURCE, "README.md")) as f:
            text = f.read()
        block = text.split("```python\n", 1)[1].split("```", 1)[0]
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})
        first = out.getvalue().splitlines()[0]
        # The comment on the first print line shows its output.
        shown = block.splitlines()[3].split("# ", 1)[1].strip()
        self.assertEqual(first, shown)


class Errors(unittest.TestCase):
    def setUp(self):
        self.advisor = c3advisor.Advisor("h200x2")

    def test_unknown_profile(self):
        with self.assertRaises(c3advisor.ProfileNotFoundError) as caught:
            c3advisor.Advisor("no_such_profile")
        self.assertIn("no_such_profile", caught.exception.message)
        self.assertEqual(caught.exception.status, "C3A_ERR_PROFILE_NOT_FOUND")

    def test_bad_profile_file(self):
        path = os.path.join(SOURCE, "tests", "capi", "bad_profile.yaml")
        with self.assertRaises(c3advisor.BadFileError) as caught:
            c3advisor.Advisor(path)
        self.assertIn("bad_profile.yaml", str(caught.exception))

    def test_bad_values(self):
        advise = self.advisor.advise
        for kwargs in ({"gemm": (0, 8192, 8192), "size": "1MiB"},
                       {"gemm": (8192, 8192, 8192), "size": 0},
                       {"gemm": (8192, 8192, 8192), "size": "12 parsecs"},
                       {"gemm": (8192, 8192, 8192), "size": "1MiB", "ranks": 1},
                       {"gemm": (8192, 8192, 8192), "size": "1MiB", "dtype": "int4"},
                       {"gemm": (8192, 8192, 8192), "size": "1MiB", "collective": "broadcast"},
                       {"gemm": (8192, 8192), "size": "1MiB"},
                       {"gemm": (8192, 8192, 8192), "size": 1.5}):
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaises(c3advisor.InvalidArgumentError) as caught:
                    advise(**kwargs)
                self.assertTrue(caught.exception.message)
                self.assertIsInstance(caught.exception, ValueError)

    def test_integers_the_c_types_cannot_hold_and_wrong_types(self):
        # ctypes keeps the low bits of an int too large for its C type: 2**32 + 2 ranks were
        # advised as 2, a GEMM of 2**64 + 8192 rows as 8192, size 2**70 as 0. Refused before
        # the call now, the argument, its value and the C type's range named.
        pair = dict(gemm=(8192, 8192, 8192), collective="all_gather", size="1GiB", ranks=2)
        int32, int64 = "[-2147483648, 2147483647]", "[-9223372036854775808, 9223372036854775807]"
        for change, name, value, allowed in (
                ({"ranks": 2**32 + 2}, "ranks", "4294967298", int32),
                ({"ranks": -2**31 - 1}, "ranks", "-2147483649", int32),
                ({"gemm": (2**64 + 8192, 8192, 8192)}, "gemm m", "18446744073709559808", int64),
                ({"gemm": (2**70, 1, 1)}, "gemm m", str(2**70), int64),
                ({"gemm": (8192, 8192, -2**63 - 1)}, "gemm k", str(-2**63 - 1), int64),
                ({"size": 2**70}, "size", str(2**70), int64),
                ({"size": -2**64}, "size", str(-2**64), int64),
                ({"gemm_tile": (2**31, 128)}, "gemm_tile tile_m", "2147483648", int32),
                ({"gemm_tile": (128, 128, 2**40)}, "gemm_tile split_k", str(2**40), int32),
                ({"chained": 2**32 + 1}, "chained", "4294967297", int32),
                ({"ranks": True}, "ranks", "True", int32),
                ({"size": False}, "size", "False", int64),
                ({"ranks": 2.0}, "ranks", "2.0", int32),
                ({"gemm": (8192, 8192.0, 8192)}, "gemm n", "8192.0", int64),
                ({"gemm": ("8192", 8192, 8192)}, "gemm m", "'8192'", int64),
                ({"gemm_tile": (128.5, 128)}, "gemm_tile tile_m", "128.5", int32),
                ({"chained": None}, "chained", "None", int32),
                ({"collective": None}, "collective", "None", "str"),
                ({"collective": 3}, "collective", "3", "str"),
                ({"dtype": None}, "dtype", "None", "str"),
                ({"dependency": 1}, "dependency", "1", "str or None"),
                ({"gemm_class": 2}, "gemm_class", "2", "str or None"),
                ({"layout": 3}, "layout", "3", "str or None"),
                ({"collective": "all_gather\0x"}, "collective", "'all_gather\\x00x'", "NUL"),
                ({"collective": "\ud800"}, "collective", "'\\ud800'", "cannot be encoded")):
            with self.subTest(**{k: repr(v) for k, v in change.items()}):
                with self.assertRaises(c3advisor.InvalidArgumentError) as caught:
                    self.advisor.advise(**{**pair, **change})
                message = caught.exception.message
                self.assertTrue(message.startswith(name + " "), message)
                self.assertIn(value, message)
                self.assertIn(allowed, message)
                self.assertEqual(caught.exception.status, "C3A_ERR_INVALID_ARGUMENT")
                self.assertIsInstance(caught.exception, ValueError)
        # a negative value the C type holds is the library's to refuse, with its own sentence
        with self.assertRaises(c3advisor.InvalidArgumentError) as caught:
            self.advisor.advise(**{**pair, "size": -5})
        self.assertIn("size must be positive (got -5)", caught.exception.message)
        # the largest values the C types hold reach the library (its answer, not a range error)
        with self.assertRaises(c3advisor.OutOfDomainError) as caught:
            self.advisor.advise(**{**pair, "ranks": 2**31 - 1})
        self.assertIn("2147483647", caught.exception.message)
        with self.assertRaises(c3advisor.InvalidArgumentError) as caught:
            self.advisor.advise(**{**pair, "gemm": (2**63 - 1, 8192, 8192)})
        self.assertIn("9223372036854775807x8192x8192", caught.exception.message)
        # the other entry points
        for call, name in ((lambda: c3advisor.parse_size(2**70), "size"),
                           (lambda: c3advisor.parse_size(True), "size"),
                           (lambda: c3advisor.Advisor(None), "profile"),
                           (lambda: c3advisor.Advisor(2), "profile"),
                           (lambda: c3advisor.Advisor("h200x2\0junk"), "profile"),
                           (lambda: self.advisor.plan(None), "trace"),
                           (lambda: self.advisor.plan(7), "trace")):
            with self.subTest(name=name), self.assertRaises(c3advisor.InvalidArgumentError) as caught:
                call()
            self.assertTrue(caught.exception.message.startswith(name + " "), caught.exception.message)
        self.assertEqual(c3advisor.parse_size(2**63 - 1), 2**63 - 1)
        # in range, the same advice as before (the command line's: AgreesWithTheCommandLine)
        self.assertEqual(self.advisor.advise(**pair).json,
                         cli("advise", "--profile", "h200x2", "--gemm", "8192x8192x8192", "--collective",
                             "all_gather:1GiB", "--ranks", "2", "--json"))

    def test_out_of_domain(self):
        with self.assertRaises(c3advisor.OutOfDomainError) as caught:
            self.advisor.advise(gemm=(8192, 8192, 8192), size="1GiB", ranks=8)
        self.assertIn("8", caught.exception.message)

    def test_dependency(self):
        with self.assertRaises(c3advisor.InvalidArgumentError) as caught:
            self.advisor.advise(gemm=(8192, 8192, 8192), size="1GiB", dependency="gemm_then_collective")
        self.assertIn("gemm_then_collective", caught.exception.message)
        self.assertIsInstance(caught.exception, c3advisor.Error)
        with self.assertRaises(c3advisor.InvalidArgumentError) as caught:  # not the GEMM's output
            self.advisor.advise(gemm=(8192, 8192, 8192), collective="reduce_scatter", size="1GiB",
                                dependency="gemm_feeds_collective")
        self.assertIn("m x n", caught.exception.message)

    def test_dependent_pair_agrees_with_cli(self):
        for collective, dependency in (("all_gather", "collective_feeds_gemm"),
                                       ("reduce_scatter", "gemm_feeds_collective")):
            with self.subTest(dependency=dependency):
                advice = self.advisor.advise(gemm=(8192, 5120, 8192), collective=collective, dependency=dependency)
                doc = json.loads(cli("advise", "--profile", "h200x2", "--gemm", "8192x5120x8192", "--collective",
                                     collective, "--dependency", dependency, "--json"))
                self.assertEqual(doc["dependency"], dependency)
                self.assertEqual(advice.strategy, doc["recommendation"]["name"])
                self.assertEqual(advice.chunks, doc["recommendation"]["chunks"])
                self.assertAlmostEqual(advice.predicted_s, doc["recommendation"]["predicted_s"], delta=1e-12)
                self.assertEqual(advice.settings.chunks, advice.chunks)

    def test_gemm_tile_agrees_with_cli(self):
        # 264 CTAs of 192x192: 2 waves on 132 SMs, 3 on the 124 rp:8 leaves (docs/cli.md).
        with c3advisor.Advisor("h100x2") as h100:
            for tile, args in ((None, []), ((192, 192), ["--gemm-tile", "192x192"]),
                               ((128, 256, 2), ["--gemm-tile", "128x256:2"])):
                with self.subTest(tile=tile):
                    advice = h100.advise(gemm=(2048, 4608, 6144), collective="all_gather", size="24MiB",
                                         ranks=2, gemm_tile=tile)
                    doc = json.loads(cli("advise", "--profile", "h100x2", "--gemm", "2048x4608x6144",
                                         "--collective", "all_gather:24MiB", "--ranks", "2", "--json", *args))
                    self.assertEqual(json.loads(advice.json), doc)
            plain = h100.advise(gemm=(2048, 4608, 6144), collective="all_gather", size="24MiB", ranks=2)
            own = h100.advise(gemm=(2048, 4608, 6144), collective="all_gather", size="24MiB", ranks=2,
                              gemm_tile=(192, 192))
            rp8 = lambda a: [s for s in json.loads(a.json)["strategies"] if s["name"] == "rp:8"][0]
            self.assertGreater(rp8(own)["predicted_s"], rp8(plain)["predicted_s"] * 1.1)
            for bad in ((0, 192), (192,), ("a", 1), (192, 192, -1)):
                with self.subTest(bad=bad), self.assertRaises(c3advisor.InvalidArgumentError):
                    h100.advise(gemm=(2048, 4608, 6144), collective="all_gather", size="24MiB", ranks=2,
                                gemm_tile=bad)

    def test_layout_agrees_with_cli(self):
        # docs/model.md §1.1: an odd m leads in tn (the default), not in row_major (PyTorch's)
        pair = dict(gemm=(1093, 4096, 4096), collective="all_gather", size="64MiB", ranks=2)
        with c3advisor.Advisor("h200x2") as advisor:
            for layout, spelled in (("tn", "1093x4096x4096"), ("row_major", "1093x4096x4096:bf16:row_major")):
                with self.subTest(layout=layout):
                    advice = advisor.advise(**pair, layout=layout)
                    expected = cli("advise", "--profile", "h200x2", "--gemm", spelled,
                                   "--collective", "all_gather:64MiB", "--ranks", "2", "--json")
                    self.assertEqual(advice.json, expected)
                    self.assertEqual(json.loads(expected)["gemm"]["layout"], layout)
            self.assertGreater(advisor.advise(**pair).serial_s, 1.5 * advisor.advise(**pair, layout="row_major").serial_s)
            self.assertEqual(advisor.advise(**pair, layout=None).json, advisor.advise(**pair).json)
            for bad in ("colmajor", 3, "tn\0"):
                with self.subTest(bad=bad), self.assertRaises(c3advisor.InvalidArgumentError):
                    advisor.advise(**pair, layout=bad)

    def test_chained_agrees_with_cli(self):
        # docs/model.md §4.6: chained, sp runs as base and nothing pays a launch, so the advice
        # moves from sp to the copy engines on this pair.
        pair = dict(gemm=(8192, 6144, 4096), collective="all_gather", size=50331648, ranks=2)
        args = ("advise", "--profile", "h200x2-torch", "--gemm", "8192x6144x4096",
                "--collective", "all_gather:50331648", "--ranks", "2", "--json")
        with c3advisor.Advisor("h200x2-torch") as torch_profile:
            advices = {}
            for chained in (False, True):
                with self.subTest(chained=chained):
                    advice = torch_profile.advise(**pair, chained=chained)
                    expected = cli(*args, *(("--chained",) if chained else ()))
                    self.assertEqual(advice.json, expected)
                    doc = json.loads(expected)
                    self.assertEqual(doc.get("chained", False), chained)
                    self.assertEqual(advice.strategy, doc["recommendation"]["name"])
                    self.assertEqual(advice.predicted_s, doc["recommendation"]["predicted_s"])
                    self.assertEqual(settings_json(advice.settings), doc["settings"])
                    advices[chained] = advice
            self.assertNotEqual(advices[True].strategy, advices[False].strategy)
            self.assertNotEqual(advices[True].predicted_s, advices[False].predicted_s)
            self.assertEqual(torch_profile.advise(**pair).json, advices[False].json)  # the default: alone
            with self.assertRaises(c3advisor.InvalidArgumentError) as caught:
                torch_profile.advise(**pair, chained=2)
            self.assertEqual(caught.exception.status, "C3A_ERR_INVALID_ARGUMENT")
            self.assertIn("pair.chained", caught.exception.message)
            with self.assertRaises(c3advisor.InvalidArgumentError):
                torch_profile.advise(**pair, chained=None)
        # A dependent pair keeps its own schedule: refused, as the command line refuses it.
        done = subprocess.run([CLI, "advise", "--profile", "h200x2", "--gemm", "8192x5120x8192", "--collective",
                               "all_gather", "--dependency", "collective_feeds_gemm", "--chained"],
                              cwd=SOURCE, capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        with self.assertRaises(c3advisor.InvalidArgumentError) as caught:
            self.advisor.advise(gemm=(8192, 5120, 8192), collective="all_gather",
                                dependency="collective_feeds_gemm", chained=True)
        self.assertEqual(caught.exception.status, "C3A_ERR_INVALID_ARGUMENT")
        self.assertEqual(done.stderr.strip(), "c3advisor: error: --chained: " + caught.exception.message)

    def test_bad_traces(self):
        with self.assertRaises(c3advisor.BadFileError) as caught:
            self.advisor.plan("/no/such/trace.yaml")
        self.assertIn("/no/such/trace.yaml", caught.exception.message)
        with self.assertRaises(c3advisor.BadFileError):
            self.advisor.plan("schema_version: 1\nentries: [1, 2\n")

    def test_closed(self):
        self.advisor.close()
        with self.assertRaises(c3advisor.Error):
            self.advisor.advise(gemm=(8192, 8192, 8192), size="1GiB")


if __name__ == "__main__":
    unittest.main()
