#!/usr/bin/env python3
"""Measured against predicted timelines of decomposed schedules, from `c3advisor validate --json`
over a file measured with traced runs (`measure --backend cuda:N,trace=5`, docs/device.md).

    scripts/timeline_compare.py VALIDATE.json [--only chunked:8:cu] [--kind reduce_scatter] [--json]

For each traced schedule without a copy engine (cu: GEMM jobs and collective steps on rank 0's two
streams) it prints every job's duration as the two streams ran it, measured (the traced runs'
median end times) and predicted (the model's pipeline, docs/model.md §7.2): a job starts when its
stream's previous job ended and, for a step of gemm_feeds_collective, when its GEMM job ended; for
a GEMM job of collective_feeds_gemm, when its step ended. The summary gives, over the schedules
shown, the median of (predicted - measured) per role:
  first_step  the first step, from its start (its GEMM job's end, or 0) to its end;
  steps       the other steps that overlap a GEMM job;
  last_step   gemm_feeds_collective's last step (after the last GEMM job: alone);
  gemm_jobs   the GEMM jobs after the first; gemm_gap: the gaps between them, when the GEMM
              stream waited (for its step, or for the host to launch it).
"""
import argparse
import json
import statistics
import sys


def ends(marks, stream, rank=0):
    return [m["end_s"] for m in sorted((m for m in marks if m["stream"] == stream and m["rank"] == rank),
                                       key=lambda m: m["index"])]


def durations(gemm_end, coll_end, dependency):
    """Per job (start, end) on its stream: the start is the later of the stream's previous end and
    the end of the job it waits for."""
    g, c = [], []
    if dependency == "gemm_feeds_collective":
        for i, e in enumerate(gemm_end):
            g.append((gemm_end[i - 1] if i else 0.0, e))
        for i, e in enumerate(coll_end):
            start = max(coll_end[i - 1] if i else 0.0, gemm_end[i] if i < len(gemm_end) else 0.0)
            c.append((start, e))
    else:
        for i, e in enumerate(coll_end):
            c.append((coll_end[i - 1] if i else 0.0, e))
        for i, e in enumerate(gemm_end):
            start = gemm_end[i - 1] if i else 0.0
            if i >= 1 and i - 1 < len(coll_end):
                start = max(start, coll_end[i - 1])
            g.append((start, e))
    return g, c


def roles(g, c, dependency):
    """{role: [durations]} of one schedule (see the module's doc)."""
    out = {"first_step": [], "steps": [], "last_step": [], "gemm_jobs": []}
    for i, (s, e) in enumerate(c):
        if i == 0:
            out["first_step"].append(e - s)
        elif dependency == "gemm_feeds_collective" and i == len(c) - 1:
            out["last_step"].append(e - s)
        else:
            out["steps"].append(e - s)
    for i, (s, e) in enumerate(g):
        if i:
            out["gemm_jobs"].append(e - s)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("validate_json")
    ap.add_argument("--only", help="strategy labels, comma-separated (default: every chunked:C:cu)")
    ap.add_argument("--kind", help="collective kind (default: any)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = ap.parse_args(argv)
    try:
        doc = json.load(open(a.validate_json))
        scenarios = doc["scenarios"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("timeline_compare: %s: not a validate --json document (%s)" % (a.validate_json, e))
    only = set(a.only.split(",")) if a.only else None
    diffs = {"first_step": [], "steps": [], "last_step": [], "gemm_jobs": []}
    shown = 0
    for s in scenarios:
        if a.kind and s["collective"]["kind"] != a.kind:
            continue
        dependency = s.get("dependency", "none")  # written for dependent pairs only
        if dependency == "none":
            continue
        for st in s["strategies"]:
            name = st["name"]
            if only is not None and name not in only:
                continue
            if only is None and not (name.startswith("chunked:") and ":cu" in name and name.count(":") == 2):
                continue
            tl, pt = st.get("timeline"), st.get("predicted_timeline")
            if not tl or not pt:
                continue
            mg, mc = ends(tl, "gemm"), ends(tl, "collective")
            pg, pc = ends(pt, "gemm"), ends(pt, "collective")
            if len(mg) != len(pg) or len(mc) != len(pc):
                print("%s %s: %d/%d GEMM and %d/%d step marks (measured/predicted): skipped" %
                      (s["name"], name, len(mg), len(pg), len(mc), len(pc)), file=sys.stderr)
                continue
            m_roles = roles(*durations(mg, mc, dependency), dependency)
            p_roles = roles(*durations(pg, pc, dependency), dependency)
            shown += 1
            if not a.json:
                print("%s %s: measured %.1f us, predicted %.1f us" %
                      (s["name"], name, st["measured_s"] * 1e6, st["predicted_s"] * 1e6))
            for role in diffs:
                for mv, pv in zip(m_roles[role], p_roles[role]):
                    diffs[role].append(pv - mv)
                    if not a.json:
                        print("  %-10s measured %8.1f  predicted %8.1f us" % (role, mv * 1e6, pv * 1e6))
    summary = {role: {"count": len(v), "median_us": statistics.median(v) * 1e6 if v else None}
               for role, v in diffs.items()}
    summary["schedules"] = shown
    if a.json:
        print(json.dumps(summary, indent=1))
    else:
        print("\n%d schedules; median of predicted - measured per job:" % shown)
        for role in diffs:
            v = summary[role]
            if v["count"]:
                print("  %-10s %+8.1f us over %d jobs" % (role, v["median_us"], v["count"]))


if __name__ == "__main__":
    main()
