"""The measured files, the train/test manifest and the measurements' README agree.

data/splits.yaml names every raw file of data/measurements/ once, with its split; the files it
names exist; data/measurements/README.md names every raw file in its table (literally, with a
`{a,b}` alternative, or as `...-rest` after a file of the same set in the same row), and a row
whose role reads plainly **test** or **train** holds only files of that split (a relabelled
set reads "**test, train since ...**"). Standard library only: the manifest's entries are
one-line flow maps, read here by their `file:` and `split:` keys.
"""

import os
import re
import unittest

SOURCE = os.environ.get("C3_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MEASUREMENTS = os.path.join(SOURCE, "data", "measurements")

ENTRY = re.compile(r'^\s*-\s*\{file:\s*"?(data/measurements/[^,"\s}]+)"?\s*,\s*split:\s*(\w+)')


def manifest_entries(text):
    """[(file name, split, line number)] of a manifest's entries."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        m = ENTRY.match(line)
        if m:
            out.append((os.path.basename(m.group(1)), m.group(2), number))
    return out


def expand(token):
    """`a{b,c}d` -> [abd, acd], nested alternatives included."""
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    return [x for alt in m.group(1).split(",") for x in expand(token[: m.start()] + alt + token[m.end():])]


def family(name):
    """The first two words of a file name (`dependent-s22501`, `placement-s13401`)."""
    return "-".join(name.split("-")[:2])


def readme_rows(text):
    """[(line number, role text, names, patterns)] of the README's table rows: the file names the
    row names, and its abbreviations as regular expressions, each with the families of the row's
    literal names it is restricted to (None: any)."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("| `"):
            continue
        cells = line.split("|")
        # the files of the row: its first cell's, and those its other cells name (a second run)
        tokens = [x for t in re.findall(r"`([^`]+)`", line) for x in expand(t)]
        names = {t for t in tokens if "..." not in t and t.endswith(".json") and t[0] not in ".-"}
        families = {family(n) for n in names}
        patterns = []
        for t in tokens:
            if "..." in t:
                # `dependent-s22601-...` names its own set; `...-repeat1-...json` one of the row's
                rx = re.compile("^" + re.escape(t).replace(re.escape("..."), ".*") + "$")
                patterns.append((rx, families if t.startswith("...") else None))
            elif re.fullmatch(r"-run\d+", t):  # `-run29`: the row's file of another run
                for n in names:
                    patterns.append((re.compile("^" + re.escape(re.sub(r"-run\d+(?=\.json$)", t, n)) + "$"), None))
            elif t.startswith(".") and t.endswith(".json"):  # (+ `.v.json`): the same name, another suffix
                for n in names:
                    patterns.append((re.compile("^" + re.escape(n[: -len(".json")] + t) + "$"), None))
        rows.append((number, cells[2].strip() if len(cells) > 2 else "", names, patterns))
    return rows


def row_files(row, on_disk):
    _, _, names, patterns = row
    out = set(names)
    for rx, families in patterns:
        out |= {n for n in on_disk if rx.match(n) and (families is None or family(n) in families)}
    return out


def plain_role(role):
    """'test' or 'train' where the role reads plainly so, else None."""
    if re.match(r"\*\*test\*\*(?!,? *train)", role):
        return "test"
    if role.startswith("**train**") and "test before" not in role:
        return "train"
    return None


class DataManifest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(SOURCE, "data", "splits.yaml")) as f:
            cls.entries = manifest_entries(f.read())
        with open(os.path.join(MEASUREMENTS, "README.md")) as f:
            cls.rows = readme_rows(f.read())
        cls.on_disk = {n for n in os.listdir(MEASUREMENTS) if n.endswith(".json")}

    def test_the_manifest_names_every_raw_file_once(self):
        seen = {}
        for name, _, line in self.entries:
            self.assertNotIn(name, seen, f"data/splits.yaml:{line}: {name} again (first at line {seen.get(name)})")
            seen[name] = line
        missing = sorted(self.on_disk - set(seen))
        self.assertEqual(missing, [], "in data/measurements/ but not in data/splits.yaml")

    def test_every_file_the_manifest_names_exists(self):
        absent = [f"data/splits.yaml:{line}: {name}" for name, _, line in self.entries if name not in self.on_disk]
        self.assertEqual(absent, [])

    def test_every_split_is_train_or_test(self):
        odd = [f"data/splits.yaml:{line}: {name}: {split}" for name, split, line in self.entries
               if split not in ("train", "test")]
        self.assertEqual(odd, [])

    def test_the_readme_names_every_raw_file(self):
        named = set()
        for row in self.rows:
            named |= row_files(row, self.on_disk)
        self.assertEqual(sorted(self.on_disk - named), [], "not named in data/measurements/README.md")

    def test_a_plain_role_agrees_with_the_manifest(self):
        split = {name: s for name, s, _ in self.entries}
        wrong = []
        for row in self.rows:
            role = plain_role(row[1])
            if role is None:
                continue
            for name in sorted(row_files(row, self.on_disk)):
                if name in split and split[name] != role:
                    wrong.append(f"data/measurements/README.md:{row[0]}: {name} reads {role}, "
                                 f"data/splits.yaml says {split[name]}")
        self.assertEqual(wrong, [])


class ManifestReaders(unittest.TestCase):
    """The readers above on hand-made text, so that a reader that finds nothing fails."""

    def test_entries_and_rows_are_read(self):
        entries = manifest_entries('files:\n  - {file: data/measurements/a-s1-n2-x.json, split: test, note: "x"}\n'
                                   '  - {file: "data/measurements/b.json", split: train}\n')
        self.assertEqual(entries, [("a-s1-n2-x.json", "test", 2), ("b.json", "train", 3)])
        rows = readme_rows("| file | role |\n|---|---|\n"
                           "| `a-s1-n2-x.json`, `...-repeat{1,2}-x.json` | **test** (issue 11) | cmd |\n")
        self.assertEqual(len(rows), 1)
        on_disk = {"a-s1-n2-x.json", "a-s1-n2-repeat1-x.json", "a-s1-n2-repeat2-x.json", "a-s9-n2-repeat1-x.json"}
        self.assertEqual(row_files(rows[0], on_disk), on_disk - {"a-s9-n2-repeat1-x.json"})
        self.assertEqual(plain_role(rows[0][1]), "test")
        self.assertIsNone(plain_role("**test, train since 2026-11-27** (x)"))
        self.assertIsNone(plain_role("**train** since 2026-11-28, test before (x)"))
        self.assertIsNone(plain_role("**test**, train since 2026-11-28 (x)"))
        rows = readme_rows("| `c-s3-n1-r.json` (+ `.log`, `.v.json`; `-run2`: x), `c-s4-...` | y | z |\n")
        on_disk = {"c-s3-n1-r.json", "c-s3-n1-r.v.json", "c-s4-n1-r.json", "c-s5-n1-r.json"}
        self.assertEqual(row_files(rows[0], on_disk), on_disk - {"c-s5-n1-r.json"})
        rows = readme_rows("| `d-s1-n1-run1.json` (`-run2`: the first) | y | z |\n")
        self.assertEqual(row_files(rows[0], {"d-s1-n1-run1.json", "d-s1-n1-run2.json", "d-s1-n1-run3.json"}),
                         {"d-s1-n1-run1.json", "d-s1-n1-run2.json"})


if __name__ == "__main__":
    unittest.main()
