#!/usr/bin/env python3
"""Checks stallscope-cli's analysis WITH keys of every labelled HTTPS capture against its label.

For testdata/https-*.keyed.pcapng (the secrets embedded, as editcap --inject-secrets writes them) and
for NAME.pcap with --keylog NAME.keys, from the label's wire_check (tshark with the key log):
  - every connection decrypted; the calls: as many as the wire's, each decrypted (not "encrypted"),
    with its method, SOAP operation and HTTP status, from the frame of its first request record to
    the frame of its last response record, latency within 0.01 ms of the wire's;
  - every Nagle/delayed-ACK stall of the wire (outside connection setup) found on its side, as a
    nagle_delayed_ack, tls_nagle_delayed_ack or tls_ticket_stall finding whose evidence ends at the
    held segment's ACKed successor, with a cost within one round trip (+0.1 ms, the label's rounding)
    of the wire's; and no such stall that the wire does not show;
  - full and resumed handshakes as on the wire.
Exit 1 on any disagreement.   check-keyed.py STALLSCOPE_CLI TESTDATA_DIR
"""
import glob
import json
import os
import subprocess
import sys

from tls_report import handshake_problem, handshakes

STALL_KINDS = ("nagle_delayed_ack", "tls_nagle_delayed_ack", "tls_ticket_stall")


def analyze(cli, args):
    out = subprocess.run([cli, "analyze", *args, "--json", "--quiet"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TZ": "UTC", "LC_ALL": "C"})
    return json.loads(out.stdout)


def check(rep, label):
    wire, p = label["wire_check"], label["pathologies"]
    problems = []
    tls, _, _ = handshakes(rep)
    undecrypted = [t.get("reason", "?") for t in tls if not t["decrypted"]]
    if undecrypted:
        problems.append(f"{len(undecrypted)} connection(s) not decrypted: {undecrypted[0]}")
    calls = [c for c in rep["calls"] if c.get("complete")]
    if len(calls) != wire["calls"]:
        problems.append(f"calls: stallscope {len(calls)}, wire {wire['calls']}")
    for c, w in zip(calls, wire["calls_detail"]):
        if c.get("encrypted") or c.get("method") != "POST" or not c.get("operation") or c.get("status") != 200:
            problems.append(f"call {c['id']}: not read as plain HTTP/SOAP (method {c.get('method')}, "
                            f"operation {c.get('operation')}, status {c.get('status')}, encrypted {c.get('encrypted')})")
        if (c["request_first_frame"], c["response_last_frame"]) != (w["start_frame"], w["end_frame"]):
            problems.append(f"call {c['id']}: frames {c['request_first_frame']}..{c['response_last_frame']}, "
                            f"wire {w['start_frame']}..{w['end_frame']}")
        if abs(c["latency_ms"] - w["latency_ms"]) > 0.01:
            problems.append(f"call {c['id']}: latency {c['latency_ms']} ms, wire {w['latency_ms']} ms")
    rtt = max((k.get("rtt_ms") or 0.0 for k in wire.get("connections_detail", [])), default=0.0)
    found = {}  # (side, last evidence frame) -> cost
    for f in rep["findings"]:
        if f["kind"] in STALL_KINDS and f["frames"]:
            found[(f["side"], f["frames"][-1])] = f["cost_ms"]
    expected = [s for s in wire.get("stalls", []) if not s.get("in_setup")]
    for s in expected:
        key = (s["sender"], s["frames"][-1])
        if key not in found:
            problems.append(f"{s['sender']} stall ending at frame {s['frames'][-1]} ({s['ms']} ms) not found")
        elif abs(found[key] - s["ms"]) > rtt + 0.1:
            problems.append(f"{s['sender']} stall ending at frame {key[1]}: {found[key]} ms, wire {s['ms']} ms "
                            f"(round trip {rtt} ms)")
    wire_keys = {(s["sender"], s["frames"][-1]) for s in wire.get("stalls", [])}
    for key in found:
        if key not in wire_keys:
            problems.append(f"{key[0]} stall ending at frame {key[1]} that the wire does not show")
    if (bad := handshake_problem(rep, p)):
        problems.append(bad)
    return problems, calls, len(expected)


def main():
    cli, testdata = sys.argv[1], sys.argv[2]
    labels = sorted(glob.glob(os.path.join(testdata, "https-*.label.json")))
    if not labels:
        print("no https-*.label.json in " + testdata)
        return 1
    failures = 0
    for path in labels:
        label = json.load(open(path))
        base = os.path.join(testdata, label["name"])
        for how, args in (("embedded secrets", [base + ".keyed.pcapng"]),
                          ("--keylog", [base + ".pcap", "--keylog", base + ".keys"])):
            problems, calls, stalls = check(analyze(cli, args), label)
            if problems:
                failures += 1
                print(f"FAIL {label['name']} ({how})")
                for x in problems:
                    print("    " + x)
            else:
                ops = sorted({c["operation"] for c in calls})
                print(f"ok   {label['name']} ({how}): {len(calls)} calls of {', '.join(ops)}, {stalls} stalls as on the wire")
    print(f"{2 * len(labels) - failures} agree, {failures} disagree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
