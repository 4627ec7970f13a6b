#!/usr/bin/env python3
"""Checks that `stallscope-cli analyze` agrees with each labelled capture: same number of calls,
the same per-pathology call counts as the label, and a median latency within 5% of the client's own
median (or within 0.2 ms: sub-millisecond calls differ by the client's user-space time, which the wire
cannot see).  python3 stdlib only.

  check-cli-agreement.py [--cli PATH] [--testdata DIR] [NAME-GLOB]     exit 1 on any disagreement
"""
import argparse
import csv
import glob
import io
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ["nagle_delayed_ack", "split_write", "expect_100_wait", "connection_setup"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build = os.environ.get("STALLSCOPE_BUILD", os.path.join(HERE, "..", "build"))
    ap.add_argument("--cli", default=os.path.join(build, "app", "cli", "stallscope-cli"))
    ap.add_argument("--testdata", default=os.path.join(HERE, "..", "testdata"))
    ap.add_argument("pattern", nargs="?", default="refsvc-*")
    a = ap.parse_args()
    bad = 0
    for lab_path in sorted(glob.glob(os.path.join(a.testdata, a.pattern + ".label.json"))):
        lab = json.load(open(lab_path))
        pcap = lab_path[: -len(".label.json")] + ".pcap"
        r = subprocess.run([a.cli, "analyze", pcap, "--csv", "--quiet"], capture_output=True, text=True, timeout=120)
        rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
        lat = [float(x["latency_ms"]) for x in rows if x.get("latency_ms")]
        cm = statistics.median(lab["client_latencies_ms"])
        am = statistics.median(lat) if lat else float("nan")
        counts = {k: sum(1 for x in rows if k in x.get("findings", "").split(";")) for k in KEYS}
        problems = [f"{k}: label {lab['pathologies'].get(k, 0)}, cli {counts[k]}" for k in KEYS
                    if lab["pathologies"].get(k, 0) != counts[k]]
        if len(rows) != lab["calls"]:
            problems.append(f"calls: label {lab['calls']}, cli {len(rows)}")
        if not (abs(am - cm) <= 0.05 * cm or abs(am - cm) <= 0.2):
            problems.append(f"median: client {cm:.3f} ms, cli {am:.3f} ms")
        if r.returncode != 0:
            problems.append(f"cli exit {r.returncode}: {r.stderr.strip()[:200]}")
        bad += bool(problems)
        print(f"{lab['name']:32s} client median {cm:9.3f} ms  cli median {am:9.3f} ms  "
              + ("agrees" if not problems else "DISAGREES: " + "; ".join(problems)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
