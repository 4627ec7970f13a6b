#!/usr/bin/env python3
"""Independent wire check of a labelled capture (python3 stdlib + tshark).

Counts, per pathology, how many calls (HTTP requests) the capture shows it in, using the
wire signatures of shared/design/PATHOLOGIES.md. make-testdata.sh compares these counts
with the scenario design before it writes a label. This is a test oracle for our own
captures, deliberately simple; it is not StallScope's analyzer.

  wirecheck.py FILE.pcap            -> JSON on stdout
"""
import json
import subprocess
import sys

STALL_MIN_S = 0.015   # an ACK this late is a delayed ACK (Linux: 40 ms min, we saw 40-48)
COUPLING_S = 0.002    # B leaves this soon after the ACK: it was waiting for it (Nagle)
EXPECT_MIN_S = 0.010  # a held body counts as an Expect wait from this long on


def load(path):
    fields = ["frame.number", "frame.time_relative", "tcp.stream", "ip.src", "tcp.srcport", "tcp.len",
              "tcp.flags.syn", "tcp.flags.fin", "tcp.flags.reset", "tcp.seq", "tcp.ack", "tcp.options.mss_val",
              "tcp.payload"]
    cmd = ["tshark", "-r", path, "-o", "tcp.relative_sequence_numbers:TRUE", "-o", "tcp.desegment_tcp_streams:FALSE",
           "-T", "fields", "-E", "separator=\t"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    segs = []
    for line in out.splitlines():
        v = line.split("\t")
        if len(v) < len(fields) or not v[2]:
            continue
        segs.append({
            "frame": int(v[0]), "t": float(v[1]), "stream": int(v[2]), "src": (v[3], int(v[4])),
            "len": int(v[5] or 0), "syn": v[6] in ("1", "True"), "fin": v[7] in ("1", "True"),
            "rst": v[8] in ("1", "True"), "seq": int(v[9] or 0), "ack": int(v[10] or 0),
            "mss": int(v[11].split(",")[0]) if v[11] else 0, "payload": bytes.fromhex(v[12].replace(":", "")),
        })
    return segs


def messages(dir_segs):
    """Splits one direction's byte stream into HTTP messages; returns dicts with the segments each spans."""
    data = b"".join(s["payload"] for s in dir_segs)
    starts, off = [], 0
    for s in dir_segs:
        starts.append(off)
        off += len(s["payload"])
    msgs, pos = [], 0
    while pos < len(data):
        he = data.find(b"\r\n\r\n", pos)
        if he < 0:
            break
        head = data[pos:he].decode("latin-1")
        body_start = he + 4
        lower = head.lower()
        end = body_start
        if "transfer-encoding: chunked" in lower:
            z = data.find(b"\r\n0\r\n\r\n", body_start - 2)
            end = z + 7 if z >= 0 else len(data)
        elif "content-length:" in lower:
            cl = int(lower.split("content-length:")[1].split("\r\n")[0].strip())
            end = body_start + cl
        elif head.startswith("HTTP/") and not head.startswith("HTTP/1.1 100"):
            end = len(data)
        segs = [s for s, st in zip(dir_segs, starts) if st < end and st + len(s["payload"]) > pos]
        msgs.append({"head": head, "pos": pos, "head_end": body_start, "end": end, "segs": segs,
                     "seg_starts": [st for s, st in zip(dir_segs, starts) if st < end and st + len(s["payload"]) > pos]})
        pos = end
    return msgs


def nagle_stalls(ss, client):
    """Nagle/delayed-ACK on one connection's segments: A from S, late pure ACK from R, B from S right after it."""
    out = []
    for i, a in enumerate(ss):
        if a["len"] == 0:
            continue
        rest = ss[i + 1:]
        peer_next = next((s for s in rest if s["src"] != a["src"]), None)
        own_next = next((s for s in rest if s["src"] == a["src"]), None)
        if not peer_next or not own_next or peer_next["len"] > 0 or peer_next["syn"] or peer_next["fin"]:
            continue
        late = peer_next["t"] - a["t"]
        if late >= STALL_MIN_S and own_next["len"] > 0 and 0 <= own_next["t"] - peer_next["t"] <= COUPLING_S:
            out.append({"t": a["t"], "frame_a": a["frame"], "frame_ack": peer_next["frame"], "frame_b": own_next["frame"],
                        "ms": round(late * 1000, 1), "sender": "client" if a["src"] == client else "server"})
    return out


def check(path):
    segs = load(path)
    streams = {}
    for s in segs:
        streams.setdefault(s["stream"], []).append(s)
    calls = []   # (t, stream, request message)
    events = {"nagle_delayed_ack": [], "split_write": [], "expect_100_wait": [], "connection_setup": []}
    stalls = []
    for sid, ss in streams.items():
        syn = next((s for s in ss if s["syn"]), None)
        client = syn["src"] if syn else ss[0]["src"]
        mss = syn["mss"] - 12 if syn and syn["mss"] else 65483 - 12
        by_dir = {}
        for s in ss:
            if s["len"] > 0:
                by_dir.setdefault(s["src"], []).append(s)
        reqs = [m for m in messages(by_dir.get(client, [])) if m["head"].startswith("POST")]
        server = next((k for k in by_dir if k != client), None)
        resps = messages(by_dir.get(server, [])) if server else []
        for r in reqs:
            calls.append((r["segs"][0]["t"], sid, r))
        if syn and len(reqs) == 1:
            events["connection_setup"].append(syn["t"])
        for m in reqs + resps:
            if not m["segs"] or m["end"] <= m["head_end"]:
                continue
            expect = "expect: 100-continue" in m["head"].lower()
            boundary_at_head = any(st == m["head_end"] for st in m["seg_starts"])
            needed = -(-(m["end"] - m["pos"]) // mss)
            small = sum(1 for x in m["segs"] if len(x["payload"]) < min(536, mss // 4))
            if expect:
                body_seg = next((s for s, st in zip(m["segs"], m["seg_starts"]) if st >= m["head_end"]), None)
                head_seg = m["segs"][0]
                got100 = any(x["head"].startswith("HTTP/1.1 100") and head_seg["t"] <= x["segs"][0]["t"] <=
                             (body_seg["t"] if body_seg else 1e9) for x in resps)
                if body_seg and (got100 or body_seg["t"] - head_seg["t"] >= EXPECT_MIN_S):
                    events["expect_100_wait"].append(head_seg["t"])
            # Head/body split that one segment could have carried, or many small writes
            # (flow control can also cut a big message; that leaves full segments, not small ones).
            elif (boundary_at_head and m["end"] - m["pos"] <= mss) or (len(m["segs"]) > needed and small * 2 > len(m["segs"])):
                events["split_write"].append(m["segs"][0]["t"])
        for x in resps:  # a 100 Continue the client did not wait for (MS SOAP) still costs a call
            if x["head"].startswith("HTTP/1.1 100"):
                events["expect_100_wait"].append(x["segs"][0]["t"])
        for st in nagle_stalls(ss, client):
            events["nagle_delayed_ack"].append(st["t"])
            stalls.append({k: v for k, v in st.items() if k != "t"})
    calls.sort(key=lambda c: c[0])
    starts = [c[0] for c in calls]

    def call_of(t):
        k = 0
        for i, st in enumerate(starts):
            if st <= t + 1e-9:
                k = i
        return k

    # A SYN belongs to the call whose request follows it.
    counts = {}
    for name, ts in events.items():
        if name == "connection_setup":
            idx = {min(range(len(starts)), key=lambda i: abs(starts[i] - t)) for t in ts} if starts else set()
        else:
            idx = {call_of(t) for t in ts}
        counts[name] = len(idx)
    return {"file": path, "calls": len(calls), "connections": sum(1 for s in segs if s["syn"] and s["ack"] == 0),
            "pathologies": counts, "stalls": stalls}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: wirecheck.py FILE.pcap")
    print(json.dumps(check(sys.argv[1]), indent=1))
