"""What every `stallscope-cli analyze --json` report must satisfy, whatever the input.

Shared by public_corpus_test.py (real captures) and mutation_property_test.py
(mutated captures). Each check returns (invariant-name, message) pairs; the
names are stable so expected-failure lists can refer to them.
"""

EPS = 0.0015  # ms: JSON rounds times to 3 decimals


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_report(doc):
    out = []
    cap = doc.get("capture", {})
    duration = cap.get("duration_ms")
    if not _num(duration) or duration < 0:
        out.append(("capture_duration", f"capture.duration_ms is {duration!r}"))
        return out
    hi = duration + EPS

    def inside(name, v, what):
        if v is None:
            return
        if not _num(v) or v < -EPS or v > hi:
            out.append((name, f"{what} = {v!r} not in [0, {duration}]"))

    packets = cap.get("packets")

    def frame_in(name, v, what, none_ok=True):
        """A frame number names a frame of the capture: 1..packets (0 = none, where allowed)."""
        if v is None or (none_ok and v == 0) or not _num(packets):
            return
        if not isinstance(v, int) or v < 1 or v > packets:
            out.append((name, f"{what} = {v!r} not a frame of the capture (1..{packets})"))

    conns = {c["id"]: c for c in doc.get("connections", [])}
    for c in conns.values():
        inside("handshake_bounds", c.get("handshake_ms"), f"connection {c['id']} handshake_ms")

    for c in conns.values():
        frame_in("frame_bounds", c.get("first_frame"), f"connection {c['id']} first_frame", none_ok=False)
        frame_in("frame_bounds", c.get("last_frame"), f"connection {c['id']} last_frame", none_ok=False)

    calls = {c["id"]: c for c in doc.get("calls", [])}
    for c in calls.values():
        cid = c["id"]
        # A call is a request seen in the capture: its first frame is one of the capture's.
        frame_in("frame_bounds", c.get("request_first_frame"), f"call {cid} request_first_frame", none_ok=False)
        frame_in("frame_bounds", c.get("response_last_frame"), f"call {cid} response_last_frame")
        for side in ("request", "response"):
            m = c.get(side) or {}
            for k in ("first_frame", "last_frame"):
                frame_in("frame_bounds", m.get(k), f"call {cid} {side}.{k}")  # 0: no byte attributed
        for p in c.get("phases", []):
            for k in ("start_frame", "end_frame"):
                frame_in("frame_bounds", p.get(k), f"call {cid} phase {p.get('phase')} {k}")
        if not c.get("method") and not c.get("encrypted"):  # a keyless HTTPS call has no method to read
            out.append(("empty_method", f"call {cid} has an empty method"))
        lat = c.get("latency_ms")
        inside("latency_bounds", lat, f"call {cid} latency_ms")
        inside("call_start_bounds", c.get("start_ms"), f"call {cid} start_ms")
        if c.get("complete") and lat is None:
            out.append(("complete_without_latency", f"call {cid} complete with latency null"))
        start = c.get("start_ms")
        end = start + lat if _num(start) and _num(lat) else duration
        prev = None
        for p in c.get("phases", []):
            ps, pd, name = p.get("start_ms"), p.get("duration_ms"), p.get("phase")
            if not _num(pd) or pd < -EPS:
                out.append(("phase_negative", f"call {cid} phase {name} duration_ms {pd!r}"))
                continue
            if not _num(ps):
                out.append(("phase_bounds", f"call {cid} phase {name} start_ms {ps!r}"))
                continue
            if name in ("connect", "tls_handshake", "close"):
                lo_b, hi_b = -EPS, hi   # outside the call's latency by definition, inside the capture
            else:
                lo_b = (start if _num(start) else 0) - EPS
                hi_b = end + EPS
            if ps < lo_b or ps + pd > hi_b:
                out.append(("phase_bounds", f"call {cid} phase {name} [{ps}, {ps + pd}] outside "
                                            f"[{lo_b + EPS:.3f}, {hi_b - EPS:.3f}]"))
            if prev is not None and ps < prev - EPS:
                out.append(("phase_order", f"call {cid} phase {name} starts at {ps} before the previous phase ({prev})"))
            prev = ps

    for i, f in enumerate(doc.get("findings", [])):
        what = f"finding {i + 1} ({f.get('kind')})"
        for fr in f.get("frames", []):
            frame_in("frame_bounds", fr, what + " frame", none_ok=False)
        s, e, cost = f.get("start_ms"), f.get("end_ms"), f.get("cost_ms")
        inside("finding_bounds", s, what + " start_ms")
        inside("finding_bounds", e, what + " end_ms")
        if _num(s) and _num(e) and e < s - EPS:
            out.append(("finding_bounds", f"{what} ends ({e}) before it starts ({s})"))
        if not _num(cost) or cost < -EPS:
            out.append(("cost_bounds", f"{what} cost_ms {cost!r}"))
            continue
        charged = [calls[c] for c in f.get("calls", []) if c in calls]
        if f.get("kind") in ("connection_setup", "tls_resumption_missing", "tls_certificate_flight"):  # setup kinds (call_ledger.h)
            # The handshake lies before the call's first request byte: it is
            # charged to the call but bounded by the connection's handshake.
            conn = conns.get(f.get("connection_id"), {})
            hs = conn.get("handshake_ms")
            tls_hs = (conn.get("tls") or {}).get("handshake_ms")  # the TLS handshake is setup too
            if _num(hs) and _num(tls_hs):
                hs += max(tls_hs, 0)
            limit = hs if _num(hs) else duration
            why = "its connection's handshake_ms (TCP + TLS)" if _num(hs) else "the capture's duration"
        elif charged and all(_num(c.get("latency_ms")) and -EPS <= c["latency_ms"] <= hi for c in charged):
            # (an impossible latency is reported as latency_bounds; the cost is then held to the capture)
            limit = sum(c["latency_ms"] for c in charged)
            why = "the latency of the calls it is charged to"
        else:
            limit, why = duration, "the capture's duration"
        if cost > limit + EPS * max(1, len(charged)):
            out.append(("cost_bounds", f"{what} cost_ms {cost} > {limit:.3f} ({why})"))

    summ = doc.get("summary", {})
    groups = [("overall", summ.get("overall") or {})] + [
        (g.get("operation", "?"), g) for g in summ.get("per_operation", [])]
    for name, g in groups:
        for k in ("median_ms", "p90_ms", "max_ms", "mean_ms", "predicted_median_ms"):
            inside("summary_bounds", g.get(k), f"summary {name} {k}")
        for lost in g.get("lost", []):
            sh = lost.get("share")
            if _num(sh) and (sh < -1e-9 or sh > 1.0 + 1e-4):
                out.append(("share_bounds", f"summary {name} {lost.get('kind')} share {sh} (> 100%)"))
            if _num(lost.get("lost_ms")) and lost["lost_ms"] < -EPS:
                out.append(("share_bounds", f"summary {name} {lost.get('kind')} lost_ms {lost['lost_ms']}"))
    return out
