#!/usr/bin/env python3
"""Named pairs of generated scenarios files (`c3advisor scenarios generate`), copied into one
scenarios file, each name prefixed with its file's seed (`s4401_p31_...`), so that pairs of
several seeds can be measured in one `c3advisor measure` run (e.g. traced runs of train pairs).

    scripts/subset_scenarios.py --out OUT.yaml --name NAME FILE.yaml:p31,p12 [FILE.yaml:p02 ...]

A pair is named by its full name or by its prefix up to the first `_` (`p31`). The generated
files' one-line entries (`  NAME: {...}` under gemms, `  - {name: NAME, ...}` under pairs) are
copied as they are, renamed; every file must share the same `defaults` line. No PyYAML needed.
Exit 2 with the file and the name at fault for a pair or file that is not there.
"""
import argparse
import re
import sys

GEMM = re.compile(r"^  ([A-Za-z0-9_.\-]+): (\{.*\})\s*$")
PAIR = re.compile(r"^  - \{name: ([A-Za-z0-9_.\-]+), gemm: ([A-Za-z0-9_.\-]+), (.*)\}\s*$")
SEED = re.compile(r"^  seed: (\d+)\s*$")


def read(path):
    """(seed, defaults line, {gemm: body}, [(name, gemm, rest)]) of one generated file."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise SystemExit("subset_scenarios: %s: %s" % (path, e.strerror))
    seed, defaults, section = None, None, None
    gemms, pairs = {}, []
    for n, line in enumerate(lines, 1):
        if line.startswith("defaults:"):
            defaults = line
        elif line in ("gemms:", "pairs:"):
            section = line[:-1]
        elif not line.startswith(" "):
            section = None
        elif section is None and SEED.match(line) and seed is None:
            seed = SEED.match(line).group(1)
        elif section == "gemms":
            m = GEMM.match(line)
            if not m:
                raise SystemExit("subset_scenarios: %s:%d: not a one-line gemm entry" % (path, n))
            gemms[m.group(1)] = m.group(2)
        elif section == "pairs":
            m = PAIR.match(line)
            if not m:
                raise SystemExit("subset_scenarios: %s:%d: not a one-line pair entry" % (path, n))
            pairs.append(m.groups())
    if seed is None or not pairs:
        raise SystemExit("subset_scenarios: %s: not a generated scenarios file (no generated seed or no pairs)" % path)
    return seed, defaults, gemms, pairs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", required=True, help="the new file's name field")
    ap.add_argument("picks", nargs="+", metavar="FILE:PAIR[,PAIR...]")
    a = ap.parse_args(argv)
    defaults, gemm_lines, pair_lines, sources = None, [], [], []
    for pick in a.picks:
        path, sep, names = pick.rpartition(":")
        if not sep or not path or not names:
            ap.error("%r: want FILE.yaml:PAIR[,PAIR...]" % pick)
        seed, file_defaults, gemms, pairs = read(path)
        if defaults is None:
            defaults = file_defaults
        elif file_defaults != defaults:
            raise SystemExit("subset_scenarios: %s: defaults %r differ from the first file's %r" % (path, file_defaults, defaults))
        sources.append("%s (seed %s): %s" % (path, seed, names))
        for want in names.split(","):
            found = [p for p in pairs if p[0] == want or p[0].split("_", 1)[0] == want]
            if len(found) != 1:
                raise SystemExit("subset_scenarios: %s: %s pair %r" % (path, "no" if not found else "more than one", want))
            name, gemm, rest = found[0]
            if gemm not in gemms:
                raise SystemExit("subset_scenarios: %s: pair %r names gemm %r, which the file lacks" % (path, name, gemm))
            new = "s%s_%s" % (seed, name)
            gemm_lines.append("  s%s_%s: %s" % (seed, gemm, gemms[gemm]))
            pair_lines.append("  - {name: %s, gemm: s%s_%s, %s}" % (new, seed, gemm, rest))
    out = ["# Made by scripts/subset_scenarios.py from generated scenarios files (each name prefixed",
           "# with its file's seed); the entries are the generated ones:"]
    out += ["#   " + s for s in sources]
    out += ["schema_version: 1", "name: %s" % a.name,
            'description: "%d pairs copied from %d generated files"' % (len(pair_lines), len(a.picks))]
    if defaults:
        out.append(defaults)
    out += ["gemms:"] + gemm_lines + ["pairs:"] + pair_lines
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print("subset_scenarios: %d pairs -> %s" % (len(pair_lines), a.out))


if __name__ == "__main__":
    main()
