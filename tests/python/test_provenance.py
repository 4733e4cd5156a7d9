"""The command a measured file records in its provenance reruns the same command: paths with
spaces and quotes come back as one word each through a POSIX shell's rules (shlex)."""
import json
import os
import shlex
import subprocess
import tempfile
import unittest

CLI = os.environ.get("C3ADVISOR_CLI", "c3advisor")


class RecordedCommand(unittest.TestCase):
    def run_cli(self, *args):
        p = subprocess.run([CLI, *args], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def recorded(self, path):
        with open(path) as f:
            return shlex.split(json.load(f)["provenance"]["command"])

    def test_measure_and_live_validate_quote_their_paths(self):
        with tempfile.TemporaryDirectory() as d:
            folder = os.path.join(d, "a folder with spaces")
            os.mkdir(folder)
            out = os.path.join(folder, "it's raw.json")
            self.run_cli("measure", "--backend", "sim", "--only", "cb1_896M", "--runs", "1", "--warmup", "0",
                         "--rp", "32", "--dma-rp", "8", "--out", out)
            words = self.recorded(out)
            self.assertEqual(words[:2], ["c3advisor", "measure"])
            self.assertEqual(words[words.index("--out") + 1], out)
            self.assertEqual(words[words.index("--only") + 1], "cb1_896M")  # plain words stay plain

            live = os.path.join(folder, "live $HOME.json")
            self.run_cli("validate", "--backend", "sim", "--only", "cb1_896M", "--runs", "1", "--warmup", "0",
                         "--rp", "32", "--dma-rp", "8", "--out", live)
            words = self.recorded(live)
            self.assertEqual(words[words.index("--out") + 1], live)


if __name__ == "__main__":
    unittest.main()
