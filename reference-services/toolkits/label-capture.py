#!/usr/bin/python3
"""Reads a loopback capture of one toolkit scenario (via tshark) and writes its label JSON.

The pathology counts come from the capture alone (not from what the scenario is supposed
to do): the TCP streams to --port are reassembled per direction, split into HTTP/1.x
messages (Content-Length / chunked / 1xx), paired into calls, and each call is checked for
  nagle_delayed_ack  a data segment A, the peer's pure ACK of A >= 15 ms later with no peer
                     data in between, and the sender's next segment B of the same call
                     <= 2 ms after that ACK (B waited for the ACK);
  split_write        a message that fits in one MSS but left in 2+ segments (headers and
                     body apart, or many small writes, possibly coalesced by Nagle), or a
                     bigger message in 2+ more segments than ceil(size/MSS);
                     a request with Expect: 100-continue is judged on its body only;
  expect_100_wait    a request with Expect: 100-continue whose body left in a later
                     segment than its headers (the client waited for 100 or its timer);
  connection_setup   calls whose TCP connection carried only that call (when calls > 1).
Calls are POST requests with their responses; other requests (a WSDL GET) are left out, and
"connections" counts the connections that carried at least one call.
Evidence (frame numbers, gaps) goes to stderr and into the description.
"""
import argparse
import json
import math
import subprocess
import sys

NAGLE_MIN_ACK_DELAY = 0.015   # s; Linux delayed ACK is >= 40 ms, quick ACKs are microseconds
NAGLE_MAX_ACK_TO_DATA = 0.002  # s; data released by an ACK leaves at once on loopback

FIELDS = ["frame.number", "frame.time_relative", "tcp.stream", "tcp.srcport", "tcp.dstport",
          "tcp.seq", "tcp.ack", "tcp.len", "tcp.flags", "tcp.options.mss_val", "tcp.payload"]


def read_frames(pcap):
    cmd = ["tshark", "-r", pcap, "-n", "-o", "tcp.relative_sequence_numbers:TRUE",
           "-Y", "tcp", "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    frames = []
    for line in out.splitlines():
        p = line.split("\t")
        if len(p) < len(FIELDS):
            continue
        frames.append({
            "no": int(p[0]), "t": float(p[1]), "stream": int(p[2]), "sport": int(p[3]),
            "dport": int(p[4]), "seq": int(p[5] or 0), "ack": int(p[6] or 0), "len": int(p[7] or 0),
            "flags": int(p[8], 16), "mss": int(p[9]) if p[9] else None,
            "payload": bytes.fromhex(p[10].replace(":", "")) if p[10] else b""})
    return frames


def parse_messages(data, is_response):
    """Splits one direction's byte stream into HTTP messages: dicts with offsets and headers."""
    msgs, pos = [], 0
    while pos < len(data):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            break
        head = data[pos:end].decode("latin-1").split("\r\n")
        start_line, headers = head[0], {}
        for h in head[1:]:
            if ":" in h:
                k, v = h.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        hdr_end = end + 4
        body_end = hdr_end
        code = None
        if is_response:
            parts = start_line.split(" ")
            code = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        if code is not None and 100 <= code < 200:
            body_end = hdr_end
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            p = hdr_end
            while True:
                le = data.find(b"\r\n", p)
                if le < 0:
                    p = len(data); break
                size = int(data[p:le].split(b";")[0].strip() or b"0", 16)
                p = le + 2 + size + 2
                if size == 0:
                    break
            body_end = min(p, len(data))
        elif "content-length" in headers:
            body_end = min(hdr_end + int(headers["content-length"]), len(data))
        elif is_response:
            body_end = len(data)  # delimited by close
        msgs.append({"start": pos, "hdr_end": hdr_end, "end": body_end, "line": start_line,
                     "headers": headers, "code": code})
        pos = body_end
    return msgs


def direction_stream(segs):
    """In-order data segments (retransmissions dropped) and their byte offsets."""
    data, kept, nxt = bytearray(), [], None
    for s in sorted(segs, key=lambda s: s["no"]):
        if s["len"] == 0:
            continue
        if nxt is not None and s["seq"] < nxt:
            continue  # retransmission or overlap
        s["off"] = len(data)
        data += s["payload"]
        kept.append(s)
        nxt = s["seq"] + s["len"]
    return bytes(data), kept


def segs_of(kept, a, b):
    return [s for s in kept if s["off"] < b and s["off"] + s["len"] > a]


def analyze(frames, port):
    streams = {}
    for f in frames:
        streams.setdefault(f["stream"], []).append(f)
    calls, evidence = [], []
    for sid in sorted(streams):
        fr = streams[sid]
        c2s = [f for f in fr if f["dport"] == port]
        s2c = [f for f in fr if f["sport"] == port]
        mss = min([f["mss"] for f in fr if f["mss"]] or [65483])
        cdata, ckept = direction_stream(c2s)
        sdata, skept = direction_stream(s2c)
        reqs = parse_messages(cdata, False)
        resps = parse_messages(sdata, True)
        finals = [r for r in resps if not (r["code"] and 100 <= r["code"] < 200)]
        interim = [r for r in resps if r["code"] and 100 <= r["code"] < 200]
        for i, rq in enumerate(reqs):
            rq["segs"] = segs_of(ckept, rq["start"], rq["end"])
            call = {"stream": sid, "req": rq, "resp": None, "interim": [], "mss": mss}
            if i < len(finals):
                rs = finals[i]
                rs["segs"] = segs_of(skept, rs["start"], rs["end"])
                call["resp"] = rs
            calls.append(call)
        # 1xx responses belong to the call whose request they follow in time
        for r in interim:
            r["segs"] = segs_of(skept, r["start"], r["end"])
            t = r["segs"][0]["t"] if r["segs"] else 0
            mine = [c for c in calls if c["stream"] == sid and c["req"]["segs"] and c["req"]["segs"][0]["t"] <= t]
            if mine:
                mine[-1]["interim"].append(r)
        for c in calls:
            if c["stream"] == sid:
                c["frames"] = fr
    # SOAP calls are POSTs; a WSDL fetch (GET ?wsdl) before the timed calls is not a call
    calls = [c for c in calls if c["req"]["line"].startswith("POST ")]
    calls.sort(key=lambda c: c["req"]["segs"][0]["no"] if c["req"]["segs"] else 0)
    per_stream = {}
    for c in calls:
        per_stream[c["stream"]] = per_stream.get(c["stream"], 0) + 1

    counts = {"nagle_delayed_ack": 0, "split_write": 0, "expect_100_wait": 0, "connection_setup": 0}
    for n, c in enumerate(calls, 1):
        rq, rs = c["req"], c["resp"]
        # expect_100_wait
        expect = "100-continue" in rq["headers"].get("expect", "").lower()
        if expect and rq["end"] > rq["hdr_end"] and rq["segs"]:
            hseg = segs_of(rq["segs"], rq["hdr_end"] - 1, rq["hdr_end"])[0]
            bseg = segs_of(rq["segs"], rq["hdr_end"], rq["hdr_end"] + 1)
            if bseg and bseg[0]["no"] != hseg["no"]:
                counts["expect_100_wait"] += 1
                evidence.append("call %d: Expect: 100-continue headers in frame %d, body from frame %d %.1f ms later%s"
                                % (n, hseg["no"], bseg[0]["no"], (bseg[0]["t"] - hseg["t"]) * 1e3,
                                   " after a 100 Continue" if c["interim"] else " with no 100 Continue"))
        # split_write
        split = False
        for m, who in ((rq, "request"), (rs, "response")):
            if not m or not m["segs"]:
                continue
            size = m["end"] - m["start"]
            segs = m["segs"]
            if m is rq and expect:
                segs = segs_of(segs, m["hdr_end"], m["end"])
                size = m["end"] - m["hdr_end"]
            if not segs or size <= 0:
                continue
            need = math.ceil(size / c["mss"])
            if (size <= c["mss"] and len(segs) > 1) or len(segs) >= need + 2:
                split = True
                evidence.append("call %d: %s of %d bytes in %d segments (frames %s; sizes %s)"
                                % (n, who, size, len(segs), ",".join(str(s["no"]) for s in segs[:8]),
                                   ",".join(str(s["len"]) for s in segs[:8])))
        counts["split_write"] += split
        # nagle_delayed_ack: both directions inside this call
        nagle = False
        msgs = [m for m in [rq] + c["interim"] + ([rs] if rs else []) if m.get("segs")]
        for sender_is_client in (True, False):
            mine = sorted({s["no"]: s for m in msgs for s in m["segs"]
                           if (s["dport"] == port) == sender_is_client}.values(), key=lambda s: s["no"])
            for a, b in zip(mine, mine[1:]):
                peer = [f for f in c["frames"] if (f["dport"] == port) != sender_is_client
                        and a["no"] < f["no"] < b["no"]]
                acks = [f for f in peer if f["len"] == 0 and f["ack"] >= a["seq"] + a["len"] and not f["flags"] & 0x02]
                if not acks:
                    continue
                ack = acks[0]
                if any(f["len"] > 0 and f["no"] < ack["no"] for f in peer):
                    continue
                if ack["t"] - a["t"] >= NAGLE_MIN_ACK_DELAY and b["t"] - ack["t"] <= NAGLE_MAX_ACK_TO_DATA:
                    nagle = True
                    evidence.append("call %d: %s segment frame %d (%d B), peer's pure ACK frame %d after %.1f ms, "
                                    "next segment frame %d %.3f ms after the ACK"
                                    % (n, "client" if sender_is_client else "server", a["no"], a["len"],
                                       ack["no"], (ack["t"] - a["t"]) * 1e3, b["no"], (b["t"] - ack["t"]) * 1e3))
        counts["nagle_delayed_ack"] += nagle
        if len(calls) > 1 and per_stream[c["stream"]] == 1:
            counts["connection_setup"] += 1
    versions = sorted({c["req"]["line"].rsplit(" ", 1)[-1] for c in calls})
    resp_versions = sorted({c["resp"]["line"].split(" ", 1)[0] for c in calls if c["resp"]})
    connections = len({c["stream"] for c in calls})  # connections that carried a call
    return calls, counts, evidence, versions, resp_versions, connections


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--latencies", required=True, help="the scenario's JSON-lines stdout")
    ap.add_argument("--name", required=True)
    ap.add_argument("--made-by", required=True)
    ap.add_argument("--description", required=True)
    ap.add_argument("--client", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    lat = []
    with open(a.latencies) as f:
        for line in f:
            line = line.strip()
            if line:
                lat.append(round(float(json.loads(line)["latency_ms"]), 3))
    calls, counts, evidence, versions, resp_versions, connections = analyze(read_frames(a.pcap), a.port)
    if len(calls) != len(lat):
        sys.exit("label-capture: %d calls in the capture but %d client latencies" % (len(calls), len(lat)))
    if any(c["resp"] is None for c in calls):
        sys.exit("label-capture: a request without a response in the capture")
    desc = a.description
    if resp_versions and resp_versions != versions:
        desc += " Responses are %s." % "/".join(resp_versions)
    desc += " Found in the capture: " + ("; ".join(evidence) if evidence else "no stall, no split write") + "."
    label = {
        "name": a.name, "made_by": a.made_by, "description": desc, "transport": "loopback",
        "client": a.client, "server": a.server, "calls": len(calls), "connections": connections,
        "http_version": "/".join(versions), "client_latencies_ms": lat, "pathologies": counts}
    with open(a.out, "w") as f:
        json.dump(label, f, indent=2)
        f.write("\n")
    for e in evidence:
        print("  " + e, file=sys.stderr)
    print("%s: calls=%d connections=%d http=%s %s" % (a.name, len(calls), connections, "/".join(versions),
                                                       json.dumps(counts)), file=sys.stderr)


if __name__ == "__main__":
    main()
