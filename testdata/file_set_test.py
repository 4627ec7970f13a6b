#!/usr/bin/env python3
"""A run split into a file set (dumpcap -b filesize: / editcap -c names:
prefix_NNNNN_YYYYmmddHHMMSS.pcap) gives the same report as the run in one
file, apart from the file references (issue 24); a file missing in the
middle is a warning and a gap, not an error.

  file_set_test.py CLI CAPTURE...

python3 stdlib only: the split is done here, record by record (classic pcap).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile


def split(path, outdir, per_file):
    data = open(path, "rb").read()
    header, off, records = data[:24], 24, []
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    while off + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        records.append(data[off:off + 16 + caplen])
        off += 16 + caplen
    names = []
    for i in range(0, len(records), per_file):
        name = os.path.join(outdir, "run_%05d_20261126093000.pcap" % (i // per_file + 1))
        with open(name, "wb") as fh:
            fh.write(header + b"".join(records[i:i + per_file]))
        names.append(name)
    return names, len(records)


def report(cli, args):
    p = subprocess.run([cli, "analyze", *args, "--json", "--quiet"], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit("exit %d: %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout)


def without_file_references(doc):
    for k in ("file", "bytes", "files", "frame_map"):
        doc["capture"].pop(k, None)
    for f in doc.get("findings", []):
        f.pop("frame_locations", None)  # evidence frames as file + frame
    return doc


def main():
    cli, captures = sys.argv[1], sys.argv[2:]
    problems = []
    for capture in captures:
        one = without_file_references(report(cli, [capture]))
        with tempfile.TemporaryDirectory(prefix="file_set_test.") as d:
            names, frames = split(capture, d, 9)
            if len(names) < 3:
                problems.append("%s: too few frames to split (%d)" % (capture, frames))
                continue
            first = report(cli, [names[0]])  # the first file of the ring brings the rest
            files = first["capture"].get("files", [])
            if [f["file"] for f in files] != names or sum(f["frames"] for f in files) != frames:
                problems.append("%s: the set read was %s" % (capture, files))
            # Frame 10 is the first of the second file.
            runs = first["capture"].get("frame_map", [])
            if not any(r["first_frame"] <= 10 < r["first_frame"] + r["frames"] and r["file_index"] == 1
                       and r["file_frame"] + 10 - r["first_frame"] == 1 for r in runs):
                problems.append("%s: frame 10 not located as file 2, frame 1: %s" % (capture, runs[:3]))
            for label, doc in (("first file", first), ("pattern", report(cli, [os.path.join(d, "run_*.pcap")])),
                               ("list", report(cli, names))):
                if without_file_references(doc) != one:
                    problems.append("%s: the set (%s) reports differently from the one file" % (capture, label))
            os.remove(names[1])
            gap = report(cli, [names[0]])
            if not any("gap in the set" in w["message"] for w in gap["capture"]["warnings"]):
                problems.append("%s: a missing file in the middle was not warned" % capture)
        print("%s: %d frames in %d files: %s" % (os.path.basename(capture), frames, len(names),
                                                  "ok" if not problems else "FAILED"))
    for p in problems:
        print("  - " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
