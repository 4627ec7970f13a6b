#!/usr/bin/env python3
"""Adds tls_wirecheck.py's findings to an HTTPS label as "wire_check" and compares them with the
design's "pathologies" (stalls per side, handshakes); a label without them (toolkit captures) gets the wire's. Exit 1 on disagreement (the wire wins).

  label_tls_wirecheck.py NAME.label.json NAME.pcap NAME.keys REGENERATE-COMMAND
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tls_wirecheck  # noqa: E402


def main():
    label_path, pcap, keys, regen = sys.argv[1:5]
    label = json.load(open(label_path))
    wire = tls_wirecheck.check(pcap, keys)
    conns = wire["connections_detail"]
    counts = {
        "nagle_stalls_client": sum(1 for s in wire["stalls"] if s["sender"] == "client" and not s["in_setup"]),
        "nagle_stalls_server": sum(1 for s in wire["stalls"] if s["sender"] == "server" and not s["in_setup"]),
        "nagle_stalls_in_setup": sum(1 for s in wire["stalls"] if s["in_setup"]),
        "full_handshakes": sum(1 for c in conns if c["full_handshake"]),
        "resumed_handshakes": sum(1 for c in conns if not c["full_handshake"]),
        "flight_over_initial_window": sum(1 for c in conns if c["server_flight_bytes"] > c["initial_window_bytes"]),
        # ... and the server waited for the client's ACK inside it: at least 1 ms and half a round trip.
        "flight_waits_for_ack": sum(1 for c in conns if c["server_flight_bytes"] > c["initial_window_bytes"]
                                    and c["flight_ack_wait_ms"] >= max(1.0, 0.5 * c["rtt_ms"])),
    }
    label["regenerate"] = regen
    label["wire_check"] = {
        "method": "tshark decrypts with the key log (HTTP requests/final responses); stalls from TCP segments",
        "calls": wire["calls"], "connections": wire["connections"], "pathologies": counts,
        "calls_detail": wire["calls_detail"], "connections_detail": wire["connections_detail"],
        "stalls": [{"sender": s["sender"], "ms": s["ms"], "frames": [s["frame_a"], s["frame_ack"], s["frame_b"]],
                    "behind_session_ticket": s["ticket"], "in_setup": s["in_setup"]} for s in wire["stalls"]],
    }
    if "pathologies" not in label:  # toolkit captures: the counts are read from the wire, not designed
        label["pathologies"] = dict(counts)
        label["pathologies_from"] = "wire (tls_wirecheck.py)"
        label["connections"] = wire["connections"]
    problems = []
    if wire["calls"] != label["calls"]:
        problems.append(f"calls: label {label['calls']}, wire {wire['calls']}")
    if wire["connections"] != label["connections"]:
        problems.append(f"connections: label {label['connections']}, wire {wire['connections']}")
    for k, v in label["pathologies"].items():
        if counts.get(k) != v:
            problems.append(f"{k}: design {v}, wire {counts.get(k)}")
    with open(label_path, "w") as f:
        json.dump(label, f, indent=2)
        f.write("\n")
    if problems:
        print(f"label_tls_wirecheck: {label['name']}: design and wire disagree: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(f"label_tls_wirecheck: {label['name']}: " + ("counts from the wire" if label.get("pathologies_from") else "wire agrees with design") + f" {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
