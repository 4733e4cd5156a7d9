#!/usr/bin/env python3
"""How well profiles predict the pairs of a torch_pairs.py file (docs/calibration.md,
"Its own pairs"): for each pair with a `dma` record, `c3advisor advise --profile P --json`
gives every strategy's predicted time; this prints, per profile and strategy (dma, and sp
and serial where the file has them), the median and 90th percentile of
|predicted / measured - 1| over the pairs, and of the predicted ratio to serial against
the measured one. Unlike `validate --backend replay:FILE`, it reads files in which pairs
share GEMM or collective records (torch_pairs.py before edfd1f4 timed those per pair).

    scripts/torch_pairs_error.py FILE PROFILE [PROFILE...] [--c3advisor build/c3advisor]
"""
import argparse
import json
import subprocess
import sys


def percentile(values, q):
    """Nearest rank, as validate's p90."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--c3advisor", default="build/c3advisor")
    a = ap.parse_args()
    with open(a.file) as f:
        records = [r for r in json.load(f)["records"] if r.get("ok")]
    pairs = {}
    for r in records:
        if r["what"] == "concurrent":
            key = (r["m"], r["n"], r["k"], r["dtype"], r["kind"], r["size_bytes"], r["ranks"])
            pairs.setdefault(key, {})[r["strategy"]] = r["median_s"]
    pairs = {k: v for k, v in pairs.items() if "dma" in v and "serial" in v}
    if not pairs:
        sys.exit("torch_pairs_error: %s has no pair with dma and serial records" % a.file)
    for profile in a.profiles:
        errors, ratio_errors = {}, {}
        for (m, n, k, dtype, kind, size, ranks), measured in pairs.items():
            out = subprocess.run([a.c3advisor, "advise", "--profile", profile, "--gemm", "%dx%dx%d:%s" % (m, n, k, dtype),
                                  "--collective", "%s:%d" % (kind, size), "--ranks", str(ranks), "--json"],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit("torch_pairs_error: advise failed: " + out.stderr.strip())
            predicted = {s["name"]: s["predicted_s"] for s in json.loads(out.stdout)["strategies"]}
            for strategy, t in measured.items():
                if strategy not in predicted:
                    continue
                errors.setdefault(strategy, []).append(abs(predicted[strategy] / t - 1))
                if strategy != "serial":
                    ratio = (predicted[strategy] / predicted["serial"]) / (t / measured["serial"])
                    ratio_errors.setdefault(strategy, []).append(abs(ratio - 1))
        print("%s: %d pairs of %s" % (profile, len(pairs), a.file))
        for strategy in sorted(errors):
            line = "  %-7s |pred/meas - 1| median %5.1f%%  p90 %5.1f%%" % (
                strategy, 100 * median(errors[strategy]), 100 * percentile(errors[strategy], 0.9))
            if strategy in ratio_errors:
                line += "   ratio to serial: median %5.1f%%  p90 %5.1f%%" % (
                    100 * median(ratio_errors[strategy]), 100 * percentile(ratio_errors[strategy], 0.9))
            print(line)


if __name__ == "__main__":
    main()
