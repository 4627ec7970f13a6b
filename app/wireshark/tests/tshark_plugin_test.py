#!/usr/bin/env python3
"""tshark loads stallscope.so and marks the same findings as stallscope-cli.

usage: tshark_plugin_test.py TSHARK PLUGIN_SO STALLSCOPE_CLI CAPTURE_OR_DIR...
       tshark_plugin_test.py --keyed TSHARK PLUGIN_SO STALLSCOPE_CLI DIR...
       tshark_plugin_test.py --survive TSHARK PLUGIN_SO CAPTURE_OR_DIR...
(a directory stands for its *.pcap and *.pcapng files)

--keyed: the captures NAME.pcap of DIR with a key log NAME.keys beside them;
tshark runs with -o tls.keylog_file:NAME.keys and the reference is
`stallscope-cli analyze --keylog NAME.keys`: the plugin decrypts with the key log
Wireshark is configured with, so the calls carry their SOAP operations.

--survive: damaged and hostile captures; tshark -2 with the plugin must not
die from a signal (tshark's own exit status for damaged files is accepted).
Captures named *gzip-bomb* are skipped: Wireshark's own HTTP dissector spends
about 90 s inflating them, with or without the plugin.

For each capture: `stallscope-cli analyze --json` is the reference; tshark -2
with the plugin must show, per finding, the same kind on exactly the same
evidence frames, one StallScope expert warning per finding (on its first
evidence frame), and each call's id and SOAP operation on its first request
frame. A one-pass run must show no StallScope data (findings need -2).

As root tshark ignores WIRESHARK_PLUGIN_DIR and personal plugin folders, so
tshark runs as `nobody` (setpriv) with HOME and WIRESHARK_PLUGIN_DIR in a
world-readable temporary directory holding <dir>/4.0/epan/stallscope.so and
copies of the captures.
"""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 120  # seconds per tshark/CLI run
AGG = "\x1f"   # field aggregator: never appears in finding kinds or fix texts
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


class Tshark:
    def __init__(self, tshark, plugin_so, workdir):
        self.tshark = tshark
        self.plugin_dir = os.path.join(workdir, "plugins")
        epan = os.path.join(self.plugin_dir, "4.0", "epan")
        os.makedirs(epan)
        shutil.copy(plugin_so, os.path.join(epan, "stallscope.so"))
        self.home = os.path.join(workdir, "home")
        os.makedirs(self.home)
        os.chmod(self.home, 0o777)
        for d, _, files in os.walk(workdir):
            os.chmod(d, 0o777 if d == self.home else 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
        os.chmod(workdir, 0o755)

    def run(self, args, check=True):
        env = dict(os.environ, HOME=self.home, WIRESHARK_PLUGIN_DIR=self.plugin_dir, LC_ALL="C.UTF-8")
        cmd = [self.tshark] + args
        if os.geteuid() == 0:
            cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT, cwd=self.home,
                           errors="replace")
        if not check:
            return p
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[:500]}")
        return p.stdout


def split(v):
    return [x for x in v.split(AGG)] if v else []


def check_capture(ts, cli, capture, keylog=None):
    name = os.path.basename(capture)
    key_args = ["--keylog", keylog] if keylog else []
    ref = json.loads(subprocess.run([cli, "analyze", "--json", "--quiet", capture] + key_args, capture_output=True,
                                    text=True, timeout=TIMEOUT, check=True).stdout)
    if keylog and any(c.get("encrypted") for c in ref["calls"]):
        fail(f"{name}: the CLI did not decrypt every call with {os.path.basename(keylog)}")
    fields = ["frame.number", "stallscope.call", "stallscope.operation", "stallscope.finding_id",
              "stallscope.finding", "_ws.expert.message", "stallscope.cost_ms", "stallscope.counted_ms"]
    args = ["-r", capture, "-2", "-Y", "stallscope", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
            "-E", "aggregator=" + AGG]
    if keylog:
        args = ["-o", "tls.keylog_file:" + keylog] + args
    for f in fields:
        args += ["-e", f]
    out = ts.run(args)

    calls_at = {}                                # frame -> (call, operation)
    finding_frames = collections.defaultdict(set)  # finding id -> frames
    finding_kind = {}
    finding_ms = {}                              # finding id -> (cost_ms, counted_ms) as tshark shows them
    expert_frames = collections.Counter()        # frame -> StallScope warnings on it
    rows = 0
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) != len(fields):
            fail(f"{name}: bad tshark row {line!r}")
            continue
        rows += 1
        frame = int(cols[0])
        calls_at[frame] = (cols[1], cols[2])
        ids, kinds = split(cols[3]), split(cols[4])
        if len(ids) != len(kinds):
            fail(f"{name}: frame {frame}: {len(ids)} finding ids but {len(kinds)} kinds")
        costs, counted = split(cols[6]), split(cols[7])
        if not (len(costs) == len(counted) == len(ids)):
            fail(f"{name}: frame {frame}: {len(ids)} findings, {len(costs)} cost_ms, {len(counted)} counted_ms")
        for i, k, c, n in zip(ids, kinds, costs, counted):
            finding_frames[int(i)].add(frame)
            if finding_kind.setdefault(int(i), k) != k:
                fail(f"{name}: finding {i} is {finding_kind[int(i)]} and {k}")
            finding_ms.setdefault(int(i), (float(c), float(n)))
        expert_frames[frame] += sum(1 for m in split(cols[5]) if m.startswith("StallScope "))

    # Findings: same kinds on the same evidence frames, nothing more.
    want_frames = {i + 1: set(f["frames"]) for i, f in enumerate(ref["findings"])}
    want_kind = {i + 1: f["kind"] for i, f in enumerate(ref["findings"])}
    if finding_kind != want_kind:
        fail(f"{name}: findings differ: tshark {sorted(finding_kind.items())} cli {sorted(want_kind.items())}")
    for i, frames in want_frames.items():
        if finding_frames.get(i, set()) != frames:
            fail(f"{name}: finding {i} ({want_kind[i]}) frames: tshark {sorted(finding_frames.get(i, []))} "
                 f"cli {sorted(frames)}")
    # The same numbers as the report: each finding's cost and counted part,
    # and per kind the counted parts add up to the summary's lost_ms (the
    # call ledger's total), not to a sum of costs.
    for i, f in enumerate(ref["findings"], 1):
        if i not in finding_ms:
            continue
        cost, counted = finding_ms[i]
        if abs(cost - f["cost_ms"]) > 0.0006 or abs(counted - f["counted_ms"]) > 0.0006:
            fail(f"{name}: finding {i} ({f['kind']}): tshark cost/counted {cost:.4f}/{counted:.4f} ms, "
                 f"cli {f['cost_ms']}/{f['counted_ms']} ms")
    by_kind = collections.defaultdict(float)
    for i, (cost, counted) in finding_ms.items():
        by_kind[finding_kind[i]] += counted
    for loss in ref["summary"]["overall"]["lost"]:
        if loss["kind"] == "connection_setup":
            continue  # a handshake is not in a complete call's partition; summary counts complete calls only
        of_kind = [f for f in ref["findings"] if f["kind"] == loss["kind"]]
        # Comparable when tshark shows every one (it has frames) and all its calls are complete.
        comparable = all(f["frames"] and all(c_ok(ref, c) for c in f["calls"]) for f in of_kind)
        if comparable and abs(by_kind.get(loss["kind"], 0.0) - loss["lost_ms"]) > 0.001 * (len(of_kind) + 1):
            fail(f"{name}: {loss['kind']}: tshark counted_ms add up to {by_kind.get(loss['kind'], 0.0):.3f} ms, "
                 f"the summary's lost_ms is {loss['lost_ms']}")
    want_expert = collections.Counter(min(f["frames"]) for f in ref["findings"] if f["frames"])
    got_expert = +expert_frames
    if got_expert != want_expert:
        fail(f"{name}: expert warnings per frame: tshark {dict(got_expert)} cli {dict(want_expert)}")

    # Calls: id and operation on each call's first request frame.
    for c in ref["calls"]:
        got = calls_at.get(c["request_first_frame"])
        want = (str(c["id"]), c["operation"] or "")
        if got != want:
            fail(f"{name}: frame {c['request_first_frame']}: tshark call/operation {got}, cli {want}")

    # One pass: the analysis is not finished when frames are shown.
    one_pass = ts.run((["-o", "tls.keylog_file:" + keylog] if keylog else []) +
                      ["-r", capture, "-Y", "stallscope", "-T", "fields", "-e", "frame.number"])
    if one_pass.strip():
        fail(f"{name}: one-pass tshark showed StallScope data on frames {one_pass.split()[:5]}...")

    print(f"{name}: {len(ref['calls'])} calls, {len(ref['findings'])} findings "
          f"({', '.join(sorted(set(want_kind.values()))) or 'none'}), {rows} frames marked")
    return len(ref["findings"])


def c_ok(ref, call_id):
    """True when the call is complete (the summary counts complete calls only)."""
    return any(c["id"] == call_id and c["complete"] for c in ref["calls"])


def expand(paths):
    captures = []
    for a in paths:
        if os.path.isdir(a):
            # Captures with embedded TLS secrets: those reach Wireshark's TLS
            # dissector only, not the plugin (docs/wireshark.md); --keyed checks
            # decryption through tls.keylog_file instead.
            captures += sorted(p for p in glob.glob(os.path.join(a, "*.pcap")) + glob.glob(os.path.join(a, "*.pcapng"))
                               if not p.endswith(".keyed.pcapng"))
        else:
            captures.append(a)
    return captures


def survive(tshark, plugin_so, captures):
    with tempfile.TemporaryDirectory(prefix="stallscope-ws-") as work:
        ts = Tshark(tshark, plugin_so, work)
        checked = 0
        for cap in captures:
            name = os.path.basename(cap)
            if "gzip-bomb" in name:
                continue
            local = os.path.join(ts.home, name)
            shutil.copy(cap, local)
            os.chmod(local, 0o644)
            try:
                p = ts.run(["-r", local, "-2", "-q", "-z", "expert,warn"], check=False)
            except subprocess.TimeoutExpired:
                fail(f"{name}: tshark did not finish in {TIMEOUT} s")
                continue
            checked += 1
            # setpriv execs tshark, so a signal shows as a negative status or 128+N from a shell.
            if p.returncode < 0 or p.returncode >= 128:
                fail(f"{name}: tshark died (status {p.returncode}): {p.stderr.strip()[-300:]}")
            else:
                rows = sum(1 for l in p.stdout.splitlines() if "StallScope " in l)
                print(f"{name}: exit {p.returncode}, {rows} StallScope expert rows")
        print(f"{checked} hostile captures, {len(failures)} failures")
    if checked == 0:
        fail("no hostile captures found: nothing was checked")
    return 1 if failures else 0


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "--survive":
        return survive(sys.argv[2], sys.argv[3], expand(sys.argv[4:]))
    keyed = len(sys.argv) >= 2 and sys.argv[1] == "--keyed"
    args = sys.argv[2:] if keyed else sys.argv[1:]
    if len(args) < 4:
        print(__doc__)
        return 2
    tshark, plugin_so, cli = args[0], args[1], args[2]
    captures = expand(args[3:])
    if keyed:
        captures = [c for c in captures if c.endswith(".pcap") and os.path.exists(c[:-5] + ".keys")]
    if not captures:
        print("no captures given")
        return 1
    with tempfile.TemporaryDirectory(prefix="stallscope-ws-") as work:
        ts = Tshark(tshark, plugin_so, work)
        plugins = ts.run(["-G", "plugins"])
        line = next((l for l in plugins.splitlines() if l.startswith("stallscope")), None)
        if not line or "dissector" not in line:
            fail(f"tshark -G plugins does not list stallscope.so:\n{plugins}")
            return 1
        print("loaded:", " ".join(line.split()))
        fields = ts.run(["-G", "fields"])
        for f in ("stallscope.finding", "stallscope.cost_ms", "stallscope.counted_ms", "stallscope.call",
                  "stallscope.phase"):
            if f"\t{f}\t" not in fields:
                fail(f"tshark -G fields does not list {f}")
        total = 0
        for cap in captures:
            local = os.path.join(ts.home, os.path.basename(cap))
            shutil.copy(cap, local)
            os.chmod(local, 0o644)
            keylog = None
            if keyed:
                keylog = local[:-5] + ".keys"
                shutil.copy(cap[:-5] + ".keys", keylog)
                os.chmod(keylog, 0o644)
            try:
                total += check_capture(ts, cli, local, keylog)
            except (RuntimeError, subprocess.SubprocessError) as e:
                fail(f"{os.path.basename(cap)}: {e}")
    print(f"{len(captures)} captures, {total} findings compared, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
