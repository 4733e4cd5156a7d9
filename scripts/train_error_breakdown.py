#!/usr/bin/env python3
"""Where an independent pair set's prediction error and wrong picks are, from `validate --json`
reports of one profile, one report per seed (docs/accuracy.md, "Where the train pairs' remaining
error is"). Train reports only: the last check fits on the reports it is given.

    scripts/train_error_breakdown.py REPORT.json [REPORT.json ...]

Prints:
  1. the median and p90 |prediction error| of every strategy, split by whether the pair's fastest
     measured strategy takes 100 us or more, and the measured serial time against the sum of its
     GEMM's and collective's measured times alone (the ground truth's own spread);
  2. per report, the median signed error of the isolated GEMM (compute-bound, 100 us or more) and
     collective (100 us or more) predictions;
  3. a replay of a second layer of strategy corrections keyed also by the overlap class: for each
     report, the median log residual (measured / predicted, each relative to serial) per
     (strategy, kind, GEMM class, overlap class) of predictions of 100 us or more over the OTHER
     reports (groups of MIN or more, default 20), applied on top of the report's predictions; the
     right picks and the mean loss of picking the least prediction, without and with it;
  4. for pairs under 100 us: the right picks, mean and worst loss of the advice and of each fixed
     strategy, and of the advice hedged by the p90 error per strategy kind over those pairs; then
     the advice by the strategy family it picked, beside the strategies measured on those pairs.
"""
import collections
import json
import math
import statistics
import sys

MIN_GROUP = 20


def p90(values):
    v = sorted(values)
    return v[int(0.9 * len(v))]


def fastest(x):
    return min(s["measured_s"] for s in x["strategies"])


def kind_of(name):
    return name.split(":")[0]


def main(paths):
    reports = {p: json.load(open(p))["scenarios"] for p in paths}
    pairs = [x for p in paths for x in reports[p]]

    print("1. |prediction error| by size, and the measured serial against its parts")
    errors = collections.defaultdict(list)
    serial_vs_parts = collections.defaultdict(list)
    for x in pairs:
        band = "under 100 us" if fastest(x) < 100e-6 else "100 us or more"
        for s in x["strategies"]:
            errors[band].append(abs(s["prediction_error"]))
        serial = next(s for s in x["strategies"] if s["name"] == "serial")
        mi = x["measured_isolated"]
        serial_vs_parts[band].append(serial["measured_s"] / (mi["gemm_s"] + mi["collective_s"]) - 1)
    for band in ("100 us or more", "under 100 us"):
        v, w = errors[band], sorted(serial_vs_parts[band])
        print("  %-15s %6d predictions: median %.1f%%, p90 %.1f%%; serial / (gemm + collective) p10 %+.1f%%, p90 %+.1f%%"
              % (band, len(v), 100 * statistics.median(v), 100 * p90(v), 100 * w[len(w) // 10], 100 * w[9 * len(w) // 10]))

    print("2. isolated predictions, median signed error per report (100 us or more)")
    for p in paths:
        g = [x["predicted_isolated"]["gemm_s"] / x["measured_isolated"]["gemm_s"] - 1 for x in reports[p]
             if x["taxonomy"]["gemm"] == "compute_bound" and x["measured_isolated"]["gemm_s"] >= 100e-6]
        c = [x["predicted_isolated"]["collective_s"] / x["measured_isolated"]["collective_s"] - 1 for x in reports[p]
             if x["measured_isolated"]["collective_s"] >= 100e-6]
        print("  %-60s GEMM %+.2f%% (%d), collective %+.2f%% (%d)"
              % (p, 100 * statistics.median(g), len(g), 100 * statistics.median(c), len(c)))

    print("3. overlap-class corrections, fitted on the other reports (groups of %d or more)" % MIN_GROUP)

    def group(s, x):
        return (s["name"], x["collective"]["kind"], x["taxonomy"]["gemm"], x["taxonomy"]["overlap"])

    def fit(others):
        residuals = collections.defaultdict(list)
        for p in others:
            for x in reports[p]:
                serial = next(s for s in x["strategies"] if s["name"] == "serial")
                for s in x["strategies"]:
                    if s["name"] == "serial" or s["predicted_s"] < 100e-6:
                        continue
                    residuals[group(s, x)].append(math.log((s["measured_s"] / serial["measured_s"]) /
                                                           (s["predicted_s"] / serial["predicted_s"])))
        return {k: math.exp(statistics.median(v)) for k, v in residuals.items() if len(v) >= MIN_GROUP}

    right, loss, n = [0, 0], [0.0, 0.0], 0
    for p in paths:
        factors = fit([q for q in paths if q != p])
        for x in reports[p]:
            n += 1
            best = fastest(x)
            for i, use in enumerate((False, True)):
                def predicted(s):
                    f = factors.get(group(s, x), 1.0) if use and s["name"] != "serial" and s["predicted_s"] >= 100e-6 else 1.0
                    return s["predicted_s"] * f
                pick = min(x["strategies"], key=predicted)
                right[i] += pick["measured_s"] <= 1.02 * best
                loss[i] += pick["measured_s"] / best - 1
    for i, label in enumerate(("least prediction", "with overlap-class corrections")):
        print("  %-32s right %d of %d, mean loss %.2f%%" % (label, right[i], n, 100 * loss[i] / n))

    print("4. pairs under 100 us")
    small = [x for x in pairs if fastest(x) < 100e-6]
    rules = collections.defaultdict(lambda: [0, 0.0, 0.0])
    small_errors = collections.defaultdict(list)
    for x in small:
        best = fastest(x)
        for s in x["strategies"]:
            l = s["measured_s"] / best - 1
            r = rules[s["name"]]
            r[0] += l <= 0.02
            r[1] += l
            r[2] = max(r[2], l)
            small_errors[kind_of(s["name"])].append(abs(s["prediction_error"]))
        r = rules["the advice"]
        r[0] += x["correct"]
        r[1] += x["loss_vs_oracle"]
        r[2] = max(r[2], x["loss_vs_oracle"])
    e = {k: p90(v) for k, v in small_errors.items()}
    r = rules["the advice, hedged by kind's p90"]
    for x in small:
        best = fastest(x)
        ranked = sorted(x["strategies"], key=lambda s: s["predicted_s"])
        pick, runner = ranked[0], ranked[1]
        if runner["predicted_s"] / pick["predicted_s"] - 1 < max(e[kind_of(pick["name"])], e[kind_of(runner["name"])]):
            pick = min(x["strategies"], key=lambda s: s["predicted_s"] * (1 + e[kind_of(s["name"])]))
        l = pick["measured_s"] / best - 1
        r[0] += l <= 0.02
        r[1] += l
        r[2] = max(r[2], l)
    for name, (ok, total, worst) in sorted(rules.items(), key=lambda t: t[1][1]):
        print("  %-34s right %3d of %d, mean loss %6.2f%%, worst %6.1f%%" % (name, ok, len(small), 100 * total / len(small), 100 * worst))
    # The advice by the family it picked: where a family's picks are right less often than
    # another strategy measured on the same pairs, that family is where the advice loses.
    print("  the advice by the family it picked (pairs; its picks right; each strategy measured on them right)")
    picked = collections.defaultdict(list)
    for x in small:
        picked[kind_of(x["pick"])].append(x)
    for family, xs in sorted(picked.items(), key=lambda t: -len(t[1])):
        others = collections.Counter()
        for x in xs:
            best = fastest(x)
            for st in x["strategies"]:
                others[st["name"]] += st["measured_s"] <= best * 1.02
        top = ", ".join("%s %d" % (n, c) for n, c in others.most_common(4))
        print("    %-8s %3d pairs, right %3d; %s" % (family, len(xs), sum(x["correct"] for x in xs), top))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
