#!/usr/bin/env bash
# What of this checkout travels to the GPU machines. The device tool sends the working tree
# (tracked files present on disk, untracked ones not ignored, and what `carry` names) and
# refuses one over 64 MiB; the committed measurements alone are near that. A device call
# needs the scenarios, the scripts and the carried binaries, rarely the raw measurements
# (only to resume a file: pairs.sh, dependent.sh). So, around a device call:
#
#   scripts/device-tree.sh slim [FILE...]   hide data/measurements/*.json and *.log from the
#                                           working tree (git sparse-checkout, nothing is
#                                           deleted from git), but FILE... (to resume them)
#   scripts/device-tree.sh full             bring every file back (git sparse-checkout disable)
#   scripts/device-tree.sh size             MiB of the tracked files present on disk
#
# On 2026-11-26: 63.3 MiB tracked, nearly all of it under data/measurements/; slim, 9.3 MiB
# (a call with `.gpz` carried sent 23 MiB, .git included). Run `full` before committing what
# the call brought back.
set -euo pipefail
cd "$(dirname "$0")/.."
size() {
  local bytes=0 f
  while IFS= read -r -d '' f; do
    [[ -f "$f" ]] && bytes=$((bytes + $(stat -c %s "$f")))
  done < <(git ls-files -z)
  awk -v b="$bytes" 'BEGIN {printf "%.1f MiB of tracked files in the working tree\n", b / 1048576}'
}
case "${1:-}" in
  slim)
    shift
    patterns=('/*' '!/data/measurements/*.json' '!/data/measurements/*.log')
    for f in "$@"; do
      [[ -n "$(git ls-files -- "$f")" ]] || { echo "device-tree: $f is not a tracked file" >&2; exit 2; }
      patterns+=("/$f")
    done
    git sparse-checkout set --no-cone "${patterns[@]}"
    size
    ;;
  full)
    git sparse-checkout disable
    size
    ;;
  size) size ;;
  *) echo "usage: $0 slim [FILE...] | full | size" >&2; exit 2 ;;
esac
