#!/usr/bin/env python3
"""The advisor's rule for dependent pairs replayed over `c3advisor validate --json` outputs,
to try a change of the decomposed schedules' predictions before writing it into the model
(docs/model.md §7.3, docs/accuracy.md "Sixteenth test round"):

    scripts/dependent_replay.py --hedge E [--hedge-partitioned P] [--family-hedge DEP:KIND=F ...]
        VALIDATE.json [VALIDATE.json ...] [--residuals] [--loso-correction] [--band-us EDGES]
        [--loso-hedge transport|transport-chunks|group] [--serial-gap]

VALIDATE.json: `validate --json` of dependent pairs (e.g. one per train file). A file's seed
(the `-sNNNN-` of its replay file's name, from the JSON's `backend.spec`, else of its own path) is its fold.
E: the profile's `prediction_error.chunked` (the hedge error of a decomposed schedule; serial's
is 0); P: its `prediction_error.chunked_partitioned`, the hedge error of a schedule in an SM
partition (`chunked:C:cu:c`; absent: E, as the advisor does where the profile has none); F: the
profile's `schedule_hedges` entry of a family (e.g. gemm_feeds_collective:all_to_all=0.01), the hedge
error of that family's schedules without a partition in place of E (repeatable). The rule (advisor/advisor.cpp): the simplest strategy within 1% of the fastest
prediction (serial, then `chunked:C:cu`, then `chunked:C:dma`, then `chunked:C:cu:c`; among
equals the faster); when the runner-up is predicted within max(e_pick, e_runner-up) of the
pick, the smallest predicted worst case, time x (1 + e), by the same rule. "Right": measured
within 2% of the fastest measured; "slower": more than 1% slower than serial.

Prints the rule replayed over the files (and how often it agrees with validate's own pick),
then with
  --residuals        the median of log(measured / serial) - log(predicted / serial) per group
                     (dependency, collective kind, transport, chunks);
  --loso-correction  each file's ratios corrected by its groups' median residuals over the
                     other seeds' files, then the rule;
  --band-us EDGES    with --residuals and --loso-correction: the groups cut also by the band of
                     the pair's predicted serial time (EDGES in us, e.g. 300,1000,3000);
  --loso-hedge LEVEL each schedule's hedge error the median |ratio error| of its group over the
                     other seeds' files (LEVEL: per transport; per transport and chunk count;
                     per group as --residuals), then the rule; beside it the single median
                     fitted the same way;
  --serial-gap       for pairs of a compute-bound GEMM of 1 ms or more: the median of measured
                     serial / (t_g + t_c) - 1 (the isolated times) per band of t_c / t_g (edges
                     0.1, 0.2, 0.4), then the rule with each pair's predicted serial time moved
                     by its band's median (over the other seeds' files) times its predicted
                     t_g + t_c, for the pairs whose predicted t_g is 1 ms or more (the band of the
                     predicted t_c / t_g: nothing measured of the pair left out is read).
Standard library only."""
import argparse
import collections
import json
import math
import re
import statistics
import sys

TIE = 0.01
RIGHT = 0.02
SLOWER = 0.01


def complexity(name):
    if name == "serial":
        return 0
    parts = name.split(":")
    return 6 + (parts[2] == "dma") + (2 if len(parts) > 3 else 0)


def recommend(pred):
    fastest = min(pred.values())
    return min((n for n, t in pred.items() if t <= fastest * (1 + TIE)), key=lambda n: (complexity(n), pred[n]))


def recommend_hedged(pred, err):
    pick = recommend(pred)
    others = [n for n in pred if n != pick]
    if not others:
        return pick
    runner = min(others, key=lambda n: pred[n])
    if not pred[runner] / pred[pick] - 1 < max(err(pick), err(runner)):
        return pick
    return recommend({n: t * (1 + err(n)) for n, t in pred.items()})


def dependency(scenario):
    if "dependency" in scenario:  # validate --json names it since 2026-11-26 (eighth session)
        return scenario["dependency"]
    for note in scenario.get("notes", []):
        m = re.search(r"this pair is (\w+)", note)
        if m:
            return m.group(1)
    return "?"


def group(scenario, name, level="group"):
    parts = name.split(":")
    transport = ":".join(parts[2:])
    if level == "transport":
        return (transport,)
    if level == "transport-chunks":
        return (transport, int(parts[1]))
    return (dependency(scenario), scenario["collective"]["kind"], transport, int(parts[1]))


def load(paths):
    """[(fold, scenario, {strategy: predicted}, {strategy: measured})] of every scenario."""
    rows = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        backend = doc.get("backend", {})
        spec = backend.get("spec", "") if isinstance(backend, dict) else str(backend)
        m = re.search(r"-s(\d+)-", spec) or re.search(r"-s(\d+)-", path)
        fold = m.group(1) if m else path
        for s in doc["scenarios"]:
            st = {x["name"]: x for x in s["strategies"] if x.get("measured_s") and x.get("predicted_s")}
            if "serial" not in st or len(st) < 2:
                continue
            rows.append((fold, s, {n: x["predicted_s"] for n, x in st.items()},
                         {n: x["measured_s"] for n, x in st.items()}))
    return rows


def residual(pred, meas, name):
    return math.log(meas[name] / meas["serial"]) - math.log(pred[name] / pred["serial"])


def ratio_error(pred, meas, name):
    return abs((pred[name] / pred["serial"]) / (meas[name] / meas["serial"]) - 1)


def score(rows, pick_of):
    right = slower = 0
    for row in rows:
        _, _, _, meas = row
        pick = pick_of(row)
        right += meas[pick] <= min(meas.values()) * (1 + RIGHT)
        slower += meas[pick] > meas["serial"] * (1 + SLOWER)
    return right, slower


def band(pred, edges_us):
    """The band of the predicted serial time among EDGES (us): 0 below the first edge."""
    return sum(pred["serial"] >= e * 1e-6 for e in edges_us)


def banded_group(scenario, pred, name, edges_us, level="group"):
    """group() and, with edges, the band of the pair's predicted serial time."""
    return group(scenario, name, level) + ((band(pred, edges_us),) if edges_us else ())


def by_group(rows, value, level="group", edges_us=()):
    groups = collections.defaultdict(list)
    for _, s, pred, meas in rows:
        for n in pred:
            if n != "serial":
                groups[banded_group(s, pred, n, edges_us, level)].append(value(pred, meas, n))
    return {g: statistics.median(v) for g, v in groups.items()}


GAP_EDGES = (0.1, 0.2, 0.4)
GAP_MIN_GEMM_S = 1e-3


def gap_band(iso):
    """The band of t_c / t_g of isolated times {gemm_s, collective_s} among GAP_EDGES."""
    return sum(iso["collective_s"] / iso["gemm_s"] >= e for e in GAP_EDGES)


def gapped(scenario, times="measured_isolated"):
    """Whether the serial gap applies: a compute-bound GEMM of GAP_MIN_GEMM_S or more in `times`
    (measured_isolated to fit, predicted_isolated to apply), both isolated times recorded."""
    m, p = scenario.get("measured_isolated"), scenario.get("predicted_isolated")
    return (scenario.get("taxonomy", {}).get("gemm") == "compute_bound" and bool(m) and bool(p)
            and all(x.get("gemm_s", 0) > 0 and x.get("collective_s", 0) > 0 for x in (m, p))
            and scenario[times]["gemm_s"] >= GAP_MIN_GEMM_S)


def serial_gaps(rows):
    """{band: median of measured serial / (t_g + t_c) - 1} over the gapped pairs of rows."""
    bands = collections.defaultdict(list)
    for _, s, _, meas in rows:
        if gapped(s):
            iso = s["measured_isolated"]
            bands[gap_band(iso)].append(meas["serial"] / (iso["gemm_s"] + iso["collective_s"]) - 1)
    return {b: statistics.median(v) for b, v in bands.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("validate", nargs="+")
    ap.add_argument("--hedge", type=float, required=True, help="the profile's prediction_error.chunked")
    ap.add_argument("--hedge-partitioned", type=float,
                    help="the profile's prediction_error.chunked_partitioned (default: --hedge)")
    ap.add_argument("--family-hedge", action="append", default=[], metavar="DEP:KIND=F",
                    help="a family's own hedge error for its schedules without a partition (the profile's schedule_hedges)")
    ap.add_argument("--residuals", action="store_true")
    ap.add_argument("--loso-correction", action="store_true")
    ap.add_argument("--loso-hedge", choices=("transport", "transport-chunks", "group"))
    ap.add_argument("--serial-gap", action="store_true",
                    help="serial's measured gap to t_g + t_c by band of t_c / t_g, and the rule with it, each seed left out")
    ap.add_argument("--band-us", metavar="EDGES", default="",
                    help="cut --residuals' and --loso-correction's groups by the predicted serial time (us edges)")
    a = ap.parse_args()
    try:
        edges = tuple(float(e) for e in a.band_us.split(",") if e.strip())
    except ValueError:
        sys.exit("dependent_replay.py: --band-us %s: expected edges in us, e.g. 300,1000,3000" % a.band_us)
    if any(not (e > 0 and math.isfinite(e)) for e in edges) or list(edges) != sorted(set(edges)):
        sys.exit("dependent_replay.py: --band-us %s: expected increasing positive edges in us" % a.band_us)
    rows = load(a.validate)
    if not rows:
        sys.exit("dependent_replay.py: no scenario with serial and a schedule measured and predicted")
    folds = sorted({r[0] for r in rows})
    partitioned = a.hedge if a.hedge_partitioned is None else a.hedge_partitioned
    families = {}
    for spec in a.family_hedge:
        m = re.fullmatch(r"(\w+):(\w+)=([0-9.eE+-]+)", spec)
        if not m:
            sys.exit("dependent_replay.py: --family-hedge %s: expected DEPENDENCY:KIND=ERROR" % spec)
        families[(m.group(1), m.group(2))] = float(m.group(3))
    family_of = lambda s: (dependency(s), s["collective"]["kind"])
    hedge_of = lambda s: lambda n: (0.0 if n == "serial" else partitioned if n.count(":") == 3
                                    else families.get(family_of(s), a.hedge))
    right, slower = score(rows, lambda r: recommend_hedged(r[2], hedge_of(r[1])))
    agree = sum(recommend_hedged(r[2], hedge_of(r[1])) == r[1]["pick"] for r in rows if "pick" in r[1])
    print("%d pairs in %d folds; the rule (hedge %.4f): %d right, %d slower than serial; "
          "the same pick as validate in %d" % (len(rows), len(folds), a.hedge, right, slower, agree))
    if a.residuals:
        for g, v in sorted(by_group(rows, residual, edges_us=edges).items(), key=str):
            print("  residual %-58s %+6.2f%%" % (str(g), 100 * v))
    if a.loso_correction:
        right = slower = 0
        for fold in folds:
            held = [r for r in rows if r[0] == fold]
            corr = by_group([r for r in rows if r[0] != fold], residual, edges_us=edges)
            corrected = lambda r: recommend_hedged(
                {n: t * (1 if n == "serial" else math.exp(corr.get(banded_group(r[1], r[2], n, edges), 0.0)))
                 for n, t in r[2].items()},
                hedge_of(r[1]))
            r_, s_ = score(held, corrected)
            right, slower = right + r_, slower + s_
        print("ratios corrected by their groups' median residual%s, each seed left out: %d right, %d slower than serial"
              % (" (groups cut at %s us of predicted serial time)" % a.band_us if edges else "", right, slower))
    if a.serial_gap:
        for b, v in sorted(serial_gaps(rows).items()):
            lo = ([0.0] + list(GAP_EDGES))[b]
            hi = (list(GAP_EDGES) + [math.inf])[b]
            n = sum(1 for r in rows if gapped(r[1]) and gap_band(r[1]["measured_isolated"]) == b)
            print("  serial gap t_c/t_g in [%g, %g): %+6.2f%% (%d pairs)" % (lo, hi, 100 * v, n))
        right = slower = 0
        for fold in folds:
            held = [r for r in rows if r[0] == fold]
            gaps = serial_gaps([r for r in rows if r[0] != fold])

            def lowered(r):
                pred = dict(r[2])
                if gapped(r[1], "predicted_isolated"):
                    iso = r[1]["predicted_isolated"]
                    pred["serial"] += gaps.get(gap_band(iso), 0.0) * (iso["gemm_s"] + iso["collective_s"])
                return recommend_hedged(pred, hedge_of(r[1]))
            r_, s_ = score(held, lowered)
            right, slower = right + r_, slower + s_
        print("serial moved by its band's gap, each seed left out: %d right, %d slower than serial" % (right, slower))
    if a.loso_hedge:
        totals = {"per group": [0, 0], "single median": [0, 0]}
        for fold in folds:
            held = [r for r in rows if r[0] == fold]
            rest = [r for r in rows if r[0] != fold]
            errors = by_group(rest, ratio_error, a.loso_hedge)
            median = statistics.median(ratio_error(p, m, n) for _, _, p, m in rest for n in p if n != "serial")
            for label, err_of in (("per group", lambda s: lambda n: 0.0 if n == "serial" else
                                   errors.get(group(s, n, a.loso_hedge), median)),
                                  ("single median", lambda s: lambda n: 0.0 if n == "serial" else median)):
                r_, s_ = score(held, lambda r: recommend_hedged(r[2], err_of(r[1])))
                totals[label][0] += r_
                totals[label][1] += s_
        for label, (r_, s_) in totals.items():
            print("hedge error %s (%s), each seed left out: %d right, %d slower than serial" %
                  (label, a.loso_hedge, r_, s_))


if __name__ == "__main__":
    main()
