#!/usr/bin/env python3
"""The same numbers everywhere (issue 14): every total of the text, JSON and
CSV reports is the call ledger's, so they agree with each other and with the
per-call partition.

usage: report_totals_test.py STALLSCOPE_CLI CAPTURE_OR_DIR...
(a directory stands for its *.pcap and *.pcapng files)

For each capture that analyses (exit 0), with C = complete calls:
- JSON: summary.overall avoidable_ms / server_ms / transfer_ms are the sums of
  the stall causes / `server` / the two transfer causes of calls[].attribution
  over C; each stall kind's `lost` entry is the sum of its cause over C, and the
  sum of its findings' counted_ms when all their calls are complete;
- text: "Where the time went" and each kind's line print the JSON's numbers;
- CSV (--csv): each call's attribution column is the JSON's, and lost_ms is the
  sum of its stall causes;
- CSV (--csv-summary): each (operation, kind) lost_ms is the JSON's.
A capture that does not analyse must fail the same way in every format.
Exit 1 on any disagreement, naming the capture and the numbers.
"""
import csv
import glob
import io
import json
import os
import re
import subprocess
import sys

PLAIN = {"request_transfer", "server", "response_transfer", "network"}  # network: the path, captures away from the server
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(cli, args):
    p = subprocess.run([cli, "analyze"] + args + ["--quiet"], capture_output=True, text=True, timeout=120,
                       errors="replace", env=dict(os.environ, TZ="UTC", LC_ALL="C"))
    return p.returncode, p.stdout


def close(a, b, tol):
    return abs(a - b) <= tol


def us(ms):
    return round(ms * 1000)


def check(cli, cap):
    name = os.path.basename(cap)
    rc_j, out_j = run(cli, [cap, "--json"])
    rc_t, out_t = run(cli, [cap])
    rc_c, out_c = run(cli, [cap, "--csv"])
    rc_s, out_s = run(cli, [cap, "--csv-summary"])
    if len({rc_j, rc_t, rc_c, rc_s}) != 1:
        fail(f"{name}: exit status differs by format: json {rc_j}, text {rc_t}, csv {rc_c}, csv-summary {rc_s}")
        return False
    if rc_j != 0:
        return False
    j = json.loads(out_j)
    calls = {c["id"]: c for c in j["calls"]}
    complete = [c for c in j["calls"] if c["complete"]]
    tol = 0.001 * (len(complete) + 1)

    # JSON: the summary from the partition.
    by_cause = {}
    for c in complete:
        for part in c["attribution"]:
            by_cause[part["cause"]] = by_cause.get(part["cause"], 0) + us(part["ms"])
    stall_us = sum(v for k, v in by_cause.items() if k not in PLAIN)
    o = j["summary"]["overall"]
    for what, want in (("avoidable_ms", stall_us), ("server_ms", by_cause.get("server", 0)),
                       ("transfer_ms", by_cause.get("request_transfer", 0) + by_cause.get("response_transfer", 0))):
        if not close(o[what], want / 1000, tol):
            fail(f"{name}: json summary {what} {o[what]} but the calls' attribution adds up to {want / 1000:.3f}")
    lost = {k["kind"]: k for k in o["lost"]}
    for kind, k in lost.items():
        of_kind = [f for f in j["findings"] if f["kind"] == kind]
        if k["avoidable"] and kind != "connection_setup":
            if not close(k["lost_ms"], by_cause.get(kind, 0) / 1000, tol):
                fail(f"{name}: json lost {kind} {k['lost_ms']} ms but attribution[{kind}] adds up to "
                     f"{by_cause.get(kind, 0) / 1000:.3f}")
        if all(f["calls"] and all(calls.get(i, {}).get("complete") for i in f["calls"]) for f in of_kind):
            counted = sum(f["counted_ms"] for f in of_kind)
            if not close(k["lost_ms"], counted, tol):
                fail(f"{name}: json lost {kind} {k['lost_ms']} ms but its findings' counted_ms add up to {counted:.3f}")
    for cause, v in by_cause.items():
        if cause not in PLAIN and cause not in lost and v > 0:
            fail(f"{name}: attribution has {v / 1000:.3f} ms of {cause} but the summary lists no such loss")

    # Text: the summary's lines print the JSON's numbers.
    summary = out_t.split("\nSummary\n", 1)[-1].split("\n\n", 1)[0] if "\nSummary\n" in out_t else ""
    m = re.search(r"Where the time went: avoidable waits ([\d.]+) ms .*server processing ([\d.]+) ms .*"
                  r"transfer ([\d.]+) ms", summary)
    if complete and o["calls"]:
        if not m:
            fail(f"{name}: text summary has no 'Where the time went' line")
        else:
            for got, what in zip(m.groups(), ("avoidable_ms", "server_ms", "transfer_ms")):
                if not close(float(got), o[what], 0.0011):
                    fail(f"{name}: text {what} {got}, json {o[what]}")
    for kind, k in lost.items():
        mk = re.search(r"^  " + re.escape(kind) + r"\s+([\d.]+) ms (lost|server processing|before the first)",
                       summary, re.M)
        if k["lost_ms"] > 0 and not mk:
            fail(f"{name}: text summary has no line for {kind} ({k['lost_ms']} ms)")
        elif mk and not close(float(mk.group(1)), k["lost_ms"], 0.0011):
            fail(f"{name}: text {kind} {mk.group(1)} ms, json {k['lost_ms']} ms")

    # CSV per call: the same partition, lost_ms its stall part.
    for row in csv.DictReader(io.StringIO(out_c)):
        c = calls.get(int(row["id"]))
        if c is None:
            fail(f"{name}: csv call {row['id']} not in json")
            continue
        parts = dict(p.split("=", 1) for p in row["attribution"].split(";") if p)
        want = {p["cause"]: p["ms"] for p in c["attribution"]}
        if {k: round(float(v), 3) for k, v in parts.items()} != {k: round(v, 3) for k, v in want.items()}:
            fail(f"{name}: call {row['id']}: csv attribution {parts}, json {want}")
        stall = sum(us(float(v)) for k, v in parts.items() if k not in PLAIN)
        if c["complete"] and row["lost_ms"] and not close(float(row["lost_ms"]), stall / 1000, 0.0011):
            fail(f"{name}: call {row['id']}: csv lost_ms {row['lost_ms']}, its stall causes add up to {stall / 1000:.3f}")

    # CSV summary: per operation and kind, the JSON's lost_ms.
    groups = {"(all)": o}
    for g in j["summary"]["per_operation"]:
        groups[g.get("operation") or ""] = g
    for row in csv.DictReader(io.StringIO(out_s)):
        g = groups.get(row["operation"])
        if g is None or not row["kind"]:
            continue
        k = next((x for x in g["lost"] if x["kind"] == row["kind"]), None)
        if k is None:
            fail(f"{name}: csv-summary {row['operation']}/{row['kind']} not in json")
        elif not close(float(row["lost_ms"]), k["lost_ms"], 0.0011):
            fail(f"{name}: csv-summary {row['operation']}/{row['kind']} lost_ms {row['lost_ms']}, json {k['lost_ms']}")
    return True


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cli = sys.argv[1]
    caps = []
    for a in sys.argv[2:]:
        caps += sorted(glob.glob(os.path.join(a, "*.pcap")) + glob.glob(os.path.join(a, "*.pcapng"))) \
            if os.path.isdir(a) else [a]
    checked = sum(1 for cap in caps if check(cli, cap))
    print(f"{len(caps)} captures, {checked} analysed and checked, {len(failures)} failures")
    if checked < 20:
        fail(f"only {checked} captures analysed: too few to say anything")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
