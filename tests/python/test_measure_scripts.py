"""scripts/repeat_spread.py and scripts/score_by_size.py on small hand-made files whose
answers are worked out here (docs/accuracy.md, "Test split")."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SPREAD = os.path.join(ROOT, "scripts", "repeat_spread.py")
BY_SIZE = os.path.join(ROOT, "scripts", "score_by_size.py")


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


if __name__ == "__main__":
    unittest.main()
