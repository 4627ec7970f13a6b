#!/usr/bin/env python3
"""Cross-checks stallscope-cli against tshark on every bundled capture.

For each capture, both tools must see the same HTTP requests (method, in
order) and the same responses (status codes, 1xx included, in order) on
each TCP connection. tshark numbers connections by tcp.stream in order of
first packet, as StallScope numbers its connections (id = stream + 1).
TLS connections StallScope did not decrypt (tls.decrypted false: calls from
records, method and status unknown) are left out on both sides; tshark
decrypts a pcapng's embedded secrets by itself.

usage: tshark_crosscheck.py STALLSCOPE_CLI TESTDATA_DIR
"""
import glob
import json
import os
import subprocess
import sys
from collections import defaultdict


def stallscope_view(cli, path):
    out = subprocess.run([cli, "analyze", path, "--json", "--quiet"], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"{path}: stallscope-cli exit {out.returncode}: {out.stderr.strip()}")
    doc = json.loads(out.stdout)
    req, resp, ports = defaultdict(list), defaultdict(list), set()
    opaque = set()
    for conn in doc["connections"]:
        if conn["http"] and "tls" not in conn:  # tshark finds TLS (and decrypts embedded secrets) by itself
            ports.add(conn["server"].rsplit(":", 1)[1])
        if "tls" in conn and not conn["tls"]["decrypted"]:
            opaque.add(conn["id"])
    for call in doc["calls"]:
        cid = call["connection_id"]
        if cid in opaque:
            continue
        req[cid].append(call["method"])
        if call["got_continue"]:
            resp[cid].append(100)
        if call["status"] is not None:
            resp[cid].append(call["status"])
    return req, resp, ports, opaque


def tshark_view(path, ports):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=|", "-o", "tcp.desegment_tcp_streams:TRUE",
           "-e", "tcp.stream", "-e", "http.request.method", "-e", "http.response.code"]
    for p in sorted(ports):
        cmd += ["-d", f"tcp.port=={p},http"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": "/tmp"})
    if out.returncode != 0:
        raise RuntimeError(f"{path}: tshark failed: {out.stderr.strip()}")
    req, resp = defaultdict(list), defaultdict(list)
    for line in out.stdout.splitlines():
        stream, methods, codes = (line.split("|") + ["", ""])[:3]
        if not stream:
            continue
        cid = int(stream) + 1
        req[cid] += [m for m in methods.split(",") if m]
        resp[cid] += [int(c) for c in codes.split(",") if c]
    return req, resp


def main():
    cli, testdata = sys.argv[1], sys.argv[2]
    captures = sorted(glob.glob(os.path.join(testdata, "*.pcap")) + glob.glob(os.path.join(testdata, "*.pcapng")))
    if not captures:
        sys.exit(f"FAIL: no captures in {testdata}")
    failures = 0
    for path in captures:
        s_req, s_resp, ports, opaque = stallscope_view(cli, path)
        t_req, t_resp = tshark_view(path, ports)
        for cid in opaque:
            t_req.pop(cid, None)
            t_resp.pop(cid, None)
        name = os.path.basename(path)
        problems = []
        for cid in sorted(set(s_req) | set(t_req)):
            if s_req.get(cid, []) != t_req.get(cid, []):
                problems.append(f"connection {cid}: requests stallscope={s_req.get(cid, [])} tshark={t_req.get(cid, [])}")
        for cid in sorted(set(s_resp) | set(t_resp)):
            if s_resp.get(cid, []) != t_resp.get(cid, []):
                problems.append(f"connection {cid}: responses stallscope={s_resp.get(cid, [])} tshark={t_resp.get(cid, [])}")
        calls = sum(len(v) for v in s_req.values())
        if problems:
            failures += 1
            print(f"FAIL {name}")
            for p in problems[:10]:
                print("   ", p)
        else:
            print(f"ok   {name}: {calls} requests on {len(s_req)} connections agree with tshark")
    print(f"{len(captures) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
