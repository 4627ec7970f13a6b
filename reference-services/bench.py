#!/usr/bin/env python3
"""Benchmark driver: runs a matrix profile x op x size through run-scenario.sh with capture on
and prints a table like the seed's Tables I-VI (client median and p90 latency per row).
Each run leaves OUT/<profile>_<op>_<size>.{pcap,client.jsonl,label.json}; the table is also
written to OUT/results.md and OUT/results.json.

  bench.py [--profiles gsoap,xsoap,apache-soap] [--ops doNothing,getString] [--sizes 10]
           [--calls 10] [--out DIR] [--build DIR] [--netns] [--delack]
           [--server-args "..."] [--client-args "..."] [--max-seconds 600]
  bench.py --compare-fix apache-soap [--delack] ...   # PROFILE vs PROFILE-fixed, same matrix

python3 stdlib only; needs root (tcpdump). Every run is bounded (calls, per-call timeout, total time).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import wirecheck  # noqa: E402


def p90(xs):
    s = sorted(xs)
    return s[max(0, -(-len(s) * 9 // 10) - 1)]  # nearest rank


def run_one(a, profile, op, size, out_dir):
    stem = os.path.join(out_dir, f"{profile}_{op}_{size}")
    server_args = a.server_args + (" --delack" if a.delack else "")
    client_args = a.client_args + (" --delack" if a.delack else "")
    cmd = [os.path.join(HERE, "run-scenario.sh"), "--profile", profile, "--op", op, "--size", str(size),
           "--calls", str(a.calls), "--out", stem, "--build", a.build, "--timeout-s", str(a.timeout_s),
           "--server-args", server_args.strip(), "--client-args", client_args.strip(),
           "--description", f"bench.py run: {profile} {op} size {size}"]
    if a.netns:
        cmd.append("--netns")
    limit = a.calls * a.timeout_s + 60
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = -1, f"timed out after {limit} s"
    row = {"profile": profile, "op": op, "size": size, "calls": a.calls, "rc": rc, "capture": stem + ".pcap"}
    try:
        lat = [json.loads(l)["latency_ms"] for l in open(stem + ".client.jsonl") if l.strip()]
    except OSError:
        lat = []
    row["latencies_ms"] = lat
    row["ok"] = rc == 0 and len(lat) == a.calls
    if lat:
        row.update(median_ms=statistics.median(lat), p90_ms=p90(lat), min_ms=min(lat), max_ms=max(lat))
    if not row["ok"]:
        row["error"] = err.strip().splitlines()[-1] if err.strip() else f"exit {rc}"
    try:
        w = wirecheck.check(stem + ".pcap")
        row["wire"] = w["pathologies"]
        row["connections"] = w["connections"]
    except Exception as e:  # a broken capture must not stop the matrix
        row["wire_error"] = str(e)
    return row


def fmt(v):
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def table(rows, compare):
    head = ["profile", "op", "size", "calls", "median ms", "p90 ms", "conns", "stalled calls", "ok"]
    if compare:
        head += ["fixed median ms", "fixed p90 ms", "speedup"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["profile"], r["op"], r["size"], r["calls"], r.get("median_ms", "-"), r.get("p90_ms", "-"),
                 r.get("connections", "-"), r.get("wire", {}).get("nagle_delayed_ack", "-"),
                 "yes" if r["ok"] else "NO: " + r.get("error", "")]
        if compare:
            f = r.get("fixed", {})
            sp = (r["median_ms"] / f["median_ms"]) if r.get("median_ms") and f.get("median_ms") else None
            cells += [f.get("median_ms", "-"), f.get("p90_ms", "-"), f"{sp:.1f}x" if sp else "-"]
        lines.append("| " + " | ".join(fmt(c) for c in cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profiles", default="gsoap,xsoap,apache-soap")
    ap.add_argument("--ops", default="doNothing,getString")
    ap.add_argument("--sizes", default="10")
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--out", default=None)
    ap.add_argument("--build", default=os.environ.get("STALLSCOPE_BUILD", os.path.join(REPO, "build")))
    ap.add_argument("--netns", action="store_true", help="two namespaces joined by a veth, MTU 1500")
    ap.add_argument("--delack", action="store_true", help="Windows-like delayed-ACK receivers on both sides")
    ap.add_argument("--server-args", default="")
    ap.add_argument("--client-args", default="")
    ap.add_argument("--timeout-s", type=int, default=10, help="per call")
    ap.add_argument("--max-seconds", type=int, default=600, help="stop starting new runs after this")
    ap.add_argument("--compare-fix", metavar="PROFILE", help="run PROFILE and PROFILE-fixed and compare")
    a = ap.parse_args()
    if not 1 <= a.calls <= 10000:
        ap.error("--calls must be 1..10000")
    try:
        sizes = [int(s) for s in a.sizes.split(",") if s]
    except ValueError:
        ap.error("--sizes must be comma-separated integers")
    ops = [o for o in a.ops.split(",") if o]
    profiles = [a.compare_fix] if a.compare_fix else [p for p in a.profiles.split(",") if p]
    if a.compare_fix and a.compare_fix.endswith("-fixed"):
        ap.error("--compare-fix takes the base profile name, e.g. apache-soap")
    for b in ("stallscope-refserver", "stallscope-refclient"):
        if not os.access(os.path.join(a.build, "reference-services", b), os.X_OK):
            sys.exit(f"bench: {b} not found under {a.build}/reference-services (use --build or STALLSCOPE_BUILD)")
    out = a.out or os.path.join(os.getcwd(), time.strftime("bench-%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)

    deadline = time.monotonic() + a.max_seconds
    rows, skipped = [], 0
    for prof in profiles:
        for op in ops:
            for size in sizes:
                if time.monotonic() > deadline:
                    skipped += 1
                    continue
                r = run_one(a, prof, op, size, out)
                if a.compare_fix:
                    r["fixed"] = run_one(a, prof + "-fixed", op, size, out)
                rows.append(r)
                print(f"bench: {prof} {op} {size}: median {r.get('median_ms', float('nan')):.2f} ms"
                      + (f", fixed {r['fixed'].get('median_ms', float('nan')):.2f} ms" if a.compare_fix else ""),
                      file=sys.stderr)
    t = table(rows, bool(a.compare_fix))
    env = "netns veth MTU 1500" if a.netns else "loopback"
    title = f"{'compare-fix ' + a.compare_fix if a.compare_fix else 'bench'}: {env}" + \
        (", delayed-ACK receivers (--delack)" if a.delack else "") + f", {a.calls} calls per row"
    print(f"{title}\n\n{t}")
    if skipped:
        print(f"\n(bench: {skipped} runs skipped: --max-seconds {a.max_seconds} reached)")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(f"{title}\n\n{t}\n")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"title": title, "rows": rows}, f, indent=1)
    print(f"\nbench: captures, latencies and labels in {out}", file=sys.stderr)
    return 0 if all(r["ok"] and r.get("fixed", {"ok": True})["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
