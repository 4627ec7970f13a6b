#!/usr/bin/env python3
"""Checks stallscope-cli against hand-made labels of the public HTTP captures.

  public_corpus_test.py --cli build/app/cli/stallscope-cli [--corpus DIR] [-v] [--only NAME]

The captures live outside the project (env STALLSCOPE_PUBLIC_CORPUS, else
--corpus, default <source>/../shared/corpus/public-http); their labels live in
testdata/public-http/<stem>.label.json. If the folder is absent the test is
SKIPPED (exit 77, ctest SKIP_RETURN_CODE), never passed.

For each capture, every labelled call is compared with the report's call whose
request_first_frame is the same: client, server, method, uri, status,
response_last_frame, complete; calls the report has and the label has not are
`extra_call`, labelled calls it misses are `missing_call`. File-level checks:
`call_count`, `non_tcp_frames` (frames the report skipped as non-TCP or
undecodable, against the label's count of non-TCP frames), `warning` (the label's
"warnings": at least `min` warnings naming a frame in `frames` [a, b], keyed by a),
`tunnel_warnings`
(no warning on a tunnelled connection after the frame that opened the tunnel),
and the report invariants of report_invariants.py (`latency_bounds`,
`empty_method`, ...).

A mismatch that is known today is listed in the label's "known_wrong":
  {"frames": [4, 9] | "all", "field": "response_last_frame", "reason": "..."}
  {"field": "non_tcp_frames", "reason": "..."}            (file level)
The test fails on any mismatch not listed, AND on any listed (frame, field)
that now matches: a fix must shrink the list in the same commit.
Exit 0 when all is as labelled, 1 otherwise.
"""
import argparse
import glob
import json
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from report_invariants import check_report  # noqa: E402

LABELS = os.path.join(HERE, "public-http")
DEFAULT_CORPUS = os.path.join(HERE, "..", "..", "shared", "corpus", "public-http")
CALL_FIELDS = ["client", "server", "method", "uri", "status", "response_last_frame", "complete"]
FILE_FIELDS = {"call_count", "non_tcp_frames", "tunnel_warnings"}
SKIP = 77


MEM_MB = 2048  # address-space limit per run; 0 = none (ASan reserves terabytes)


def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (120, 125))
    if MEM_MB > 0:
        resource.setrlimit(resource.RLIMIT_AS, (MEM_MB << 20, MEM_MB << 20))


def run_cli(cli, path):
    p = subprocess.run([cli, "analyze", path, "--json"], capture_output=True, text=True,
                       preexec_fn=limits, timeout=600, env=dict(os.environ, TZ="UTC", LC_ALL="C"))
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[:300]}"
    try:
        return json.loads(p.stdout), None
    except ValueError as e:
        return None, f"output is not JSON: {e}"


def compare(label, doc):
    """-> {(frame or None, field): message}"""
    got = {}
    conns = {c["id"]: c for c in doc["connections"]}
    out_calls = {}
    for c in doc["calls"]:
        conn = conns.get(c["connection_id"], {})
        row = dict(c, client=conn.get("client"), server=conn.get("server"))
        key = c.get("request_first_frame")
        if key in out_calls:
            got[(key, "extra_call")] = f"second call starting in frame {key}: {c.get('method')} {c.get('uri')}"
        else:
            out_calls[key] = row
    want = {c["request_first_frame"]: c for c in label["calls"]}
    for fr, w in want.items():
        o = out_calls.get(fr)
        if o is None:
            got[(fr, "missing_call")] = f"no call starts in frame {fr} ({w['method']} {w['uri']} -> {w['status']})"
            continue
        for f in CALL_FIELDS:
            if f in w and o.get(f) != w[f]:
                got[(fr, f)] = f"{f}: report {o.get(f)!r}, label {w[f]!r}"
    for fr, o in out_calls.items():
        if fr not in want:
            got[(fr, "extra_call")] = f"unlabelled call in frame {fr}: {o.get('method')!r} {o.get('uri')!r} -> {o.get('status')}"
    if len(doc["calls"]) != len(label["calls"]):
        got[(None, "call_count")] = f"{len(doc['calls'])} calls, label has {len(label['calls'])}"
    cap = doc["capture"]
    skipped = cap.get("non_tcp_packets", 0) + cap.get("undecodable_packets", 0)
    if skipped != label["non_tcp_frames"]:
        got[(None, "non_tcp_frames")] = (f"report skipped {skipped} frames as non-TCP/undecodable, "
                                         f"label: {label['non_tcp_frames']} frames are not TCP")
    for t in label.get("tunnels", []):
        ids = [c["id"] for c in doc["connections"] if c["client"] == t["client"] and c["server"] == t["server"]]
        bad = [w for w in cap.get("warnings", []) if w.get("connection") in ids
               and (w.get("frame") is None or w["frame"] > t["after_frame"])]
        if bad:
            got[(None, "tunnel_warnings")] = (f"{len(bad)} warning(s) inside the tunnel after frame "
                                              f"{t['after_frame']}: {bad[0]['message']}")
    for w in label.get("warnings", []):
        a, b = w["frames"]
        n = sum(1 for x in cap.get("warnings", []) if x.get("frame") is not None and a <= x["frame"] <= b)
        if n < w.get("min", 1):
            got[(a, "warning")] = (f"{n} warning(s) naming a frame in {a}-{b}, want at least {w.get('min', 1)}: "
                                   f"{w['why']}")
    for name, msg in check_report(doc):
        got.setdefault((None, name), msg)
    return got


def expand_known(label):
    """-> {(frame or None, field): reason}"""
    known = {}
    for k in label.get("known_wrong", []):
        frames = k.get("frames")
        if frames == "all":
            frames = [c["request_first_frame"] for c in label["calls"]]
        for fr in (frames if frames is not None else [None]):
            known[(fr, k["field"])] = k["reason"]
    return known


def main():
    global MEM_MB
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--only")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--mem-mb", type=int, default=2048, help="address-space limit per run; 0 = none (ASan)")
    a = ap.parse_args()
    MEM_MB = a.mem_mb
    corpus = os.environ.get("STALLSCOPE_PUBLIC_CORPUS") or a.corpus
    if not os.path.isdir(corpus):
        print(f"SKIPPED: public corpus folder {corpus} is absent (set STALLSCOPE_PUBLIC_CORPUS); "
              f"no capture was checked")
        return SKIP
    caps = sorted(os.path.basename(p) for p in glob.glob(os.path.join(corpus, "*.pcap*")))
    labels = sorted(os.path.basename(p)[:-len(".label.json")] for p in glob.glob(os.path.join(LABELS, "*.label.json")))
    problems = []
    stems = {c.rsplit(".", 1)[0]: c for c in caps}
    for s in sorted(set(stems) - set(labels)):
        problems.append(f"{stems[s]}: capture has no label (add testdata/public-http/{s}.label.json)")
    for s in sorted(set(labels) - set(stems)):
        problems.append(f"{s}.label.json: label has no capture in {corpus}")
    if not caps:
        problems.append(f"{corpus} holds no capture")

    print(f"{'capture':46} {'calls':>5} {'ok':>5} {'known':>5} {'new':>4} {'fixed':>5}  classes known wrong")
    for s in sorted(set(stems) & set(labels)):
        if a.only and a.only not in s:
            continue
        label = json.load(open(os.path.join(LABELS, s + ".label.json")))
        if label.get("capture") != stems[s]:
            problems.append(f"{s}.label.json names capture {label.get('capture')!r}, not {stems[s]}")
        doc, err = run_cli(a.cli, os.path.join(corpus, stems[s]))
        if doc is None:
            problems.append(f"{stems[s]}: {err}")
            print(f"{stems[s]:46} {len(label['calls']):5}  FAILED TO RUN")
            continue
        got = compare(label, doc)
        known = expand_known(label)
        new = {k: v for k, v in got.items() if k not in known}
        fixed = {k: v for k, v in known.items() if k not in got}
        bad_frames = {fr for fr, f in got if fr is not None and f not in ("extra_call",)}
        ok_calls = sum(1 for c in label["calls"] if c["request_first_frame"] not in bad_frames)
        classes = ",".join(sorted({f for _, f in known}))
        print(f"{stems[s]:46} {len(label['calls']):5} {ok_calls:5} {len(known):5} {len(new):4} {len(fixed):5}  {classes}")
        for (fr, f), msg in sorted(new.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1])):
            problems.append(f"{stems[s]}: frame {fr}: {msg}" if fr is not None else f"{stems[s]}: {f}: {msg}")
        for (fr, f), why in sorted(fixed.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1])):
            problems.append(f"{stems[s]}: known_wrong {f}" + (f" (frame {fr})" if fr is not None else "") +
                            f" now matches the label: remove it from known_wrong ({why})")
        if a.v:
            for (fr, f), msg in sorted(got.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1])):
                print(f"    {'known' if (fr, f) in known else 'NEW  '} frame {fr}: {msg}")
    if problems:
        print(f"\n{len(problems)} problem(s):")
        for p in problems[:300]:
            print("  " + p)
        return 1
    print("\nall captures as labelled (known mismatches listed in known_wrong)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
