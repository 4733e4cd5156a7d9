"""scripts/repeat_spread.py, scripts/round_spread.py, scripts/new_pairs.py, scripts/score_by_size.py, scripts/decomposition_bias.py and scripts/pooled_rounds.py on
scripts/dependent_replay.py, scripts/timeline_compare.py and scripts/subset_scenarios.py on small hand-made files whose answers are worked out here
(docs/accuracy.md, "Test split"),
and scripts/gpu-jobs/new-node.sh and test-round.sh with a fake nvidia-smi and c3advisor."""
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SPREAD = os.path.join(ROOT, "scripts", "repeat_spread.py")
BY_SIZE = os.path.join(ROOT, "scripts", "score_by_size.py")
BIAS = os.path.join(ROOT, "scripts", "decomposition_bias.py")
REPLAY = os.path.join(ROOT, "scripts", "dependent_replay.py")
STRATEGY_REPLAY = os.path.join(ROOT, "scripts", "strategy_correction_replay.py")
TIMELINE = os.path.join(ROOT, "scripts", "timeline_compare.py")
GATE = os.path.join(ROOT, "scripts", "gate_compare.py")
GATE_AB = os.path.join(ROOT, "scripts", "gpu-jobs", "gate-ab.sh")
SUBSET = os.path.join(ROOT, "scripts", "subset_scenarios.py")
POOLED = os.path.join(ROOT, "scripts", "pooled_rounds.py")
POOLED_ACCURACY = os.path.join(ROOT, "scripts", "pooled_accuracy.py")
TRAIN_GEMMS = os.path.join(ROOT, "scripts", "train_gemm_files.py")
ROUND_SPREAD = os.path.join(ROOT, "scripts", "round_spread.py")
NEW_PAIRS = os.path.join(ROOT, "scripts", "new_pairs.py")
LOSO_DMA_STEP = os.path.join(ROOT, "scripts", "loso_dma_step.py")


def import_script(folder, name):
    """The module of script `name`.py in ROOT/`folder` (scripts, scripts/gpu-jobs), imported
    without writing __pycache__ into the source tree; the folder stays on sys.path no longer."""
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(ROOT, folder))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def raw(times):
    """A raw measurements file: {pair index: {strategy: median_s}}."""
    records = []
    for i, strategies in times.items():
        for name, t in strategies.items():
            records.append({"key": "concurrent %dx8x8:bf16 all_gather size_bytes=1024 ranks=2 strategy=%s" % (i + 8, name),
                            "what": "concurrent", "ok": True, "strategy": name, "median_s": t})
    return {"schema_version": 1, "provenance": {}, "records": records}


def run(script, *args):
    p = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def write_text(folder, name, text):
    """FOLDER/NAME holding TEXT (e.g. a file that is not JSON); returns the path."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class RepeatSpread(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_spread_and_noise_ceiling(self):
        # pair 0 (1 ms): the same order in both runs; pair 1 (50 us): the order flips.
        a = self.write("a.json", raw({0: {"serial": 1.0e-3, "base": 0.8e-3}, 1: {"serial": 50e-6, "base": 60e-6}}))
        b = self.write("b.json", raw({0: {"serial": 1.1e-3, "base": 0.8e-3}, 1: {"serial": 60e-6, "base": 50e-6}}))
        out = os.path.join(self.dir.name, "out.json")
        rc, text = run(SPREAD, a, b, "--json", out)
        self.assertEqual(rc, 0, text)
        with open(out) as f:
            doc = json.load(f)
        over, under = doc["classes"]["over_100us"], doc["classes"]["under_100us"]
        self.assertEqual((over["pairs"], under["pairs"]), (1, 1))
        self.assertAlmostEqual(over["spread_max"], 0.1)   # serial 1.0 -> 1.1 ms
        self.assertAlmostEqual(over["spread_median"], 0.05)  # (0.1 + 0.0) / 2
        self.assertEqual(over["noise_ceiling"], 1.0)      # base fastest in both
        self.assertEqual(under["noise_ceiling"], 0.0)     # each run's choice loses 20% in the other
        self.assertAlmostEqual(doc["classes"]["all"]["noise_ceiling"], 0.5)

    def test_median_of_the_other_runs_as_a_predictor(self):
        # Three runs of one 1 ms pair: base is fastest in runs 1 and 2, dma in run 3 (each
        # loses more than 2% where it is not fastest). Noise ceiling: only 1->2 and 2->1 of the
        # 6 ordered pairs are right. Median of the others: for run 1 (runs 2, 3: base 0.925,
        # dma 0.94 ms) and run 2 (runs 1, 3: 0.925, 0.935) base, right; for run 3 base, wrong.
        times = [{0: {"base": 0.90e-3, "dma": 0.97e-3}},
                 {0: {"base": 0.90e-3, "dma": 0.98e-3}},
                 {0: {"base": 0.95e-3, "dma": 0.90e-3}}]
        paths = [self.write("r%d.json" % i, raw(t)) for i, t in enumerate(times)]
        out = os.path.join(self.dir.name, "out.json")
        rc, text = run(SPREAD, *paths, "--json", out)
        self.assertEqual(rc, 0, text)
        self.assertIn("median of others", text)
        with open(out) as f:
            c = json.load(f)["classes"]["all"]
        self.assertAlmostEqual(c["noise_ceiling"], 2 / 6)
        self.assertAlmostEqual(c["median_of_others_ceiling"], 2 / 3)

    def test_picks_in_every_run_and_against_the_median_of_the_runs(self):
        # pair 0: the pick, base, is fastest in runs 1 and 3 and 10% slow in run 2, so right
        # against the median of the runs; pair 1: the pick, serial, is fastest in run 2 only.
        times = [{0: {"serial": 1.00e-3, "base": 0.90e-3}, 1: {"serial": 1.0e-3, "dma": 0.8e-3}},
                 {0: {"serial": 0.90e-3, "base": 0.99e-3}, 1: {"serial": 0.7e-3, "dma": 0.8e-3}},
                 {0: {"serial": 1.00e-3, "base": 0.92e-3}, 1: {"serial": 1.0e-3, "dma": 0.8e-3}}]
        files = [self.write("r%d.json" % i, raw(t)) for i, t in enumerate(times)]
        scenario = lambda i, pick: {"name": "p%d" % i, "pick": pick, "gemm": {"m": i + 8, "n": 8, "k": 8, "dtype": "bf16"},
                                    "collective": {"kind": "all_gather", "size_bytes": 1024, "ranks": 2}}
        picks = self.write("picks.json", {"scenarios": [scenario(0, "base"), scenario(1, "serial")]})
        out = os.path.join(self.dir.name, "out.json")
        rc, text = run(SPREAD, *files, "--picks", picks, "--json", out)
        self.assertEqual(rc, 0, text)
        with open(out) as f:
            c = json.load(f)["classes"]["all"]
        self.assertAlmostEqual(c["advisor_right"], 3 / 6)  # base in runs 1, 3; serial in run 2
        self.assertEqual(c["advisor_wrong_in_first_run"], 1)  # serial in run 1
        self.assertEqual(c["of_which_right_in_another_run"], 1)  # ... right in run 2
        self.assertAlmostEqual(c["advisor_right_vs_median_of_runs"], 0.5)  # base right, serial not (1.0 vs 0.8)
        self.assertIn("right vs median", text)

    def test_picks_of_dependent_pairs_match_their_records(self):
        # A dependent pair's raw key carries its dependency after the strategy; the pick of
        # validate --json names it in "dependency". Both must land on the same pair.
        def dependent_raw(times):
            doc = raw(times)
            for r in doc["records"]:
                r["key"] += " dependency=collective_feeds_gemm"
            return doc
        a = self.write("a.json", dependent_raw({0: {"serial": 1.0e-3, "chunked:2:dma": 0.8e-3}}))
        b = self.write("b.json", dependent_raw({0: {"serial": 1.0e-3, "chunked:2:dma": 0.9e-3}}))
        picks = self.write("picks.json", {"scenarios": [{
            "name": "p0", "pick": "chunked:2:dma", "dependency": "collective_feeds_gemm",
            "gemm": {"m": 8, "n": 8, "k": 8, "dtype": "bf16"},
            "collective": {"kind": "all_gather", "size_bytes": 1024, "ranks": 2}}]})
        out = os.path.join(self.dir.name, "out.json")
        rc, text = run(SPREAD, a, b, "--picks", picks, "--json", out)
        self.assertEqual(rc, 0, text)
        with open(out) as f:
            c = json.load(f)["classes"]["all"]
        self.assertEqual(c["pairs"], 1)
        self.assertAlmostEqual(c["advisor_right"], 1.0)  # chunked:2:dma fastest in both runs

    def test_relative_to_serial_spread_and_the_runs_spread(self):
        # pair 0 (1 ms serial): base / serial is 0.8 then 0.88 (a 10% spread); dma moves with
        # serial (no spread). pair 1 (50 us serial) is under --ratio-min-us: left out.
        a = raw({0: {"serial": 1.0e-3, "base": 0.8e-3, "dma": 0.9e-3}, 1: {"serial": 50e-6, "base": 60e-6}})
        b = raw({0: {"serial": 1.0e-3, "base": 0.88e-3, "dma": 0.9e-3}, 1: {"serial": 60e-6, "base": 50e-6}})
        for doc in (a, b):  # runs whose interquartile range is 2% of the median
            for r in doc["records"]:
                m = r["median_s"]
                r["runs_s"] = [0.99 * m, 0.99 * m, m, 1.01 * m, 1.01 * m]
        out = os.path.join(self.dir.name, "out.json")
        rc, text = run(SPREAD, self.write("a.json", a), self.write("b.json", b), "--json", out)
        self.assertEqual(rc, 0, text)
        self.assertIn("time / serial", text)
        with open(out) as f:
            rel = json.load(f)["relative_to_serial"]
        self.assertEqual(rel["strategy_times"], 2)
        self.assertAlmostEqual(rel["spread_median"], 0.05)  # (0.1 + 0.0) / 2
        self.assertAlmostEqual(rel["spread_p90"], 0.1)
        self.assertAlmostEqual(rel["runs_iqr_over_median"], 0.02)
        rc, text = run(SPREAD, self.write("a.json", a), self.write("b.json", b), "--ratio-min-us", "2000")
        self.assertEqual(rc, 0, text)
        self.assertNotIn("time / serial", text)  # no pair's serial took 2 ms

    def test_needs_two_files_and_common_pairs(self):
        a = self.write("a.json", raw({0: {"serial": 1e-3, "base": 2e-3}}))
        rc, text = run(SPREAD, a)
        self.assertNotEqual(rc, 0)
        self.assertIn("at least two", text)
        b = self.write("b.json", raw({5: {"serial": 1e-3, "base": 2e-3}}))
        rc, text = run(SPREAD, a, b)
        self.assertNotEqual(rc, 0)
        self.assertIn("no pair", text)


class ScoreBySize(unittest.TestCase):
    def test_five_microsecond_rule(self):
        def scenario(oracle_s, pick_s, correct):
            return {"oracle": "base", "pick": "serial", "correct": correct,
                    "loss_vs_oracle": pick_s / oracle_s - 1,
                    "strategies": [{"name": "base", "measured_s": oracle_s},
                                   {"name": "serial", "measured_s": pick_s}]}
        doc = {"scenarios": [scenario(40e-6, 44e-6, False),    # 10% but 4 us: met
                             scenario(40e-6, 46e-6, False),    # 15% and 6 us: not met
                             scenario(1e-3, 1.04e-3, False),   # 4%: met
                             scenario(1e-3, 1.0e-3, True)]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        try:
            rc, text = run(BY_SIZE, f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 0, text)
        lines = {l.split()[0]: l.split() for l in text.splitlines()[2:]}
        self.assertEqual(lines["under_100us"][-3:], ["1", "of", "2"])
        self.assertEqual(lines["over_100us"][-3:], ["2", "of", "2"])
        self.assertEqual(lines["over_100us"][2], "50.0%")
        self.assertEqual(lines["all"][-3:], ["3", "of", "4"])


class DecompositionBias(unittest.TestCase):
    def test_bias_and_the_replayed_delta(self):
        # One all-gather (the collective feeds the GEMM), G-long (10 ms GEMM, 1 ms collective):
        # chunked:2:dma predicted 10.1 ms against serial's 11 ms, measured 11.5 against 11.0.
        def strategy(name, predicted_ms, measured_ms):
            return {"name": name, "predicted_s": predicted_ms * 1e-3, "measured_s": measured_ms * 1e-3}
        scenario = {"name": "p01_x_training_tp_ag_mlp_up", "gemm": {"m": 8, "n": 8, "k": 8},
                    "collective": {"ranks": 2},
                    "predicted_isolated": {"gemm_s": 10e-3, "collective_s": 1e-3},
                    "strategies": [strategy("serial", 11.0, 11.0), strategy("chunked:2:dma", 10.1, 11.5),
                                   strategy("chunked:2:cu:16", 12.0, 12.0)]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"scenarios": [scenario]}, f)
        try:
            rc, text = run(BIAS, f.name, "--deltas", "0,0.1", "--hedge", "0.03")
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 0, text)
        # (10.1 / 11) / (11.5 / 11) - 1 = -0.122; the partition is left out of the bias.
        self.assertIn("collective_feeds_gemm, G-long, collective < 1/5 of serial: 1 schedules, ratio error median -0.122", text)
        # delta 0: chunked:2:dma is predicted 8.2% faster than serial, past the 3% hedge: picked,
        # 4.5% slower than serial and wrong; delta 0.1 adds 1 ms: serial is kept, right.
        self.assertIn("delta 0.000 x t_gemm: 0 of 1 right, 1 picks more than 1% slower than serial", text)
        self.assertIn("delta 0.100 x t_gemm: 1 of 1 right, 0 picks more than 1% slower than serial", text)



NEW_NODE = os.path.join(ROOT, "scripts", "gpu-jobs", "new-node.sh")
TEST_ROUND = os.path.join(ROOT, "scripts", "gpu-jobs", "test-round.sh")

FAKE_C3ADVISOR = """#!/usr/bin/env bash
# Records each call; writes the files a call names (--out, --raw) so that the jobs go on.
echo "$*" >> "$C3_FAKE_LOG"
prev=""
for a in "$@"; do
  if [[ "$prev" == --out || "$prev" == --raw ]]; then echo '{}' > "$a"; fi
  prev=$a
done
"""


class DependentReplay(unittest.TestCase):
    """scripts/dependent_replay.py: the advisor's hedged rule and a correction fitted with each seed left out."""

    def validate_json(self, seed, pick, predicted_ms, measured_ms):
        strategies = [{"name": n, "predicted_s": predicted_ms[n] * 1e-3, "measured_s": measured_ms[n] * 1e-3}
                      for n in predicted_ms]
        return {"backend": {"spec": "replay:data/measurements/dependent-s%d-n1-h200x2-2026-01-02.json" % seed},
                "scenarios": [{"name": "p1", "pick": pick, "notes": ["... this pair is collective_feeds_gemm"],
                               "gemm": {"m": 8, "n": 8, "k": 8, "dtype": "bf16"},
                               "collective": {"kind": "all_gather", "size_bytes": 1024, "ranks": 2},
                               "strategies": strategies}]}

    def write(self, folder, stem, *args):
        """validate_json(*args) written to FOLDER/STEM.json; returns the path."""
        path = os.path.join(folder, stem + ".json")
        with open(path, "w") as f:
            json.dump(self.validate_json(*args), f)
        return path

    # s12: chunked:2:cu predicted 2% faster than serial, measured 10% faster.
    S12 = (12, "serial", {"serial": 1.0, "chunked:2:cu": 0.98, "chunked:2:dma": 1.05},
           {"serial": 1.0, "chunked:2:cu": 0.90, "chunked:2:dma": 1.10})

    def test_the_rule_and_the_left_out_correction(self):
        with tempfile.TemporaryDirectory() as d:
            # s11: chunked:2:cu predicted 5% faster than serial, chunked:2:dma 1.05% behind it:
            # inside the hedge error, but cu's worst case still wins; measured the fastest.
            a = self.write(d, "a", 11, "chunked:2:cu", {"serial": 1.0, "chunked:2:cu": 0.95, "chunked:2:dma": 0.96},
                           {"serial": 1.0, "chunked:2:cu": 0.90, "chunked:2:dma": 0.97})
            # s12: the hedge keeps serial, which is 10% slower.
            b = self.write(d, "b", *self.S12)
            rc, text = run(REPLAY, "--hedge", "0.0327", a, b, "--loso-correction", "--residuals")
        self.assertEqual(rc, 0, text)
        self.assertIn("2 pairs in 2 folds; the rule (hedge 0.0327): 1 right, 0 slower than serial; "
                      "the same pick as validate in 2", text)
        # each seed's cu ratio corrected by the other's residual (-5.4%, -8.5%): cu wins both
        self.assertIn("each seed left out: 2 right, 0 slower than serial", text)
        self.assertIn("('collective_feeds_gemm', 'all_gather', 'cu', 2)", text)

    def test_the_correction_cut_by_the_predicted_serial_time(self):
        with tempfile.TemporaryDirectory() as d:
            # The pairs of the first test, s12 at a tenth of the time: cut at 500 us they fall in
            # two bands, so neither seed's residual corrects the other's pair and s12 keeps serial.
            a = self.write(d, "a", 11, "chunked:2:cu", {"serial": 1.0, "chunked:2:cu": 0.95, "chunked:2:dma": 0.96},
                           {"serial": 1.0, "chunked:2:cu": 0.90, "chunked:2:dma": 0.97})
            b = self.write(d, "b", 12, "serial", {"serial": 0.1, "chunked:2:cu": 0.098, "chunked:2:dma": 0.105},
                           {"serial": 0.1, "chunked:2:cu": 0.090, "chunked:2:dma": 0.110})
            rc, whole = run(REPLAY, "--hedge", "0.0327", a, b, "--loso-correction")
            rc2, cut = run(REPLAY, "--hedge", "0.0327", a, b, "--loso-correction", "--residuals", "--band-us", "500")
            rc3, bad = run(REPLAY, "--hedge", "0.0327", a, b, "--loso-correction", "--band-us", "1000,500")
        self.assertEqual((rc, rc2), (0, 0), whole + cut)
        self.assertIn("median residual, each seed left out: 2 right, 0 slower than serial", whole)
        self.assertIn("(groups cut at 500 us of predicted serial time), each seed left out: 1 right, 0 slower", cut)
        self.assertIn("('collective_feeds_gemm', 'all_gather', 'cu', 2, 0)", cut)
        self.assertIn("('collective_feeds_gemm', 'all_gather', 'cu', 2, 1)", cut)
        self.assertNotEqual(rc3, 0)
        self.assertIn("expected increasing positive edges in us", bad)

    def test_a_partitioned_schedule_takes_its_own_hedge_error(self):
        with tempfile.TemporaryDirectory() as d:
            # chunked:2:cu:16 predicted 4% faster than serial (measured 10% faster): inside a
            # partitioned error of 5%, outside the unpartitioned one of 3%.
            a = self.write(d, "a", 11, "serial", {"serial": 1.0, "chunked:2:cu:16": 0.96},
                           {"serial": 1.0, "chunked:2:cu:16": 0.90})
            rc, one = run(REPLAY, "--hedge", "0.03", a)
            rc2, two = run(REPLAY, "--hedge", "0.03", "--hedge-partitioned", "0.05", a)
        self.assertEqual((rc, rc2), (0, 0), one + two)
        self.assertIn("1 right, 0 slower than serial; the same pick as validate in 0", one)  # takes the schedule
        self.assertIn("0 right, 0 slower than serial; the same pick as validate in 1", two)  # keeps serial

    def test_a_family_takes_its_own_hedge_error(self):
        with tempfile.TemporaryDirectory() as d:
            # s12: the hedge (3.27%) keeps serial; the all-gathers' own error of 1% takes the
            # schedule, another family's does not.
            b = self.write(d, "b", *self.S12)
            rc, own = run(REPLAY, "--hedge", "0.0327", "--family-hedge", "collective_feeds_gemm:all_gather=0.01", b)
            rc2, other = run(REPLAY, "--hedge", "0.0327", "--family-hedge", "collective_feeds_gemm:all_to_all=0.01", b)
            rc3, bad = run(REPLAY, "--hedge", "0.0327", "--family-hedge", "all_gather=0.01", b)
        self.assertEqual((rc, rc2), (0, 0), own + other)
        self.assertIn("1 right, 0 slower than serial; the same pick as validate in 0", own)
        self.assertIn("0 right, 0 slower than serial; the same pick as validate in 1", other)
        self.assertNotEqual(rc3, 0)
        self.assertIn("expected DEPENDENCY:KIND=ERROR", bad)

    def test_the_serial_gap_each_seed_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            # t_g 10 ms, t_c 3 ms alone (t_c/t_g 0.3); serial measured 12.6 ms (-3.08% of t_g + t_c),
            # predicted 13: chunked:2:dma, predicted 3.8% faster, is picked and measured 3.2% slower.
            # Moved by the other seed's gap (-0.0308 x 13 ms), serial is within the hedge: kept.
            paths = []
            for seed, stem in ((21, "a"), (22, "b")):
                doc = self.validate_json(seed, "chunked:2:dma", {"serial": 13.0, "chunked:2:dma": 12.5},
                                         {"serial": 12.6, "chunked:2:dma": 13.0})
                doc["scenarios"][0].update({"taxonomy": {"gemm": "compute_bound"},
                                            "measured_isolated": {"gemm_s": 10e-3, "collective_s": 3e-3},
                                            "predicted_isolated": {"gemm_s": 10e-3, "collective_s": 3e-3}})
                paths.append(os.path.join(d, stem + ".json"))
                with open(paths[-1], "w") as f:
                    json.dump(doc, f)
            rc, text = run(REPLAY, "--hedge", "0.0327", "--serial-gap", *paths)
        self.assertEqual(rc, 0, text)
        self.assertIn("the rule (hedge 0.0327): 0 right, 2 slower than serial", text)
        self.assertIn("serial gap t_c/t_g in [0.2, 0.4):  -3.08% (2 pairs)", text)
        self.assertIn("serial moved by its band's gap, each seed left out: 2 right, 0 slower than serial", text)

    def test_nothing_to_replay(self):
        with tempfile.TemporaryDirectory() as d:
            empty = os.path.join(d, "e.json")
            with open(empty, "w") as f:
                json.dump({"scenarios": []}, f)
            rc, text = run(REPLAY, "--hedge", "0.03", empty)
        self.assertNotEqual(rc, 0)
        self.assertIn("no scenario", text)


class StrategyCorrectionReplay(unittest.TestCase):
    """scripts/strategy_correction_replay.py: group corrections of independent pairs, each file left out."""

    @staticmethod
    def pair(name, predicted_ms, measured_ms):
        return {"name": name, "collective": {"kind": "reduce_scatter"},
                "taxonomy": {"gemm": "compute_bound", "overlap": "c_long"},
                "strategies": [{"name": n, "predicted_s": predicted_ms[n] * 1e-3, "measured_s": measured_ms[n] * 1e-3}
                               for n in predicted_ms]}

    def test_a_group_median_from_the_other_file_flips_the_pick(self):
        # sp predicted 1.6% ahead of rp:32 but measured 14% behind it, in both files; a decode
        # pair (under 100 us predicted) is left as it is.
        big = self.pair("p1", {"serial": 1.0, "sp": 0.60, "rp:32": 0.61}, {"serial": 1.0, "sp": 0.65, "rp:32": 0.57})
        small = self.pair("p2", {"serial": 0.05, "sp": 0.030, "rp:32": 0.0305},
                          {"serial": 0.05, "sp": 0.020, "rp:32": 0.040})
        with tempfile.TemporaryDirectory() as d:
            files = []
            for stem in ("a", "b"):
                files.append(os.path.join(d, stem + ".json"))
                with open(files[-1], "w") as f:
                    json.dump({"scenarios": [big, small]}, f)
            rc, text = run(STRATEGY_REPLAY, *files, "--min-count", "1")
            self.assertEqual(rc, 0, text)
            # uncorrected: sp picked in p1 (wrong), sp in p2 (right); corrected: rp:32 in p1, p2 untouched
            self.assertIn("all: 4 pairs, right 2 uncorrected, 4 corrected", text)
            rc, text = run(STRATEGY_REPLAY, *files)  # groups of 20 or more: none here
            self.assertIn("all: 4 pairs, right 2 uncorrected, 2 corrected", text)
            rc, text = run(STRATEGY_REPLAY, files[0])
            self.assertNotEqual(rc, 0)
            self.assertIn("two files or more", text)


def marks(stream, ends_us):
    return [{"stream": stream, "rank": 0, "index": i, "end_s": e * 1e-6} for i, e in enumerate(ends_us)]


class TimelineCompare(unittest.TestCase):
    """scripts/timeline_compare.py: per-job durations of measured and predicted timelines."""

    def doc(self):
        # A reduce-scatter in 2 steps. Measured: GEMM jobs end at 100, 200 us; steps at 150, 260
        # (step 0 from 100: 50 us; step 1 from 200: 60 us). Predicted: 110, 220; 170, 300 (60, 80).
        tl = marks("gemm", [100, 200]) + marks("collective", [150, 260])
        pt = marks("gemm", [110, 220]) + marks("collective", [170, 300])
        rs = {"name": "rs", "dependency": "gemm_feeds_collective",
              "collective": {"kind": "reduce_scatter", "size_bytes": 1024, "ranks": 2},
              "strategies": [{"name": "serial", "measured_s": 3e-4, "predicted_s": 3e-4},
                             {"name": "chunked:4:cu", "measured_s": 2.6e-4, "predicted_s": 3e-4,
                              "timeline": tl, "predicted_timeline": pt}]}
        independent = {"name": "ind", "collective": {"kind": "all_gather", "size_bytes": 1024, "ranks": 2},
                       "strategies": [{"name": "chunked:4:cu", "measured_s": 1e-4, "predicted_s": 1e-4,
                                       "timeline": tl, "predicted_timeline": pt}]}
        return {"scenarios": [rs, independent]}

    def test_durations_per_role(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "v.json")
            with open(path, "w") as f:
                json.dump(self.doc(), f)
            rc, text = run(TIMELINE, path, "--json")
            self.assertEqual(rc, 0, text)
            summary = json.loads(text)
            self.assertEqual(summary["schedules"], 1)  # the independent pair is not a schedule
            self.assertAlmostEqual(summary["first_step"]["median_us"], 10.0)
            self.assertAlmostEqual(summary["last_step"]["median_us"], 20.0)
            self.assertAlmostEqual(summary["gemm_jobs"]["median_us"], 10.0)
            self.assertEqual(summary["steps"]["count"], 0)
            rc, text = run(TIMELINE, path, "--only", "chunked:8:cu")
            self.assertEqual(rc, 0, text)
            self.assertIn("0 schedules", text)

    def test_not_a_validate_document(self):
        with tempfile.TemporaryDirectory() as d:
            rc, text = run(TIMELINE, write_text(d, "bad.json", "[1, 2"))
        self.assertNotEqual(rc, 0)
        self.assertIn("not a validate --json document", text)


GENERATED = """# generated
schema_version: 1
name: g
generated:
  generator: c3advisor scenarios generate
  seed: %d
defaults: {dtype: bf16, ranks: 2}
gemms:
  p01_a_rs: {m: 64, n: 8, k: 8, ref: "a"}
  p02_b_ag: {m: 32, n: 8, k: 8, ref: "b"}
pairs:
  - {name: p01_a_rs, gemm: p01_a_rs, size: 1KiB, collectives: [reduce_scatter], dependency: gemm_feeds_collective, ref: "x"}
  - {name: p02_b_ag, gemm: p02_b_ag, size: 512B, collectives: [all_gather], dependency: collective_feeds_gemm, ref: "y"}
"""


class TrainGemmFiles(unittest.TestCase):
    """scripts/train_gemm_files.py: the train files of one device a GEMM-times table can take."""

    def write(self, d, name, device="NVIDIA H200 x2", backend="cuda", gated=False, gemm=True, cus_removed=0):
        notes = ["timing: gated runs: every GPU's launches queued behind a blocking kernel"] if gated else []
        records = [{"what": "gemm", "ok": True, "cus_removed": cus_removed, "median_s": 1e-4}] if gemm else \
            [{"what": "collective", "ok": True, "median_s": 1e-4}]
        with open(os.path.join(d, "data", "measurements", name), "w") as f:
            json.dump({"schema_version": 1, "provenance": {"backend": backend, "device": device, "notes": notes},
                       "records": records}, f)
        return "data/measurements/" + name

    def test_only_train_files_of_the_device_and_timing(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "data", "measurements"))
            files = {
                "train": self.write(d, "a-s11-h200x2.json"),
                "train2": self.write(d, "b-s22-h200x2.json"),
                "test": self.write(d, "c-s33-h200x2.json"),
                "other device": self.write(d, "d-h100x2.json", device="NVIDIA H100 80GB HBM3 x2"),
                "torch": self.write(d, "e-torch.json", backend="torch"),
                "gated": self.write(d, "f-gated.json", gated=True),
                "no gemm": self.write(d, "g-coll.json", gemm=False),
                "partition only": self.write(d, "h-part.json", cus_removed=8),
            }
            with open(os.path.join(d, "data", "splits.yaml"), "w") as f:
                f.write("schema_version: 1\nfiles:\n")
                for what, path in files.items():
                    f.write("  - {file: %s, split: %s}\n" % (path, "test" if what == "test" else "train"))
                f.write("  - {file: data/measurements/missing.json, split: train}\n")
            splits = os.path.join(d, "data", "splits.yaml")
            rc, text = run(TRAIN_GEMMS, "--splits", splits, "NVIDIA H200 x2")
            self.assertEqual(rc, 0, text)
            self.assertEqual(text.split(), [files["train"], files["train2"]])
            rc, text = run(TRAIN_GEMMS, "--splits", splits, "--exclude=-s11-", "NVIDIA H200 x2")
            self.assertEqual(text.split(), [files["train2"]])
            rc, text = run(TRAIN_GEMMS, "--splits", splits, "--gated", "NVIDIA H200 x2")
            self.assertEqual(text.split(), [files["gated"]])
            rc, text = run(TRAIN_GEMMS, "--splits", splits, "NVIDIA H200 x8")
            self.assertNotEqual(rc, 0)
            self.assertIn("no train file of NVIDIA H200 x8", text)
            rc, text = run(TRAIN_GEMMS, "--splits", os.path.join(d, "nothere.yaml"), "NVIDIA H200 x2")
            self.assertNotEqual(rc, 0)
            self.assertIn("not a splits manifest", text)


class SubsetScenarios(unittest.TestCase):
    """scripts/subset_scenarios.py: named pairs of generated files in one file, renamed by seed."""

    def test_pairs_of_two_seeds(self):
        with tempfile.TemporaryDirectory() as d:
            a, b, out = (os.path.join(d, n) for n in ("a.yaml", "b.yaml", "out.yaml"))
            for path, seed in ((a, 11), (b, 22)):
                with open(path, "w") as f:
                    f.write(GENERATED % seed)
            rc, text = run(SUBSET, "--out", out, "--name", "both", a + ":p02", b + ":p01_a_rs,p02")
            self.assertEqual(rc, 0, text)
            lines = open(out).read().splitlines()
        self.assertIn("name: both", lines)
        self.assertIn("defaults: {dtype: bf16, ranks: 2}", lines)
        self.assertIn('  s11_p02_b_ag: {m: 32, n: 8, k: 8, ref: "b"}', lines)
        self.assertIn("  - {name: s22_p01_a_rs, gemm: s22_p01_a_rs, size: 1KiB, collectives: [reduce_scatter], "
                      'dependency: gemm_feeds_collective, ref: "x"}', lines)
        self.assertEqual(sum(1 for l in lines if l.startswith("  - {name: ")), 3)

    def test_errors_name_the_file_and_pair(self):
        with tempfile.TemporaryDirectory() as d:
            a, b, out = (os.path.join(d, n) for n in ("a.yaml", "b.yaml", "out.yaml"))
            with open(a, "w") as f:
                f.write(GENERATED % 11)
            with open(b, "w") as f:
                f.write((GENERATED % 22).replace("ranks: 2}", "ranks: 4}"))
            rc, text = run(SUBSET, "--out", out, "--name", "x", a + ":p09")
            self.assertNotEqual(rc, 0)
            self.assertIn(a + ": no pair 'p09'", text)
            rc, text = run(SUBSET, "--out", out, "--name", "x", a + ":p01", b + ":p01")
            self.assertNotEqual(rc, 0)
            self.assertIn("defaults", text)
            self.assertFalse(os.path.exists(out))


class FakeGpuJob(unittest.TestCase):
    """A GPU job script run with a fake nvidia-smi, c3advisor and torchrun on PATH."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.bin = os.path.join(self.dir.name, "bin")
        self.out = os.path.join(self.dir.name, "out")
        os.makedirs(self.bin)
        os.makedirs(self.out)
        self.log = os.path.join(self.dir.name, "calls.log")
        self.tool("c3advisor", FAKE_C3ADVISOR)
        self.tool("torchrun", '#!/usr/bin/env bash\necho "torchrun $*" >> "$C3_FAKE_LOG"\n')
        self.independent = self.file("gen.yaml", "pairs:\n  - {name: p1}\n")
        self.dependent = self.file("dep.yaml", "pairs:\n  - {name: p1, dependency: gemm_feeds_collective}\n")

    def tearDown(self):
        self.dir.cleanup()

    def file(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def tool(self, name, text):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)

    def run_script(self, gpu, script, *args, **extra_env):
        """Runs `bash script args...` on a machine whose GPUs are named `gpu`: (status, output, calls)."""
        self.tool("nvidia-smi", "#!/usr/bin/env bash\necho '%s'\necho '%s'\n" % (gpu, gpu))
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"], OUT=self.out,
                   C3_FAKE_LOG=self.log, TORCHRUN="torchrun", C3_PEER_SECONDS="0", **extra_env)
        p = subprocess.run(["bash", script, *args], capture_output=True, text=True, env=env)
        calls = []
        if os.path.exists(self.log):
            with open(self.log) as f:
                calls = f.read().splitlines()
        return p.returncode, p.stdout + p.stderr, calls


class NewNode(FakeGpuJob):
    """scripts/gpu-jobs/new-node.sh with a fake nvidia-smi and c3advisor on PATH."""

    def run_job(self, gpu, *specs):
        return self.run_script(gpu, NEW_NODE, "4", "300", "2026-01-02", *specs)

    def test_names_the_files_by_the_gpu_it_finds(self):
        rc, out, calls = self.run_job("NVIDIA H200", "gen-{tag}=" + self.independent, "dep-{tag}=" + self.dependent,
                                      "paper-r4-h100x4-old=paper")
        self.assertEqual(rc, 0, out)
        self.assertIn("tag h200x4, datasheet profile h200_sxm", out)
        calibrate = [c for c in calls if c.startswith("calibrate ")]
        self.assertEqual(len(calibrate), 1)
        for arg in ("--backend cuda:4", "--gpus 4", "--base-profile h200_sxm", "--name h200x4",
                    "--raw %s/calibration-h200x4-2026-01-02.json" % self.out):
            self.assertIn(arg, calibrate[0])
        measures = [c for c in calls if c.startswith("measure ")]
        self.assertEqual(len(measures), 2, calls)
        # the independent file through pairs.sh, the dependent one through dependent.sh (--chunks)
        self.assertIn("--out %s/gen-h200x4.json" % self.out, measures[0])
        self.assertNotIn("--chunks", measures[0])
        self.assertIn("--out %s/dep-h200x4.json" % self.out, measures[1])
        self.assertIn("--chunks 2,4,8", measures[1])
        for m in measures:
            self.assertIn("--profile h200_sxm", m)
            self.assertIn("--ranks 4", m)
        self.assertIn("paper-r4-h100x4-old: skipped (this machine is h200x4)", out)
        self.assertTrue(os.path.exists(os.path.join(self.out, "calibration-h200x4-2026-01-02.json")))

    def test_h100_and_a_calibration_already_in_out(self):
        with open(os.path.join(self.out, "calibration-h100x4-2026-01-02.json"), "w") as f:
            f.write("{}")
        rc, out, calls = self.run_job("NVIDIA H100 80GB HBM3", "gen-{tag}=" + self.independent)
        self.assertEqual(rc, 0, out)
        self.assertFalse(any(c.startswith("calibrate ") for c in calls), calls)  # kept, not measured again
        self.assertEqual(len(calls), 1)
        self.assertIn("--profile h100_sxm", calls[0])
        self.assertIn("--out %s/gen-h100x4.json" % self.out, calls[0])

    def test_an_unknown_gpu_is_refused(self):
        rc, out, calls = self.run_job("NVIDIA A100-SXM4-80GB", "gen-{tag}=" + self.independent)
        self.assertEqual(rc, 2)
        self.assertIn("unknown GPU 'NVIDIA A100-SXM4-80GB'", out)
        self.assertEqual(calls, [])


class TestRound(FakeGpuJob):
    """scripts/gpu-jobs/test-round.sh: one spec per GPU model, every set in PROCESSES processes."""

    def run_round(self, gpu, processes, *specs):
        return self.run_script(gpu, TEST_ROUND, "2", "300", "2026-01-02", str(processes), *specs)

    def test_the_spec_of_the_gpu_found_in_two_processes(self):
        gen = self.file("generated-s9-n4.yaml", "pairs:\n  - {name: p1}\n")
        dep = self.file("dependent-s8-n2.yaml", "pairs:\n  - {name: p1, dependency: gemm_feeds_collective}\n")
        other = self.file("generated-s7-n4.yaml", "pairs:\n  - {name: p1}\n")
        rc, out, calls = self.run_round("NVIDIA H200", 2, "h100x2=%s,-" % other, "h200x2=%s,%s" % (gen, dep))
        self.assertEqual(rc, 0, out)
        measures = [c for c in calls if c.startswith("measure ")]
        outs = [c.split("--out ")[1].split()[0] for c in measures]
        self.assertEqual([os.path.basename(o) for o in outs], [
            "dependent-s8-n2-h200x2-2026-01-02.json",          # process 1: dependent, with peers
            "generated-s9-n4-h200x2-2026-01-02.json",          # then the independent set
            "generated-s9-n4-repeat1-h200x2-2026-01-02.json",  # process 2
            "dependent-s8-n2-repeat1-h200x2-2026-01-02.json"])
        self.assertIn("--chunks 2,4,8", measures[0])
        self.assertNotIn("--chunks", measures[1])
        for m in measures:
            self.assertIn("--profile h200_sxm", m)
            self.assertIn("--ranks 2", m)
        self.assertNotIn("generated-s7", out)  # the H100 spec is not this machine's
        peers = [c for c in calls if c.startswith("torchrun ")]
        self.assertEqual(len(peers), 1, calls)  # PyTorch's peers in process 1 only
        self.assertIn("dependent-s8-n2-h200x2-2026-01-02.json", peers[0])
        self.assertIn("peers not run (C3_NO_PEERS=1)", out)
        # the small pairs are looked up in process 1's file
        self.assertTrue(any(c.startswith("validate ") and "generated-s9-n4-h200x2-2026-01-02.json" in c for c in calls), calls)

    def test_a_repeat_keeps_no_time_back_for_peers(self):
        dep = self.file("dependent-s8-n2.yaml", "pairs:\n  - {name: p1, dependency: gemm_feeds_collective}\n")
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"], OUT=self.out, C3_FAKE_LOG=self.log,
                   TORCHRUN="torchrun", C3_NO_PEERS="1")
        env.pop("C3_PEER_SECONDS", None)  # the default, 150 s, would leave a 100 s job nothing to measure
        p = subprocess.run(["bash", os.path.join(ROOT, "scripts", "gpu-jobs", "dependent.sh"), "2", "100",
                            "d=" + dep], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # all of the 100 s go to measure (none kept back for peers); a second may tick between the
        # job's start and the step under load, so 99 s is the same answer
        self.assertRegex(p.stdout, r"measure %s, (99|100)s" % re.escape(dep))
        with open(self.log) as f:
            calls = f.read().splitlines()
        self.assertEqual([c.split()[0] for c in calls], ["measure"])  # no torchrun

    def test_one_process_and_a_missing_dependent_set(self):
        gen = self.file("generated-s9-n4.yaml", "pairs:\n  - {name: p1}\n")
        rc, out, calls = self.run_round("NVIDIA H100 80GB HBM3", 1, "h100x2=%s" % gen)
        self.assertEqual(rc, 0, out)
        measures = [c for c in calls if c.startswith("measure ")]
        self.assertEqual(len(measures), 1, calls)
        self.assertIn("generated-s9-n4-h100x2-2026-01-02.json", measures[0])
        self.assertIn("--profile h100_sxm", measures[0])

    def test_no_spec_for_this_machine_or_a_bad_count(self):
        gen = self.file("generated-s9-n4.yaml", "pairs:\n  - {name: p1}\n")
        rc, out, calls = self.run_round("NVIDIA H200", 1, "h100x2=%s" % gen)
        self.assertEqual(rc, 2)
        self.assertIn("no TAG=... spec for this machine (h200x2", out)
        self.assertEqual(calls, [])
        rc, out, calls = self.run_round("NVIDIA H200", 0, "h200x2=%s" % gen)
        self.assertEqual(rc, 2)
        self.assertIn("PROCESSES must be a positive count", out)
        self.assertEqual(calls, [])


class GatedNode(FakeGpuJob):
    """new-node.sh with C3_BACKEND_OPTIONS and C3_NODE_SUFFIX: a gated calibration and gated pairs."""

    def test_the_options_reach_every_step_and_the_suffix_the_names(self):
        rc, out, calls = self.run_script("NVIDIA H200", NEW_NODE, "2", "300", "2026-01-02", "gen-{tag}=" + self.independent,
                                         C3_BACKEND_OPTIONS=",gate=1", C3_NODE_SUFFIX="-gated")
        self.assertEqual(rc, 0, out)
        calibrate = [c for c in calls if c.startswith("calibrate ")]
        self.assertEqual(len(calibrate), 1, calls)
        for arg in ("--backend cuda:2,gate=1", "--name h200x2-gated",
                    "--raw %s/calibration-h200x2-gated-2026-01-02.json" % self.out):
            self.assertIn(arg, calibrate[0])
        measures = [c for c in calls if c.startswith("measure ")]
        self.assertEqual(len(measures), 1, calls)
        self.assertIn("--backend cuda:2,gate=1", measures[0])
        self.assertIn("--out %s/gen-h200x2.json" % self.out, measures[0])


class GateAb(FakeGpuJob):
    """scripts/gpu-jobs/gate-ab.sh: ungated and gated processes alternating, per set."""

    def test_alternating_processes_of_every_set(self):
        rc, out, calls = self.run_script("NVIDIA H200", GATE_AB, "2", "600", "2026-01-02", "1")
        self.assertEqual(rc, 0, out)
        measures = [c for c in calls if c.startswith("measure ")]
        outs = [os.path.basename(c.split("--out ")[1].split()[0]) for c in measures]
        self.assertEqual(outs, ["gate-small-train-u1-h200x2-2026-01-02.json", "gate-small-train-g1-h200x2-2026-01-02.json",
                                "gate-dependent-train-u1-h200x2-2026-01-02.json",
                                "gate-dependent-train-g1-h200x2-2026-01-02.json",
                                "gate-dependent-train-u2-h200x2-2026-01-02.json",
                                "gate-dependent-train-g2-h200x2-2026-01-02.json",
                                "gate-medium-train-u1-h200x2-2026-01-02.json", "gate-medium-train-g1-h200x2-2026-01-02.json",
                                "gate-medium-train-u2-h200x2-2026-01-02.json", "gate-medium-train-g2-h200x2-2026-01-02.json"])
        for m, name in zip(measures, outs):
            gated = "-g" in name
            self.assertIn("--backend cuda:2,gate=1 " if gated else "--backend cuda:2 ", m + " ")
            self.assertIn("--runs 9 --warmup 6", m)
            self.assertIn("--profile h200_sxm", m)
            self.assertNotIn("--only", m)  # every pair of the set

    def test_sets_of_your_own(self):
        rc, out, calls = self.run_script("NVIDIA H200", GATE_AB, "4", "600", "2026-01-02",
                                         C3_GATE_SETS="r4=data/scenarios/a.yaml:2 dep=data/scenarios/b.yaml:1")
        self.assertEqual(rc, 0, out)
        measures = [c for c in calls if c.startswith("measure ")]
        outs = [os.path.basename(c.split("--out ")[1].split()[0]) for c in measures]
        self.assertEqual(outs, ["r4-u1-h200x4-2026-01-02.json", "r4-g1-h200x4-2026-01-02.json",
                                "r4-u2-h200x4-2026-01-02.json", "r4-g2-h200x4-2026-01-02.json",
                                "dep-u1-h200x4-2026-01-02.json", "dep-g1-h200x4-2026-01-02.json"])
        self.assertIn("--scenarios data/scenarios/a.yaml", measures[0])
        self.assertIn("--scenarios data/scenarios/b.yaml", measures[-1])
        self.assertIn("--backend cuda:4,gate=1 ", measures[1] + " ")
        for bad in ("r4=data/scenarios/a.yaml", "r4=data/scenarios/a.yaml:0", "=a.yaml:1",
                    "r4=data/scenarios/a.yaml:1 dep=data/scenarios/b.yaml"):  # a bad second entry: none measured
            rc, out, calls = self.run_script("NVIDIA H200", GATE_AB, "4", "600", "2026-01-02", C3_GATE_SETS=bad)
            self.assertEqual(rc, 2, out)
            self.assertIn("is not SET=SCENARIOS:ROUNDS", out)
            self.assertEqual(len([c for c in calls if c.startswith("measure ")]), 6)  # the log holds the first run's

    def test_another_gpu_model_than_wanted_measures_nothing(self):
        rc, out, calls = self.run_script("NVIDIA H200", GATE_AB, "2", "600", "2026-01-02", "1", C3_WANT_TAG="h100x2")
        self.assertEqual(rc, 3, out)
        self.assertIn("lent h200x2, wanted h100x2", out)
        self.assertEqual(calls, [])


def raw_pairs(pairs):
    """A raw file with real pair keys: {(m, size): {strategy: median_s}}."""
    records = []
    for (m, size), strategies in pairs.items():
        for name, t in strategies.items():
            records.append({"what": "concurrent", "ok": True, "m": m, "n": 8, "k": 8, "dtype": "bf16",
                            "kind": "all_gather", "size_bytes": size, "ranks": 2, "strategy": name, "median_s": t})
    records.append({"what": "gemm", "ok": True, "m": 1, "n": 1, "k": 1, "median_s": 1.0})  # not a pair
    return {"schema_version": 1, "provenance": {}, "records": records}


class GateCompare(unittest.TestCase):
    """scripts/gate_compare.py: gated / ungated per family, and whether the fastest stays fastest."""

    def test_ratios_and_fastest(self):
        with tempfile.TemporaryDirectory() as d:
            def write(name, doc):
                path = os.path.join(d, name)
                with open(path, "w") as f:
                    json.dump(doc, f)
                return path
            # pair A: base fastest ungated, rp:8 gated (base 0.5x, rp:8 0.4x); pair B: sp fastest in both.
            u1 = write("u1.json", raw_pairs({(16, 1024): {"serial": 40e-6, "base": 20e-6, "rp:8": 30e-6},
                                            (32, 2048): {"serial": 100e-6, "sp": 50e-6, "base": 60e-6}}))
            u2 = write("u2.json", raw_pairs({(16, 1024): {"serial": 44e-6, "base": 22e-6, "rp:8": 30e-6},
                                            (32, 2048): {"serial": 100e-6, "sp": 50e-6, "base": 60e-6}}))
            g1 = write("g1.json", raw_pairs({(16, 1024): {"serial": 21e-6, "base": 10.5e-6, "rp:8": 12e-6 * 0.8},
                                            (32, 2048): {"serial": 90e-6, "sp": 45e-6, "base": 54e-6}}))
            out = os.path.join(d, "out.json")
            rc, text = run(GATE, "--ungated", u1, u2, "--gated", g1, "--json", out)
            self.assertEqual(rc, 0, text)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["pairs"], 2)
            self.assertAlmostEqual(doc["ratio_median"]["rp"], 9.6 / 30)      # one time: rp:8 of pair A
            self.assertAlmostEqual(doc["ratio_median"]["serial"], (21 / 42 + 0.9) / 2)  # ungated = median of 40, 44
            self.assertEqual(doc["fastest"], {"ungated": {"base": 1, "sp": 1}, "gated": {"rp": 1, "sp": 1}})
            self.assertEqual(doc["ungated_fastest_kept"], 1)        # pair A's base is 9% slower gated
            self.assertEqual(doc["gated_fastest_kept_ungated"], 1)  # pair A's rp:8 is 43% slower ungated
            self.assertIn("the ungated fastest within 2% of the gated fastest: 1 of 2 (50.0%)", text)
            # repeatability of the ungated pair of files (one gated file: none): serial 40 -> 44 us moved 10%
            self.assertEqual(set(doc["moved"]), {"ungated"})
            self.assertEqual(doc["moved"]["ungated"]["serial"], {"p90": 0.0, "over_5pct": 1, "times": 2})
            self.assertAlmostEqual(doc["moved"]["ungated"]["base"]["p90"], 0.0)
            self.assertIn("ungated, between its 2 files: serial p90 0.0%, 1 of 2 over 5%", text)
            other = write("other.json", raw_pairs({(64, 4096): {"serial": 1e-3}}))
            rc, text = run(GATE, "--ungated", u1, "--gated", other)
            self.assertEqual(rc, 2)
            self.assertIn("share no pair", text)
            rc, text = run(GATE, "--ungated", os.path.join(d, "missing.json"), "--gated", g1)
            self.assertNotEqual(rc, 0)
            self.assertIn("missing.json", text)


class PooledRounds(unittest.TestCase):
    """scripts/pooled_rounds.py: the advisor beside the repeat oracle (the other process's fastest)."""

    @staticmethod
    def process(pick_big, big_us, pick_small, small_us, error):
        def pair(name, pick, times):
            return {"name": name, "pick": pick,
                    "strategies": [{"name": n, "measured_s": t * 1e-6, "predicted_s": t * 1e-6,
                                    "prediction_error": error} for n, t in times.items()]}
        return {"scenarios": [pair("big", pick_big, big_us), pair("small", pick_small, small_us)]}

    def test_each_process_scored_against_the_other(self):
        a = self.process("sp", {"serial": 300, "sp": 200, "base": 212}, "serial", {"serial": 60, "sp": 50, "base": 40}, 0.1)
        b = self.process("sp", {"serial": 300, "sp": 230, "base": 200}, "serial", {"serial": 60, "sp": 40, "base": 44}, 0.2)
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for stem, doc in (("a", a), ("b", b)):
                paths.append(os.path.join(d, stem + ".json"))
                with open(paths[-1], "w") as f:
                    json.dump(doc, f)
            rc, text = run(POOLED, "--validated", "--json", ",".join(paths))
            self.assertEqual(rc, 0, text)
            result = json.loads(text)
            rc, table = run(POOLED, "--validated", ",".join(paths))
            self.assertEqual(rc, 0, table)
        adv, rep = result["decisions"]["advisor, all"], result["decisions"]["repeat oracle, all"]
        # advisor: big in a right (0), big in b 15%, small 50% in both; the loss rule met once (big in a)
        self.assertEqual(adv["pairs"], 4)
        self.assertAlmostEqual(adv["right"], 0.25)
        self.assertAlmostEqual(adv["mean_loss"], (0 + 0.15 + 0.5 + 0.5) / 4)
        self.assertAlmostEqual(adv["worst_loss"], 0.5)
        self.assertAlmostEqual(adv["loss_rule_met"], 0.25)
        self.assertEqual(adv["slower_than_serial"], 0)
        self.assertAlmostEqual(adv["vs_default"], (1.2 * 1.5) ** 0.25)
        # repeat oracle: a's big takes b's fastest (base, 6%), a's small b's (sp, 25%); b's big a's
        # (sp, 15%), b's small a's (base, 4 us over 40 us: 10%, inside the 5 us rule)
        self.assertAlmostEqual(rep["right"], 0.0)
        self.assertAlmostEqual(rep["mean_loss"], (0.06 + 0.25 + 0.15 + 0.10) / 4)
        self.assertAlmostEqual(rep["worst_loss"], 0.25)
        self.assertAlmostEqual(rep["loss_rule_met"], 0.25)
        self.assertAlmostEqual(rep["oracle_vs_default"], (0.8 * 200 / 230) ** 0.25)
        self.assertEqual(result["decisions"]["advisor, >= 100 us"]["pairs"], 2)
        self.assertEqual(result["decisions"]["repeat oracle, < 100 us"]["pairs"], 2)
        # the model's errors as validate wrote them; the repeat predictor's |other / truth - 1|
        err = result["prediction_error"]
        self.assertAlmostEqual(err["model, all"]["median"], 0.15)
        big = sorted([0, 0.15, 12 / 212, 0, 30 / 230, 0.06])
        self.assertAlmostEqual(err["repeat predictor, >= 100 us"]["median"], (big[2] + big[3]) / 2)
        self.assertIn("| advisor, all | 4 | 25.0% | 28.75% | 50.0% | 25.0% | 0 | 1.158 (0.913) |", table)

    def test_bad_entries_are_named(self):
        rc, text = run(POOLED, "--validated", "only-one.json")
        self.assertNotEqual(rc, 0)
        self.assertIn("expected V1,V2", text)
        rc, text = run(POOLED, "--validated", "missing1.json,missing2.json")
        self.assertNotEqual(rc, 0)
        self.assertIn("missing1.json", text)
        rc, text = run(POOLED, "scenarios.yaml")
        self.assertNotEqual(rc, 0)
        self.assertIn("expected SCENARIOS=RAW1,RAW2", text)


class RoundSpread(unittest.TestCase):
    """scripts/round_spread.py: the spread of log(time / serial) between the rounds of one
    record and between files, on runs whose answers are worked out here."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, runs):
        # runs: {pair index: {strategy: runs_s}}
        records = []
        for i, strategies in runs.items():
            for name_, r in strategies.items():
                records.append({"key": "concurrent %dx8x8:bf16 all_gather size_bytes=1024 ranks=2 strategy=%s" % (i + 8, name_),
                                "what": "concurrent", "ok": True, "strategy": name_, "runs_s": r,
                                "median_s": sorted(r)[len(r) // 2]})
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump({"schema_version": 1, "provenance": {}, "records": records}, f)
        return path

    def test_between_rounds_and_between_files(self):
        import math
        import statistics
        ms = 1e-3
        # file a: serial 1 ms in every round; base 0.8, 0.9, 0.8 ms by round: sd of the logs
        # over the rounds pstdev(ln .8, ln .9, ln .8). pair 1 (50 us) is under --ratio-min-us.
        a = self.write("a.json", {0: {"serial": [ms] * 9, "base": [0.8 * ms] * 3 + [0.9 * ms] * 3 + [0.8 * ms] * 3},
                                  1: {"serial": [50e-6] * 9, "base": [10e-6] * 9}})
        # file b: base 0.9 ms throughout (median 0.9 against a's 0.8): across the two files the
        # sd of (ln .8, ln .9) is half their difference; all of it is the pair's common part.
        b = self.write("b.json", {0: {"serial": [ms] * 9, "base": [0.9 * ms] * 9}})
        out = os.path.join(self.dir.name, "out.json")
        rc, text = run(ROUND_SPREAD, "--rounds", "3", a, b, "--json", out)
        self.assertEqual(rc, 0, text)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["pairs"], 1)
        self.assertAlmostEqual(doc["within"][a]["median"], statistics.pstdev([math.log(.8), math.log(.9), math.log(.8)]))
        self.assertAlmostEqual(doc["within"][b]["median"], 0.0)
        self.assertAlmostEqual(doc["across"]["median"], (math.log(.9) - math.log(.8)) / 2)
        self.assertAlmostEqual(doc["common_abs"]["median"], (math.log(.9) - math.log(.8)) / 2)
        self.assertAlmostEqual(doc["own_abs"]["median"], 0.0)

    def test_runs_that_do_not_divide_and_no_long_pair(self):
        ms = 1e-3
        a = self.write("a.json", {0: {"serial": [ms] * 8, "base": [ms] * 8}})
        rc, text = run(ROUND_SPREAD, "--rounds", "3", a)
        self.assertEqual(rc, 0, text)
        self.assertIn("no record divides into 3 groups", text)
        rc, text = run(ROUND_SPREAD, "--rounds", "3", a, "--ratio-min-us", "5000")
        self.assertNotEqual(rc, 0)
        self.assertIn("no pair", text)



class PooledAccuracy(unittest.TestCase):
    """scripts/pooled_accuracy.py: the pooled right picks with Wilson's and a cluster bootstrap's intervals."""

    @staticmethod
    def scenario(i, model, correct, fastest_s=1e-3, dependency=None, pick_s=None):
        s = {"name": "p%02d_%s_prefill_tp" % (i, model), "correct": correct, "pick": "b",
             "strategies": [{"name": "serial", "measured_s": 2 * fastest_s},
                            {"name": "b", "measured_s": pick_s or fastest_s}]}
        if dependency:
            s["dependency"] = dependency
        return s

    def write(self, folder, stem, scenarios):
        path = os.path.join(folder, stem + ".json")
        with open(path, "w") as f:
            json.dump({"scenarios": scenarios}, f)
        return path

    def test_wilson_and_bands(self):
        with tempfile.TemporaryDirectory() as d:
            # 3 of 4 right; one pair under 100 us (wrong); one dependent pick 2x serial.
            a = self.write(d, "a", [self.scenario(1, "m1", True), self.scenario(2, "m2", True),
                                    self.scenario(3, "m3", False, fastest_s=50e-6),
                                    self.scenario(4, "m4", True, dependency="collective_feeds_gemm", pick_s=4e-3)])
            rc, text = run(POOLED_ACCURACY, a)
            rc2, js = run(POOLED_ACCURACY, "--json", a)
        self.assertEqual((rc, rc2), (0, 0), text + js)
        # Wilson 3 of 4: 30.1% to 95.4%; fewer than 5 clusters: no bootstrap interval.
        self.assertIn("| all | 4 (1, 4) | 3 (75.0%) | 30.1% to 95.4% | - | - | 1 of 1 |", text)
        self.assertIn("| < 100 us | 1 (1, 1) | 0 (0.0%) | 0.0% to 79.3% | - | - | - |", text)
        bands = {b["band"]: b for b in json.loads(js)["bands"]}
        self.assertEqual(bands[">= 100 us"]["right"], 3)
        self.assertIsNone(bands["all"]["bootstrap95_by_file"])

    def test_the_bootstrap_resamples_clusters(self):
        with tempfile.TemporaryDirectory() as d:
            # Five files, models m1..m5: four all right, one all wrong (2 pairs each): Wilson
            # takes 10 independent pairs, the bootstrap by file and by model five clusters.
            paths = [self.write(d, "f%d" % i, [self.scenario(2 * i, "m%d" % i, i != 0),
                                               self.scenario(2 * i + 1, "m%d" % i, i != 0)]) for i in range(5)]
            rc, js = run(POOLED_ACCURACY, "--json", "--reps", "2000", *paths)
            rc2, again = run(POOLED_ACCURACY, "--json", "--reps", "2000", *paths)
        self.assertEqual(rc, 0, js)
        self.assertEqual(js, again)  # a fixed seed
        b = json.loads(js)["bands"][0]
        self.assertEqual((b["pairs"], b["right"], b["files"], b["models"]), (10, 8, 5, 5))
        low, high = b["bootstrap95_by_file"]
        self.assertEqual(high, 1.0)  # a resample without the wrong file
        self.assertLessEqual(low, 0.6)  # one with it twice or more
        self.assertEqual(b["bootstrap95_by_file"], b["bootstrap95_by_model"])  # the same clusters

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as d:
            rc, text = run(POOLED_ACCURACY, write_text(d, "bad.json", "{not json"))
            empty = self.write(d, "empty", [])
            rc2, text2 = run(POOLED_ACCURACY, empty)
        self.assertNotEqual(rc, 0)
        self.assertIn("bad.json: not a validate --json output", text)
        self.assertNotEqual(rc2, 0)
        self.assertIn("no scored scenario", text2)



class NewPairs(unittest.TestCase):
    """scripts/new_pairs.py: which sets are earlier, and the pairs new to them apart from the others."""

    MANIFEST = """files:
  - {file: data/measurements/paper-h200x2-2026-11-22.json, split: train, scenarios: paper}
  - {file: data/measurements/heldout-h200x2.json, split: test, scenarios: "data/scenarios/heldout.yaml, once"}
  - {file: data/measurements/generated-s100-n4-h200x2.json, split: test, scenarios: data/scenarios/generated-s100-n4.yaml, seed: 100}
  - {file: data/measurements/generated-s100-n4-repeat1-h200x2.json, split: test, scenarios: data/scenarios/generated-s100-n4.yaml, seed: 100}
  - {file: data/measurements/dependent-s150-n4-h200x2.json, split: train, scenarios: data/scenarios/dependent-s150-n4.yaml, seed: 150}
  - {file: data/measurements/torch-pairs-s100.json, split: test, scenarios: "the 4 pairs of a file", seed: 100}
  - {file: data/measurements/dependent-s200-n4-h200x2.json, split: test, scenarios: data/scenarios/dependent-s200-n4.yaml, seed: 200}
  - {file: data/measurements/dependent-s300-n4-h200x2.json, split: test, scenarios: data/scenarios/dependent-s300-n4.yaml, seed: 300}
"""

    @classmethod
    def setUpClass(cls):
        cls.m = import_script("scripts", "new_pairs")

    def test_earlier_sets_are_those_with_a_smaller_seed_or_none(self):
        test = self.m.scenario_sets(self.MANIFEST, ("test",))
        self.assertEqual(test, [("data/scenarios/heldout.yaml", None), ("data/scenarios/generated-s100-n4.yaml", 100),
                                ("data/scenarios/dependent-s200-n4.yaml", 200),
                                ("data/scenarios/dependent-s300-n4.yaml", 300)])
        self.assertEqual(self.m.earlier_sets("data/scenarios/dependent-s200-n4.yaml", test),
                         ["data/scenarios/heldout.yaml", "data/scenarios/generated-s100-n4.yaml"])
        both = self.m.scenario_sets(self.MANIFEST, ("test", "train"))
        self.assertEqual(self.m.earlier_sets("data/scenarios/dependent-s200-n4.yaml", both),
                         ["paper", "data/scenarios/heldout.yaml", "data/scenarios/generated-s100-n4.yaml",
                          "data/scenarios/dependent-s150-n4.yaml"])
        self.assertEqual(self.m.earlier_sets("data/scenarios/generated-s100-n4.yaml", test),
                         ["data/scenarios/heldout.yaml"])
        with self.assertRaisesRegex(ValueError, "no seed"):
            self.m.earlier_sets("data/scenarios/heldout.yaml", test)

    def test_counts_new_and_seen_pairs_through_the_cli(self):
        with tempfile.TemporaryDirectory() as d:
            manifest = write_text(d, "splits.yaml", self.MANIFEST)
            calls = os.path.join(d, "calls.txt")
            # A stand-in for c3advisor: overlap names p1 as seen; validate scores four dependent
            # pairs: p1 right, p2 right, p3 wrong and 1.5x serial, p4 not scored (no `correct`).
            validate = {"scenarios": [
                {"name": "p1", "correct": True, "dependency": "collective_feeds_gemm", "pick": "a",
                 "strategies": [{"name": "serial", "measured_s": 1.0}, {"name": "a", "measured_s": 0.9}]},
                {"name": "p2", "correct": True, "dependency": "collective_feeds_gemm", "pick": "serial",
                 "strategies": [{"name": "serial", "measured_s": 1.0}, {"name": "a", "measured_s": 1.01}]},
                {"name": "p3", "correct": False, "dependency": "gemm_feeds_collective", "pick": "a",
                 "strategies": [{"name": "serial", "measured_s": 1.0}, {"name": "a", "measured_s": 1.5}]},
                {"name": "p4", "strategies": []}]}
            fake = write_text(d, "c3", "#!%s\nimport json, sys\nopen(%r, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
                              "print(json.dumps({'seen': ['p1']} if sys.argv[1] == 'scenarios' else %r))\n"
                              % (sys.executable, calls, validate))
            os.chmod(fake, 0o755)
            rc, text = run(NEW_PAIRS, "--c3", fake, "--splits", manifest,
                           "data/scenarios/dependent-s200-n4.yaml=a.json+b.json")
            rc2, js = run(NEW_PAIRS, "--c3", fake, "--splits", manifest, "--json",
                          "data/scenarios/dependent-s200-n4.yaml=a.json+b.json")
            rc3, first = run(NEW_PAIRS, "--c3", fake, "--splits", manifest,
                             "data/scenarios/generated-s100-n4.yaml=c.json")
            with open(calls) as f:
                lines = f.read().splitlines()
        self.assertEqual((rc, rc2, rc3), (0, 0, 0), text + js + first)
        self.assertIn("--exclude data/scenarios/heldout.yaml --exclude data/scenarios/generated-s100-n4.yaml", lines[0])
        self.assertNotIn("s300", lines[0])
        self.assertIn("--backend replay:a.json+b.json", lines[1])
        self.assertIn("new 1 of 2 right (50.0%", text)
        self.assertIn("1 slower than serial", text)
        self.assertIn("in an earlier set 1 of 1 right (100.0%", text)
        doc = json.loads(js)
        self.assertEqual(doc["pooled"]["new"], {"pairs": 2, "right": 1, "slower": 1, "dependent": 2})
        self.assertEqual(doc["sets"][0]["earlier_sets"], 2)

    def test_bad_input(self):
        rc, text = run(NEW_PAIRS, "data/scenarios/generated-s100-n4.yaml")
        self.assertNotEqual(rc, 0)
        self.assertIn("SCENARIOS=REPLAY", text)
        with tempfile.TemporaryDirectory() as d:
            manifest = write_text(d, "splits.yaml", self.MANIFEST)
            rc2, text2 = run(NEW_PAIRS, "--splits", manifest, "data/scenarios/heldout.yaml=x.json")
            rc3, text3 = run(NEW_PAIRS, "--c3", "/bin/false", "--splits", manifest,
                             "data/scenarios/dependent-s200-n4.yaml=x.json")
        self.assertNotEqual(rc2, 0)
        self.assertIn("no seed in its name", text2)
        self.assertNotEqual(rc3, 0)
        self.assertIn("failed (exit 1)", text3)
        with tempfile.TemporaryDirectory() as d:
            manifest = write_text(d, "splits.yaml", self.MANIFEST)
            rc4, text4 = run(NEW_PAIRS, "--c3", os.path.join(d, "no-such-c3"), "--splits", manifest,
                             "data/scenarios/dependent-s200-n4.yaml=x.json")
            rc5, text5 = run(NEW_PAIRS, "--splits", os.path.join(d, "none.yaml"),
                             "data/scenarios/dependent-s200-n4.yaml=x.json")
            rc6, text6 = run(NEW_PAIRS, "--c3", "/bin/echo", "--splits", manifest,
                             "data/scenarios/dependent-s200-n4.yaml=x.json")
        for rc_, text_, want in ((rc4, text4, "cannot run"), (rc5, text5, "none.yaml: No such file"),
                                 (rc6, text6, "printed no JSON document")):
            self.assertNotEqual(rc_, 0, text_)
            self.assertIn(want, text_)
            self.assertNotIn("Traceback", text_)

    def test_seeds_of_names(self):
        self.assertEqual(self.m.seed_of("data/scenarios/generated-s21001-n128.yaml"), 21001)
        self.assertEqual(self.m.seed_of("data/scenarios/unaligned-gemms-s19251.yaml"), 19251)
        self.assertIsNone(self.m.seed_of("data/scenarios/heldout.yaml"))
        self.assertIsNone(self.m.seed_of("data/scenarios/gate-small-train.yaml"))



class RestGemms(unittest.TestCase):
    """scripts/gpu-jobs/torch_rest.py's choice of GEMMs (torch is imported only to measure)."""

    def test_gemms_spread_over_their_times(self):
        torch_rest = import_script("scripts/gpu-jobs", "torch_rest")
        gemm = lambda m, t, **kw: dict({"what": "gemm", "ok": True, "dtype": "bf16", "m": 8 * m, "n": 8, "k": 8,
                                        "cus_removed": 0, "median_s": t}, **kw)  # noqa: E731
        records = [gemm(m, m * 1e-3) for m in (1, 2, 3, 4, 5, 6, 7)]
        records += [gemm(4, 4e-3),  # the same shape again: once
                    gemm(9, 9e-3, cus_removed=16), gemm(10, 10e-3, ok=False), gemm(11, 11e-3, dtype="fp8"),
                    gemm(12, 0.5e-3), dict(gemm(13, 13e-3), n=9),  # n not a multiple of 8
                    {"what": "collective", "ok": True, "median_s": 1.0}]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "raw.json")
            with open(path, "w") as f:
                json.dump({"records": records}, f)
            ms = lambda count: [g[0] // 8 for g in torch_rest.gemms_from(path, 1e-3, count)]  # noqa: E731
            self.assertEqual(ms(3), [1, 4, 7])  # the shortest, the middle, the longest
            self.assertEqual(ms(1), [1])
            self.assertEqual(ms(0), [1, 2, 3, 4, 5, 6, 7])  # all
            self.assertEqual(ms(10), [1, 2, 3, 4, 5, 6, 7])
            # torch_pieces.py's: m a multiple of 64 (m = 8, 16, ..., 56 here: none)
            self.assertEqual([g[0] for g in torch_rest.gemms_from(path, 1e-3, 0, m_multiple=64)], [])
            self.assertEqual([g[0] for g in torch_rest.gemms_from(path, 1e-3, 0, m_multiple=16)], [16, 32, 48])


class PiecesCuts(unittest.TestCase):
    """scripts/gpu-jobs/torch_pieces.py's cuts of a GEMM's rows (torch is imported only to measure)."""

    def test_cuts(self):
        torch_pieces = import_script("scripts/gpu-jobs", "torch_pieces")
        cut = torch_pieces.cut_rows
        self.assertEqual(cut(64, "whole"), [(0, 64)])
        # collective_feeds_gemm at 2 ranks: the local half, then S pieces of the other half.
        self.assertEqual(cut(64, "local+1"), [(0, 32), (32, 32)])
        self.assertEqual(cut(64, "local+4"), [(0, 32), (32, 8), (40, 8), (48, 8), (56, 8)])
        # gemm_feeds_collective: S even pieces.
        self.assertEqual(cut(64, "even:4"), [(0, 16), (16, 16), (32, 16), (48, 16)])
        for bad in ("local+3", "even:0", "halves", "local+x", "local:2", "even+4", "local+64", "even:128"):
            with self.assertRaises(ValueError, msg=bad):
                cut(64, bad)
        with self.assertRaisesRegex(ValueError, "m = 96 is not cut in 2 x 32 pieces"):
            cut(96, "local+32")
        script = os.path.join(ROOT, "scripts", "gpu-jobs", "torch_pieces.py")
        rc, text = run(script, "--gemms-from", "x.json", "--out", "y.json", "--cuts", "whole,local+3")
        self.assertNotEqual(rc, 0)
        self.assertIn("--cuts: local+3: S must be a power of two up to 32", text)
        rc2, text2 = run(script, "--gemms-from", "/nonexistent/x.json", "--out", "y.json")
        self.assertNotEqual(rc2, 0)
        self.assertIn("--gemms-from /nonexistent/x.json: not a measurement file", text2)
        self.assertNotIn("Traceback", text2)


class TorchProvenance(unittest.TestCase):
    """scripts/gpu-jobs/torch_collectives.py's provenance, which the one-GPU jobs (torch_rest.py,
    torch_pieces.py) share: the command starts with the launcher that ran it."""

    def test_launcher_and_versions(self):
        import types
        sys.dont_write_bytecode = True  # no __pycache__ in the source tree
        sys.path[:0] = [os.path.join(ROOT, "scripts", "gpu-jobs"), os.path.join(ROOT, "python")]
        self.addCleanup(lambda: sys.path.__delitem__(slice(0, 2)))  # provenance imports c3advisor._machine
        import torch_collectives
        props = types.SimpleNamespace(name="NVIDIA H200", multi_processor_count=132)
        cuda = types.SimpleNamespace(get_device_properties=lambda i: props, current_device=lambda: 0,
                                     nccl=types.SimpleNamespace(version=lambda: (2, 28, 9)))
        torch = types.SimpleNamespace(cuda=cuda, __version__="2.11.0", version=types.SimpleNamespace(cuda="13.0"))
        one = torch_collectives.provenance(torch, 1, ["a note"], launcher="python3")
        self.assertEqual((one["device"], one["gpus"], one["compute_units"]), ("NVIDIA H200 x1", 1, 132))
        self.assertEqual(one["versions"]["nccl"], "2.28.9")
        self.assertTrue(one["command"].startswith("python3 "), one["command"])
        self.assertEqual(one["notes"], ["a note"])
        self.assertTrue(torch_collectives.provenance(torch, 2, [])["command"].startswith("torchrun "))


class SplitsManifest(unittest.TestCase):
    """scripts/splits_manifest.py: data/splits.yaml's entries, one flow mapping per line."""

    def test_reads_file_split_and_the_scenarios_first_word(self):
        m = import_script("scripts", "splits_manifest")
        text = "\n".join([
            "schema_version: 1",
            "files:",
            '  - {file: data/measurements/a.json, split: test, scenarios: "data/scenarios/a.yaml (scenarios generate --seed 1)", seed: 1}',
            "  - {file: data/measurements/./b.json, split: train, scenarios: paper, note: x}",
            "  - {file: data/measurements/c.json, split: train}",
            "  # - {file: d.json, split: test}",
        ])
        self.assertEqual(m.entries(text), [("data/measurements/a.json", "test", "data/scenarios/a.yaml"),
                                           ("data/measurements/./b.json", "train", "paper"),
                                           ("data/measurements/c.json", "train", "")])
        self.assertEqual(m.files_of(text, "train"), {"data/measurements/b.json", "data/measurements/c.json"})
        self.assertEqual(m.files_of(text, "test"), {"data/measurements/a.json"})


class LosoDmaStep(unittest.TestCase):
    """scripts/loso_dma_step.py: the profile's variants, and the choice leaving one set out."""

    PROFILE = "name: p\nchunk_piece_latency_s: {value: 1e-05}\nchunk_dma_step_min_s: {value: 1}\nlast: 1\n"

    def test_writes_the_two_terms_after_the_piece_latency_or_none(self):
        m = import_script("scripts", "loso_dma_step")
        lines = m.variant_text(self.PROFILE, 3, 50).split("\n")
        self.assertEqual(lines[1], "chunk_piece_latency_s: {value: 1e-05}")
        self.assertTrue(lines[2].startswith("chunk_dma_step_latency_s: {value: 3e-06,"), lines[2])
        self.assertTrue(lines[3].startswith("chunk_dma_step_min_s: {value: 5e-05,"), lines[3])
        self.assertEqual(lines[4], "last: 1")  # the profile's own threshold line is replaced
        self.assertNotIn("chunk_dma_step", m.variant_text(self.PROFILE, None, None))

    def test_chooses_on_the_other_sets_and_scores_the_one_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            # A stand-in validate: with 3 us / 50 us every pair of a set is right; without the
            # terms one of two; any other variant none, and set c's second pair slower than serial.
            fake = write_text(d, "c3", """#!%s
import json, sys
a = sys.argv
profile = open(a[a.index("--profile") + 1]).read()
scen = a[a.index("--scenarios") + 1]
good = "chunk_dma_step_latency_s: {value: 3e-06" in profile and "chunk_dma_step_min_s: {value: 5e-05" in profile
none = "chunk_dma_step" not in profile
out = []
for i in range(2):
    right = good or (none and i == 0)
    slow = (not good and not none and scen.endswith("c.yaml") and i == 1)
    out.append({"name": "p%%d" %% i, "correct": right, "pick": "a",
                "strategies": [{"name": "serial", "measured_s": 1.0}, {"name": "a", "measured_s": 1.5 if slow else 0.9}]})
print(json.dumps({"scenarios": out}))
""" % sys.executable)
            os.chmod(fake, 0o755)
            profile = write_text(d, "p.yaml", self.PROFILE)
            args = []
            for s in "abc":
                args.append("%s=%s" % (write_text(d, s + ".yaml", ""), write_text(d, s + ".json", "{}")))
            rc, text = run(LOSO_DMA_STEP, "--c3", fake, "--profile", profile, "--splits", os.path.join(d, "none"),
                           "--latency-us", "0,3", "--min-us", "50", *args)
            self.assertEqual(rc, 0, text)
            self.assertIn("none               3 / 6       0", text)
            self.assertIn("L3-T50             6 / 6       0", text)
            self.assertIn("L0-T50             0 / 6       1", text)  # the slower pick counts
            self.assertIn("leave one set out: 6 / 6 right, 0 slower than serial (without the terms: 3 / 6, 0)", text)
            self.assertIn("chosen on all sets: L3-T50", text)

    def test_refuses_test_files_one_set_and_bad_grids(self):
        with tempfile.TemporaryDirectory() as d:
            s = write_text(d, "a.yaml", "")
            f = write_text(d, "a.json", "{}")
            splits = write_text(d, "splits.yaml", "files:\n  - {file: %s, split: test, scenarios: x}\n" % f)
            rc, text = run(LOSO_DMA_STEP, "--splits", splits, "%s=%s" % (s, f), "%s=%s" % (s, f))
            self.assertNotEqual(rc, 0)
            self.assertIn("is test in", text)
            rc, text = run(LOSO_DMA_STEP, "--splits", os.path.join(d, "none"), "%s=%s" % (s, f))
            self.assertIn("needs two sets or more", text)
            rc, text = run(LOSO_DMA_STEP, "--latency-us", "3,x", "%s=%s" % (s, f), "%s=%s" % (s, f))
            self.assertIn("--latency-us takes numbers", text)
            rc, text = run(LOSO_DMA_STEP, "%s=%s" % (s, os.path.join(d, "missing.json")), "%s=%s" % (s, f))
            self.assertIn("missing.json: no such file", text)


if __name__ == "__main__":
    unittest.main()
