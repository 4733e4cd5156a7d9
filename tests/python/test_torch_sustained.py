"""scripts/gpu-jobs/torch_sustained.py's plain parts (no torch needed): the GEMMs it takes
from a measurement file, the launches per soak and window, and the file it writes, read
back by `c3advisor calibrate --sustained` (io/sustained_file.cpp)."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("C3ADVISOR_CLI", os.path.join(ROOT, "build", "c3advisor"))
SCRIPT = os.path.join(ROOT, "scripts", "gpu-jobs", "torch_sustained.py")


def load_script():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    spec = importlib.util.spec_from_file_location("torch_sustained", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gemm_record(m, n, k, median_s, ok=True, dtype="bf16", cus_removed=0):
    return {"what": "gemm", "m": m, "n": n, "k": k, "dtype": dtype, "cus_removed": cus_removed, "ok": ok,
            "median_s": median_s}


class TorchSustained(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ts = load_script()

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_gemms_from_keeps_long_ok_bf16_full_gpu_shapes_once_smallest_first(self):
        records = [gemm_record(8192, 8192, 8192, 1.5e-3), gemm_record(4096, 4096, 4096, 2e-4),
                   gemm_record(8192, 8192, 8192, 1.6e-3),                   # the same shape again
                   gemm_record(64, 64, 64, 5e-6),                            # too short
                   gemm_record(2048, 2048, 2048, 3e-4, ok=False),            # failed
                   gemm_record(2048, 2048, 4096, 3e-4, dtype="fp16"),        # not bf16
                   gemm_record(2048, 4096, 4096, 3e-4, cus_removed=16),      # a partition
                   {"what": "collective", "ok": True, "median_s": 1.0}]
        path = self.path("m.json")
        with open(path, "w") as f:
            json.dump({"records": records}, f)
        self.assertEqual(self.ts.gemms_from(path, 100e-6, 0), [(4096, 4096, 4096), (8192, 8192, 8192)])
        self.assertEqual(self.ts.gemms_from(path, 100e-6, 1), [(4096, 4096, 4096)])

    def test_launches_cover_the_time_within_bounds(self):
        self.assertEqual(self.ts.launches(1.0, 1e-3, 1), 1000)
        self.assertEqual(self.ts.launches(0.1, 0.2, 3), 3)        # a GEMM longer than the window
        self.assertEqual(self.ts.launches(1.0, 1e-6, 1), self.ts.MAX_LAUNCHES)
        self.assertEqual(self.ts.launches(1.0, 0.0, 1), self.ts.MAX_LAUNCHES)

    def test_calibrate_reads_what_it_writes(self):
        """Records of three octaves at 1.0, 1.1 and 1.2 give the profile those points; the
        provenance block is the one torch_collectives.provenance writes (sim's device here)."""
        records = []
        for i, (burst, ratio) in enumerate([(150e-6, 0.9), (600e-6, 1.1), (2.5e-3, 1.2)]):
            for j in range(3):
                records.append(self.ts.record(1024 + i, 1024, 1024 + j, True, "", [burst] * 3,
                                              [burst * ratio] * 3, 100, 10, True))
        records.append(self.ts.record(8, 8, 8, False, "out of memory", [], [], 0, 0, False))
        provenance = {"backend": "torch", "device": "simulated mi300x", "gpus": 8, "compute_units": 304,
                      "versions": {}, "notes": [], "git_sha": "test", "date": "2026-11-26T00:00:00Z",
                      "command": "test", "c3advisor_version": "0.1.0"}
        sustained = self.path("sustained.json")
        with open(sustained, "w") as f:
            json.dump(self.ts.document(provenance, records), f)
        out = self.path("p.yaml")
        done = subprocess.run([CLI, "calibrate", "--backend", "sim", "--gpus", "8", "--base-profile", "mi300x",
                               "--quick", "--out", out, "--sustained", sustained],
                              capture_output=True, text=True, cwd=self.dir.name)  # no data/splits.yaml there
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out) as f:
            text = f.read()
        line = next(l for l in text.splitlines() if l.startswith("sustained_gemm_slowdown:"))
        points = json.loads(line[line.index("points: ") + 8:-1])
        expected = [[150e-6, 1.0], [600e-6, 1.1], [2.5e-3, 1.2]]
        self.assertEqual(len(points), 3)
        for got, want in zip(points, expected):
            self.assertAlmostEqual(got[0], want[0], delta=1e-12)
            self.assertAlmostEqual(got[1], want[1], delta=1e-9)
        self.assertIn('sustained: "%s"' % sustained, text)


if __name__ == "__main__":
    unittest.main()
