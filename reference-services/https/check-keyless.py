#!/usr/bin/env python3
"""Checks stallscope-cli's keyless analysis of every labelled HTTPS capture against its label.

For testdata/https-*.pcap (no key log given), from the label's wire_check (tshark with the key log):
  - the calls: as many, each starting at the frame of its first request record and ending at the frame
    of its last response record, latency within 0.01 ms of the wire's;
  - the Nagle/delayed-ACK stalls per side (tls_nagle_delayed_ack + tls_ticket_stall findings);
  - full and resumed handshakes (connections[].tls.resumed);
  - tls_certificate_flight findings: as many as connections whose flight waited for the client's ACK
    (pathologies.flight_waits_for_ack; 0 for labels without it).
Exit 1 on any disagreement.   check-keyless.py STALLSCOPE_CLI TESTDATA_DIR
"""
import glob
import json
import os
import subprocess
import sys

from tls_report import handshake_problem, handshakes


def main():
    cli, testdata = sys.argv[1], sys.argv[2]
    failures = 0
    labels = sorted(glob.glob(os.path.join(testdata, "https-*.label.json")))
    if not labels:
        print("no https-*.label.json in " + testdata)
        return 1
    for path in labels:
        label = json.load(open(path))
        wire = label["wire_check"]
        pcap = os.path.join(testdata, label["name"] + ".pcap")
        out = subprocess.run([cli, "analyze", pcap, "--json"], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "TZ": "UTC", "LC_ALL": "C"})
        rep = json.loads(out.stdout)
        problems = []
        calls = [c for c in rep["calls"] if c.get("complete")]
        if len(calls) != wire["calls"]:
            problems.append(f"calls: stallscope {len(calls)}, wire {wire['calls']}")
        for c, w in zip(calls, wire["calls_detail"]):
            if not c.get("encrypted"):
                problems.append(f"call {c['id']}: not marked encrypted")
            if (c["request_first_frame"], c["response_last_frame"]) != (w["start_frame"], w["end_frame"]):
                problems.append(f"call {c['id']}: frames {c['request_first_frame']}..{c['response_last_frame']}, "
                                f"wire {w['start_frame']}..{w['end_frame']}")
            if abs(c["latency_ms"] - w["latency_ms"]) > 0.01:
                problems.append(f"call {c['id']}: latency {c['latency_ms']} ms, wire {w['latency_ms']} ms")
        stalls = {"client": 0, "server": 0}
        for f in rep["findings"]:
            if f["kind"] in ("tls_nagle_delayed_ack", "tls_ticket_stall"):
                stalls[f["side"]] += 1
        p = label["pathologies"]
        for side in ("client", "server"):
            if stalls[side] != p[f"nagle_stalls_{side}"]:
                problems.append(f"{side} stalls: stallscope {stalls[side]}, label {p[f'nagle_stalls_' + side]}")
        # The certificate flight that waited for the client's ACK (labels made before the count: none expected).
        flights = sum(1 for f in rep["findings"] if f["kind"] == "tls_certificate_flight")
        if flights != p.get("flight_waits_for_ack", 0):
            problems.append(f"tls_certificate_flight: stallscope {flights}, label {p.get('flight_waits_for_ack', 0)}")
        _, full, resumed = handshakes(rep)
        if (bad := handshake_problem(rep, p)):
            problems.append(bad)
        if problems:
            failures += 1
            print(f"FAIL {label['name']}")
            for x in problems:
                print("    " + x)
        else:
            lat = ", ".join(f"{c['latency_ms']:.3f}" for c in calls)
            print(f"ok   {label['name']}: {len(calls)} calls ({lat} ms), stalls client {stalls['client']} "
                  f"server {stalls['server']}, handshakes {full} full {resumed} resumed"
                  + (f", certificate flight waits {flights}" if flights else ""))
    print(f"{len(labels) - failures} agree, {failures} disagree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
