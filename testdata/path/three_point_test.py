#!/usr/bin/env python3
"""Three-point captures (testdata/path/, made by reference-services/make-path-testdata.sh): the same run
captured at once at the client, on a middle router and at the server must get the same diagnosis.

For every run NAME (NAME.label.json + NAME.{client,middle,server}.pcap), `stallscope-cli analyze --json` of
each capture must give:
  - the capture point named right: "client", "path", "server";
  - the same calls (count, operations, all complete);
  - the same findings by kind and side, and exactly the kinds the configuration causes (the label's
    "pathologies", calls affected): nothing it cannot cause, nothing it caused missed;
  - per call and kind, costs that agree with the client capture's within one round trip;
  - a client-lived latency estimate (middle, server) within one round trip of the latency the client
    capture shows. (Not the client program's own figures in NAME.client.jsonl: on a loaded machine they
    hold user-space delays of the client that no capture can see.)

    three_point_test.py CLI DIR
"""
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

POINTS = {"client": "client", "middle": "path", "server": "server"}
# Findings with no wait of their own that follow from a split the configuration makes.
SPLIT_KINDS = {"split_write"}


def analyze(cli, pcap):
    out = subprocess.run([cli, "analyze", str(pcap), "--json", "--quiet"], capture_output=True, text=True,
                         timeout=120, env={"TZ": "UTC", "LC_ALL": "C"})
    if out.returncode not in (0, 3):  # 3: findings reported
        raise RuntimeError(f"{pcap}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def main():
    cli, folder = sys.argv[1], Path(sys.argv[2])
    labels = sorted(folder.glob("*.label.json"))
    if not labels:
        print(f"no runs in {folder}")
        return 1
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL:", what)

    for label_file in labels:
        label = json.loads(label_file.read_text())
        name = label["name"]
        rtt = label["path"]["round_trip_ms"]
        tol = rtt + 2 * label["path"]["jitter_ms"] + 2  # one round trip, its jitter, scheduling
        design = {k: v for k, v in label["pathologies"].items() if v}
        reports = {p: analyze(cli, folder / f"{name}.{p}.pcap") for p in POINTS}
        at_client = [c["latency_ms"] for c in reports["client"]["calls"]]
        kinds_by_point = {}
        costs = {}
        for point, rep in reports.items():
            tag = f"{name} at the {point}"
            where = rep["capture_point"]["where"]
            check(where == POINTS[point], f"{tag}: capture point {where}, expected {POINTS[point]} "
                                          f"({rep['capture_point']['evidence']})")
            # TTLs count the router between the client's and the server's namespaces:
            # 0 from the sender at its own end, 1 across it, wherever the tap is.
            cp = rep["capture_point"]
            hops = (cp["client_hops"], cp["server_hops"])
            want_hops = {"client": (0, 1), "middle": (0, 1), "server": (1, 0)}[point]
            check(hops == want_hops, f"{tag}: TTL hops {hops}, expected {want_hops} ({cp['evidence']})")
            check("TTLs: the client's packets passed" in cp["evidence"], f"{tag}: evidence without TTLs")
            calls = rep["calls"]
            check(len(calls) == label["calls"], f"{tag}: {len(calls)} calls, the client made {label['calls']}")
            check(all(c["complete"] for c in calls), f"{tag}: incomplete calls")
            by_kind = defaultdict(set)
            cost = defaultdict(float)
            for f in rep["findings"]:
                by_kind[(f["kind"], f["side"])].update(f["calls"])
                for c in f["calls"]:
                    cost[(f["kind"], f["side"], c)] += f["cost_ms"]
            kinds_by_point[point] = {k: len(v) for k, v in by_kind.items()}
            costs[point] = cost
            found = Counter()
            for (kind, _), ids in by_kind.items():
                found[kind] = max(found[kind], len(ids))
            for kind, n in design.items():
                check(found[kind] >= n, f"{tag}: {kind} in {found[kind]} calls, the configuration causes it in {n}")
            for kind in found:
                check(kind in design or kind in SPLIT_KINDS and design.get("nagle_delayed_ack"),
                      f"{tag}: {kind} in {found[kind]} calls, which the configuration cannot cause")
            for i, (c, real) in enumerate(zip(calls, at_client)):
                est = c["client_latency_estimate_ms"]
                check(est is not None and abs(est - real) <= tol,
                      f"{tag}: call {i + 1}: the client lived {est} ms by the estimate, {real} ms at the client")
        for point in ("middle", "server"):
            check(kinds_by_point[point] == kinds_by_point["client"],
                  f"{name}: findings by kind and side at the {point} {kinds_by_point[point]} "
                  f"differ from the client's {kinds_by_point['client']}")
            for key in set(costs[point]) | set(costs["client"]):
                a, b = costs["client"].get(key, 0), costs[point].get(key, 0)
                check(abs(a - b) <= tol, f"{name}: {key} costs {a:.3f} ms at the client, {b:.3f} ms at the {point}")
        print(f"{name}: {kinds_by_point['client']}")
    print(f"{len(labels)} runs, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
