#!/usr/bin/env python3
"""The entries of data/splits.yaml as the scripts read them (one flow mapping per line, as the
manifest is written), for scripts that must run without PyYAML:

    from splits_manifest import entries, files_of
    entries(text)        -> [(file, split, scenarios)]: scenarios is the scenarios field's first
                            word (a .yaml path, `paper`, ...) or "" where the entry has none
    files_of(text, split) -> the entries' files of that split, normalised paths

io::scenario_sets_of (C++) reads the same field the same way. Standard library only."""
import os
import re

ENTRY = re.compile(r'^\s*-\s*\{file:\s*([^,]+?)\s*,\s*split:\s*(\w+)\s*(?:,\s*scenarios:\s*"?([^",\s}]+))?')


def entries(text):
    out = []
    for line in text.splitlines():
        m = ENTRY.match(line)
        if m:
            out.append((m.group(1), m.group(2), m.group(3) or ""))
    return out


def files_of(text, split):
    return {os.path.normpath(f) for f, s, _ in entries(text) if s == split}
