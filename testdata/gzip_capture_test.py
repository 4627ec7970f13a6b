#!/usr/bin/env python3
"""A gzip-compressed capture (.pcap.gz, .pcapng.gz) reports as the plain one
it was compressed from, apart from the file's name, size and format, which
says "(gzip)"; the gzip is recognised by its magic, not by its name. A cut
.gz is analysed up to the cut with a damage warning naming the offset; a .gz
with no capture inside is an error naming the file.

  gzip_capture_test.py CLI CAPTURE...

python3 stdlib only: the captures are compressed here, at test time.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile


def run(cli, *args):
    return subprocess.run([cli, "analyze", *args, "--json", "--quiet"], capture_output=True, text=True, timeout=300)


def report(cli, path):
    p = run(cli, path)
    if p.returncode != 0:
        raise SystemExit("%s: exit %d: %s" % (path, p.returncode, p.stderr))
    return json.loads(p.stdout)


def without_file_references(doc):
    cap = doc["capture"]
    for k in ("file", "bytes", "format"):
        cap.pop(k, None)
    return doc


def main():
    cli, captures = sys.argv[1], sys.argv[2:]
    problems = []
    with tempfile.TemporaryDirectory(prefix="gzip_capture_test.") as d:
        for capture in captures:
            plain = report(cli, capture)
            raw = open(capture, "rb").read()
            # Named .gz and, to show the name does not matter, with no .gz at all.
            for name in (os.path.basename(capture) + ".gz", "no-suffix-" + os.path.basename(capture)):
                gz = os.path.join(d, name)
                with gzip.open(gz, "wb") as fh:
                    fh.write(raw)
                doc = report(cli, gz)
                if doc["capture"]["format"] != plain["capture"]["format"] + " (gzip)":
                    problems.append("%s: format %r" % (name, doc["capture"]["format"]))
                if doc["capture"]["bytes"] != os.path.getsize(gz):
                    problems.append("%s: bytes %r, not the compressed size" % (name, doc["capture"]["bytes"]))
                if without_file_references(doc) != without_file_references(json.loads(json.dumps(plain))):
                    problems.append("%s: reports differently from %s" % (name, capture))
            # Cut in the middle of the compressed data.
            cut = os.path.join(d, "cut-" + os.path.basename(capture) + ".gz")
            data = gzip.compress(raw)
            with open(cut, "wb") as fh:
                fh.write(data[:len(data) * 2 // 3])
            doc = report(cli, cut)
            damage = [w["message"] for w in doc["capture"]["warnings"] if "truncated gzip" in w["message"]]
            if not doc["capture"]["truncated"] or not damage or "(offset " not in damage[0]:
                problems.append("%s: no damage warning with an offset: %s" % (cut, doc["capture"]["warnings"][:3]))
            elif doc["capture"]["packets"] >= plain["capture"]["packets"] or doc["capture"]["packets"] == 0:
                problems.append("%s: %d packets read of %d" % (cut, doc["capture"]["packets"],
                                                               plain["capture"]["packets"]))
            print("%s: %s" % (os.path.basename(capture), "ok" if not problems else "FAILED"))
        # Not a capture inside: an error (exit 1) naming the file.
        junk = os.path.join(d, "notes.txt.gz")
        with gzip.open(junk, "wb") as fh:
            fh.write(b"not a capture at all\n" * 10)
        p = run(cli, junk)
        if p.returncode != 1 or junk not in p.stderr or "gzip-compressed, but not a capture" not in p.stderr:
            problems.append("a .gz of text: exit %d, %r" % (p.returncode, p.stderr))
    for p in problems:
        print("  - " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
