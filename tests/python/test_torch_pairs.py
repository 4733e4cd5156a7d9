"""scripts/gpu-jobs/torch_pairs.py's plain parts (no torch needed): the pairs it takes from
a measurement file, and the records it writes, read back by the command line (the keys
must be the C++ reader's, io/raw_measurements.cpp) and by scripts/torch_pairs_error.py."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("C3ADVISOR_CLI", os.path.join(ROOT, "build", "c3advisor"))
SCRIPT = os.path.join(ROOT, "scripts", "gpu-jobs", "torch_pairs.py")
ERRORS = os.path.join(ROOT, "scripts", "torch_pairs_error.py")


def load_script():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    spec = importlib.util.spec_from_file_location("torch_pairs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEMM = {"m": 8192, "n": 8192, "k": 8192, "dtype": "bf16"}
COLL = {"kind": "all_gather", "size_bytes": 939524096, "ranks": 2}
SCENARIOS = """schema_version: 1
name: torch-pairs-test
description: "one pair for test_torch_pairs.py"
provenance: {source: published, ref: "tests/python/test_torch_pairs.py"}
defaults: {dtype: bf16, ranks: 2}
gemms:
  cb1: {m: 8192, n: 8192, k: 8192}
pairs:
  - {name: p1, gemm: cb1, size: 896MiB, collectives: [all_gather]}
"""


class TorchPairs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tp = load_script()

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def record(self, what, times, host=None, **fields):
        rec = self.tp.base_record(what, True, times, 3, True, "", **fields)
        rec["key"] = self.tp.key_of(rec)
        if host is not None:
            rec["host_launch_s"] = host
        return rec

    def test_pairs_come_from_the_dma_records_of_the_kinds_asked(self):
        source = {"records": [
            dict(GEMM, **COLL, what="concurrent", strategy="dma", ok=True),
            dict(GEMM, **COLL, what="concurrent", strategy="sp", ok=True),       # not dma
            dict(GEMM, **dict(COLL, kind="reduce_scatter"), what="concurrent", strategy="dma", ok=True),
            dict(GEMM, **dict(COLL, size_bytes=1 << 20), what="concurrent", strategy="dma", ok=False),  # failed
            dict(GEMM, **COLL, what="concurrent", strategy="dma", ok=True),      # the same pair again
        ]}
        with open(self.path("src.json"), "w") as f:
            json.dump(source, f)
        pairs = self.tp.pairs_from(self.path("src.json"), ("all_gather", "all_to_all"), 0)
        self.assertEqual(pairs, [(8192, 8192, 8192, "all_gather", 939524096, 2)])

    def test_elements_per_rank_follow_nccl_tests_sizes(self):
        per_rank = self.tp.elements_per_rank
        self.assertEqual(per_rank("all_gather", 1 << 20, 2), 1 << 18)   # the gathered buffer
        self.assertEqual(per_rank("all_to_all", 1 << 20, 2), 1 << 19)   # the send buffer
        self.assertEqual(per_rank("all_to_all", 14, 4), 4)               # 7 elements, 4 equal chunks

    def test_its_records_are_read_by_validate_and_the_error_script(self):
        records = [
            self.record("gemm", [1.2e-3, 1.3e-3, 1.25e-3], cus_removed=0, **GEMM),
            self.record("collective", [2.7e-3], host=9.6e-5, transport="dma", cus=0, **COLL),
            self.record("collective", [3.2e-3], transport="cu", cus=0, **COLL),
            self.record("concurrent", [4.5e-3], strategy="serial", **GEMM, **COLL),
            self.record("concurrent", [3.6e-3], strategy="sp", **GEMM, **COLL),
            self.record("concurrent", [2.9e-3], host=1.2e-4, strategy="dma", **GEMM, **COLL),
        ]
        self.assertEqual(records[0]["median_s"], 1.25e-3)
        self.assertEqual(records[3]["key"],
                         "concurrent 8192x8192x8192:bf16 all_gather size_bytes=939524096 ranks=2 strategy=serial")
        with open(self.path("pairs.json"), "w") as f:
            json.dump({"schema_version": 1, "provenance": {
                "backend": "torch", "device": "NVIDIA H200 x2", "gpus": 2, "compute_units": 132,
                "versions": {}, "notes": [], "git_sha": "test", "date": "2026-11-26T00:00:00Z",
                "command": "test", "c3advisor_version": "0.1.0"}, "records": records}, f)
        with open(self.path("scenarios.yaml"), "w") as f:
            f.write(SCENARIOS)
        p = subprocess.run([CLI, "validate", "--backend", "replay:" + self.path("pairs.json"), "--profile",
                            "h200x2-torch", "--scenarios", self.path("scenarios.yaml"), "--skip-missing", "--json"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        scenario = json.loads(p.stdout)["scenarios"][0]
        measured = {s["name"]: s.get("measured_s") for s in scenario["strategies"] if s.get("measured_s")}
        self.assertEqual(measured, {"serial": 4.5e-3, "sp": 3.6e-3, "dma": 2.9e-3})
        p = subprocess.run([sys.executable, ERRORS, self.path("pairs.json"), "h200x2-torch", "--c3advisor", CLI],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("1 pairs of", p.stdout)
        self.assertIn("dma     |pred/meas - 1|", p.stdout)


if __name__ == "__main__":
    unittest.main()
