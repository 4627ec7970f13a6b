#!/usr/bin/env python3
"""Prints the markdown table of every labelled capture in a testdata directory
(used to write testdata/README.md).   testdata_table.py [DIR] [--https]
--https: the table of the HTTPS captures (labels with a "tls" object) instead of the plaintext ones."""
import glob
import json
import os
import statistics
import sys

args = [a for a in sys.argv[1:] if a != "--https"]
https = "--https" in sys.argv[1:]
d = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
if https:
    keys = ["nagle_stalls_client", "nagle_stalls_server", "nagle_stalls_in_setup", "full_handshakes",
            "resumed_handshakes", "flight_over_initial_window"]
    print("| capture | KB (pcap) | transport | TLS | calls | conns | client median ms | Nagle stalls client | server "
          "| in setup | full handshakes | resumed | flight > initcwnd | made by |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(d, "https-*.label.json"))):
        lab = json.load(open(path))
        pcap = path[: -len(".label.json")] + ".pcap"
        kb = os.path.getsize(pcap) / 1024 if os.path.exists(pcap) else 0
        lat = lab.get("client_latencies_ms") or []
        med = f"{statistics.median(lat):.1f}" if lat else "-"
        p = lab.get("pathologies", {})
        print(f"| {lab['name']} | {kb:.0f} | {lab.get('transport', '')} | {lab['tls']['version']} | {lab.get('calls')} "
              f"| {lab.get('connections')} | {med} | " + " | ".join(str(p.get(k, 0)) for k in keys) +
              f" | `{lab.get('regenerate', '')}` |")
    sys.exit(0)
keys = ["nagle_delayed_ack", "split_write", "expect_100_wait", "connection_setup"]
print("| capture | KB | transport | HTTP | calls | conns | client median ms | nagle | split | expect | conn/call | made by |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(d, "*.label.json"))):
    lab = json.load(open(path))
    if "tls" in lab:
        continue  # the HTTPS table (--https)
    pcap = path[: -len(".label.json")] + ".pcap"
    kb = os.path.getsize(pcap) / 1024 if os.path.exists(pcap) else 0
    lat = lab.get("client_latencies_ms") or []
    med = f"{statistics.median(lat):.1f}" if lat else "-"
    p = lab.get("pathologies", {})
    made = lab.get("made_by", "").replace("|", "\\|")
    print(f"| {lab['name']} | {kb:.0f} | {lab.get('transport', '')} | {lab.get('http_version', '')} | {lab.get('calls')} "
          f"| {lab.get('connections')} | {med} | " + " | ".join(str(p.get(k, 0)) for k in keys) + f" | `{made}` |")
