#!/usr/bin/env python3
"""Adds wirecheck.py's counts to a label as "wire_check" and compares them with the
design's "pathologies" (and calls/connections). Exit 1 on disagreement.

  label_wirecheck.py NAME.label.json NAME.pcap
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wirecheck  # noqa: E402


def main():
    label_path, pcap = sys.argv[1], sys.argv[2]
    label = json.load(open(label_path))
    wire = wirecheck.check(pcap)
    label["wire_check"] = {"calls": wire["calls"], "connections": wire["connections"],
                           "pathologies": wire["pathologies"], "stalls_ms": [s["ms"] for s in wire["stalls"]],
                           "stall_frames": [[s["frame_a"], s["frame_ack"], s["frame_b"]] for s in wire["stalls"]]}
    problems = []
    if wire["calls"] != label["calls"]:
        problems.append(f"calls: label {label['calls']}, wire {wire['calls']}")
    if wire["connections"] != label["connections"]:
        problems.append(f"connections: label {label['connections']}, wire {wire['connections']}")
    for k, v in label["pathologies"].items():
        if wire["pathologies"].get(k) != v:
            problems.append(f"{k}: design {v}, wire {wire['pathologies'].get(k)}")
    with open(label_path, "w") as f:
        json.dump(label, f, indent=2)
        f.write("\n")
    name = label["name"]
    if problems:
        print(f"label_wirecheck: {name}: design and wire disagree: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(f"label_wirecheck: {name}: wire agrees with design {label['pathologies']}; "
          f"stalls {label['wire_check']['stalls_ms']} ms", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
