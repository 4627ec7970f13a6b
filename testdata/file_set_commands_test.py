#!/usr/bin/env python3
"""export and compare read file sets (issue 24): a run split as dumpcap -b
filesize: splits it (prefix_NNNNN_YYYYmmddHHMMSS.pcap) gives the same output
as the run in one file, apart from the file references; a file missing in
the middle is a warning and a gap, not an error; each evidence frame of a
set is located as file + frame, and that frame of that file is the packet
the one-file report names.

  file_set_commands_test.py CLI BEFORE AFTER

python3 stdlib only; the split is file_set_test.py's.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from file_set_test import split, without_file_references as strip_capture  # noqa: E402

PER_FILE = 5


def run(cli, args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)


def records(path):
    """The packet records of a classic pcap (header + data), in order."""
    data = open(path, "rb").read()
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        out.append(data[off:off + 16 + caplen])
        off += 16 + caplen
    return out




def strip_sides(doc):
    for side in ("before", "after"):
        doc[side].pop("file", None)
        doc[side].pop("files", None)
    return doc


class Check:
    def __init__(self):
        self.problems = []

    def __call__(self, ok, what):
        if not ok:
            self.problems.append(what)
        return ok


def export(cli, check, d, capture, what, out_name):
    """export CAPTURE... WHAT -o d/out_name; the file's text, or None."""
    out = os.path.join(d, out_name)
    p = run(cli, ["export", *capture, *what, "-o", out, "--quiet"])
    if not check(p.returncode == 0, "export %s %s: exit %d: %s" % (capture, what, p.returncode, p.stderr)):
        return None
    return open(out, encoding="utf-8", errors="replace").read()


def main():
    cli, before, after = sys.argv[1:4]
    check = Check()
    with tempfile.TemporaryDirectory(prefix="file_set_commands.") as d:
        sets = {}
        for label, capture in (("before", before), ("after", after)):
            sd = os.path.join(d, label)
            os.mkdir(sd)
            sets[label], frames = split(capture, sd, PER_FILE)
            check(len(sets[label]) >= 3, "%s: too few frames to split (%d)" % (capture, frames))
        ring = sets["before"]
        # The one file under the name of the set's first file, alone in its
        # folder: figure titles name the (first) file, so they must match.
        os.mkdir(os.path.join(d, "one"))
        one = os.path.join(d, "one", os.path.basename(ring[0]))
        shutil.copyfile(before, one)

        # export --report json / csv: the one file's report.
        single = json.loads(export(cli, check, d, [one], ["--report"], "one.json") or "{}")
        for label, args in (("first file", [ring[0]]), ("list", ring), ("pattern", [os.path.join(os.path.dirname(ring[0]), "run_*.pcap")])):
            doc = json.loads(export(cli, check, d, args, ["--report"], "set.json") or "{}")
            check(len(doc.get("capture", {}).get("files", [])) == len(ring), "export --report (%s) read %s" % (label, doc.get("capture", {}).get("files")))
            check(strip_capture(doc) == strip_capture(json.loads(json.dumps(single))),
                  "export --report json of the set (%s) differs from the one file's" % label)
        check(export(cli, check, d, [ring[0]], ["--report"], "set.csv") == export(cli, check, d, [one], ["--report"], "one.csv"),
              "export --report csv of the set differs from the one file's")

        # Evidence frames as file + frame: the packet there is the one the one-file report names.
        doc = json.loads(export(cli, check, d, [ring[0]], ["--report"], "set.json") or "{}")
        whole = records(one)
        located = 0
        for f in doc.get("findings", []):
            locs = f.get("frame_locations")
            if not check(locs is not None and [l["frame"] for l in locs] == f["frames"],
                         "finding %s: frame_locations %s do not list its frames %s" % (f["kind"], locs, f["frames"])):
                continue
            for l in locs:
                part = records(l["file"])
                ok = l["file"] == ring[l["file_index"]] and 1 <= l["file_frame"] <= len(part) and \
                    part[l["file_frame"] - 1] == whole[l["frame"] - 1]
                located += ok
                check(ok, "frame %d located as %s frame %s: not that packet" % (l["frame"], l["file"], l["file_frame"]))
        check(located > 0, "no evidence frame located (the capture has no findings?)")
        check("frame_locations" not in json.dumps(single), "a one-file report gained frame_locations")

        # Figures: the call, the connection and the timeline as drawn from one file.
        for what, ext in ((["--call", "2"], "svg"), (["--connection", "1"], "svg"), (["--timeline"], "svg")):
            a = export(cli, check, d, [one], what, "one." + ext)
            b = export(cli, check, d, [ring[0]], what, "set." + ext)
            check(a is not None and a == b, "export %s of the set differs from the one file's" % " ".join(what))

        # compare: each side a set, named three ways; the same comparison as the two files.
        p = run(cli, ["compare", before, after, "--json", "--quiet"])
        check(p.returncode == 0, "compare of the files: exit %d: %s" % (p.returncode, p.stderr))
        plain = strip_sides(json.loads(p.stdout or "{}"))
        pattern = lambda label: os.path.join(d, label, "run_*.pcap")
        ways = {
            "first files of rings": [sets["before"][0], sets["after"][0]],
            "patterns": [pattern("before"), pattern("after")],
            "--before/--after repeated": sum((["--before", f] for f in sets["before"]), []) +
                                         sum((["--after", f] for f in sets["after"]), []),
        }
        for label, args in ways.items():
            p = run(cli, ["compare", *args, "--json", "--quiet"])
            if not check(p.returncode == 0, "compare (%s): exit %d: %s" % (label, p.returncode, p.stderr)):
                continue
            doc = json.loads(p.stdout)
            check(doc["before"].get("files") == sets["before"] and doc["after"].get("files") == sets["after"],
                  "compare (%s): sides read %s / %s" % (label, doc["before"].get("files"), doc["after"].get("files")))
            check(strip_sides(doc) == plain, "compare (%s) differs from the comparison of the two files" % label)
        p = run(cli, ["compare", sets["before"][0], sets["before"][0], "--quiet"])
        check("same file" in p.stderr, "compare of a set with itself does not say so: %s" % p.stderr)
        for bad in (["--before", ring[0]], ["--before", ring[0], "--after", sets["after"][0], after], [ring[0]]):
            p = run(cli, ["compare", *bad])
            check(p.returncode == 2, "compare %s: exit %d, not a usage error" % (bad, p.returncode))

        # A file missing in the middle: a warning and a gap, for export and compare.
        missing = os.path.join(d, "missing")
        shutil.copytree(os.path.join(d, "before"), missing)
        os.remove(os.path.join(missing, os.path.basename(ring[1])))
        gap_first = os.path.join(missing, os.path.basename(ring[0]))
        out = os.path.join(d, "gap.json")
        p = run(cli, ["export", gap_first, "--report", "-o", out])
        if check(p.returncode == 0, "export of a set with a gap: exit %d: %s" % (p.returncode, p.stderr)):
            doc = json.loads(open(out).read())
            check(any(w["code"] == "file_set_gap" for w in doc["capture"]["warnings"]), "export: the gap is not warned")
            check("gap in the set" in p.stderr, "export: the gap is not on stderr: %s" % p.stderr)
        p = run(cli, ["compare", gap_first, sets["after"][0], "--json"])
        check(p.returncode == 0 and "warning" in p.stderr, "compare with a gap: exit %d: %s" % (p.returncode, p.stderr))

    print("%s / %s split in files of %d frames: %s" % (os.path.basename(before), os.path.basename(after), PER_FILE,
                                                      "ok" if not check.problems else "FAILED"))
    for p in check.problems:
        print("  - " + p)
    return 1 if check.problems else 0


if __name__ == "__main__":
    sys.exit(main())
