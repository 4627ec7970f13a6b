#!/usr/bin/env python3
"""Property test: every report on a mutated capture is possible.

  mutation_property_test.py --cli build/app/cli/stallscope-cli [--per-seed 6] [--seed 13] [--mem-mb 1024] [-j 2] [-v]
                            [--corpus DIR] [--keep DIR] [--only ID] [--write-known]

Seeds: the bundled captures (testdata/*.pcap) and, when present, the public
corpus (env STALLSCOPE_PUBLIC_CORPUS, else --corpus). Mutant k of a seed is
made with random.Random(f"{seed}/{seed-file}/{k}") by pcap_mutator.py (flip
bytes, truncate packets or the file, reorder, duplicate, drop, timestamps
zero / backwards / huge jumps / equal, pcapng Simple Packet Blocks without a
time), written to a temp dir, and analysed under RLIMIT_CPU and RLIMIT_AS.

Each mutant must: exit 0 with JSON that satisfies report_invariants.py, or
exit 1 with exactly one "stallscope-cli: error:" line and nothing on stdout;
never a signal, never another exit code (`crash`), never run out of its
limits (`limits`). Also `duration_bounds`: capture.duration_ms is at most
the span of the timestamps written.

Every other command that opens a capture must follow the same rule (issue 22),
on every mutant and on every capture of the hostile corpus (testdata/hostile,
not mutated): `export` of the first call, the first connection, the timeline
and the report (html; json, which must be analyze's JSON byte for byte), and
`compare` against the seed (the mutant BEFORE for odd k, AFTER for even k; a
hostile capture against a good one). Where analyze exits 1, each exits 1 with
analyze's error line (compare: one "stallscope-cli compare: error:" line
naming the side, BEFORE or AFTER, and carrying analyze's reason); where
analyze exits 0, each exits 0 (an export of a call, or a connection with calls,
that the capture does not have: 1, with one error line). Each run has the same CPU, memory and
wall-clock limits as analyze's (`limits`). Invariants: `export_exit`,
`export_error_output`, `export_json`, `compare_exit`, `compare_error_output`.

Known violations are listed in testdata/mutation_known_failures.json
({"id", "invariant", "reason"}); the test fails on any violation not listed
and on any listed one that no longer happens (shrink the list as fixes land).
--write-known rewrites that file from this run (keeping reasons by invariant).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pcap_mutator  # noqa: E402
from report_invariants import check_report  # noqa: E402

KNOWN = os.path.join(HERE, "mutation_known_failures.json")
DEFAULT_CORPUS = os.path.join(HERE, "..", "..", "shared", "corpus", "public-http")
CPU_S, MEM_MB, WALL_S = 20, 1024, 120


HOSTILE = os.path.join(HERE, "hostile")
GOOD = os.path.join(HERE, "refsvc-gsoap.pcap")  # the other side of a hostile capture's compare


def hostile_captures():
    files = sorted(f for f in glob.glob(os.path.join(HOSTILE, "*.pcap*")))
    if not files:
        sys.exit(f"FAIL: no hostile captures in {HOSTILE}")
    return files


def seeds(corpus):
    files = sorted(glob.glob(os.path.join(HERE, "*.pcap")))
    if not files:
        sys.exit(f"FAIL: no seed captures in {HERE}")
    if corpus and os.path.isdir(corpus):
        files += sorted(glob.glob(os.path.join(corpus, "*.pcap")))
    return files


def plan(files, per_seed, seed):
    """-> [(id, file, rng)]: per_seed mutants of each file; an id names the same mutant
    whatever other seed files exist (the public corpus may be absent)."""
    out = []
    for f in files:
        name = os.path.basename(f).rsplit(".", 1)[0]
        for k in range(per_seed):
            out.append((f"{name}#{k}", f, random.Random(f"{seed}/{name}/{k}")))
    for f in hostile_captures():
        out.append((f"hostile/{os.path.basename(f)}", f, None))
    return out


def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_S, CPU_S + 5))
    if MEM_MB:
        resource.setrlimit(resource.RLIMIT_AS, (MEM_MB << 20, MEM_MB << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def ts_span(cap):
    ts = [r[0] for r in cap.records if r[0] is not None]
    return (max(ts) - min(ts)) / 1e6 if ts else 0.0


def run_cli(cli, args):
    """-> (CompletedProcess or None on a wall-clock timeout, [violations of the limits])."""
    try:
        p = subprocess.run([cli] + args, capture_output=True, preexec_fn=limits, timeout=WALL_S,
                           env=dict(os.environ, TZ="UTC", LC_ALL="C"))
    except subprocess.TimeoutExpired:
        return None, [("limits", f"{args[0]}: no exit within {WALL_S} s")]
    if p.returncode < 0:
        sig = -p.returncode
        name = "limits" if sig in (9, 24) else "crash"  # SIGKILL/SIGXCPU: CPU limit
        err = p.stderr.decode("utf-8", "replace")
        return p, [(name, f"{' '.join(args[:1] + args[2:4])}: killed by signal {sig}: {err.strip().splitlines()[-1:]}")]
    return p, []


def error_lines(p, prefix="stallscope-cli: error:"):
    return [ln for ln in p.stderr.decode("utf-8", "replace").splitlines() if ln.startswith(prefix)]


def check_exports(cli, capture, tmp, analyze_rc, analyze_error, doc):
    """export (call, connection, timeline, report html/json) on `capture`: the rule analyze follows."""
    viol = []
    calls = (doc or {}).get("calls") or []
    conns = [c for c in (doc or {}).get("connections") or [] if c.get("calls")]  # export draws calls
    stem = os.path.join(tmp, os.path.basename(capture).replace(".", "_"))
    whats = [("call", ["--call", str(calls[0]["id"] if calls else 1)], "svg", bool(calls)),
             ("connection", ["--connection", str(conns[0]["id"] if conns else 1)], "svg", bool(conns)),
             ("timeline", ["--timeline"], "svg", True),
             ("report-html", ["--report"], "html", True),
             ("report-json", ["--report"], "json", True)]
    for name, what, fmt, exists in whats:
        target = f"{stem}.{name}.{fmt}"
        p, v = run_cli(cli, ["export", capture] + what + ["-o", target, "--quiet"])
        viol += [(n, f"export {name}: {m}") for n, m in v]
        if p is None or v:
            continue
        lines = error_lines(p)
        if analyze_rc == 1:
            if p.returncode != 1:
                viol.append(("export_exit", f"export {name} exit {p.returncode} where analyze exits 1"))
            elif lines != [analyze_error]:
                viol.append(("export_error_output", f"export {name}: {lines[:2]} is not analyze's {analyze_error!r}"))
        elif analyze_rc == 0 and exists:
            if p.returncode != 0:
                viol.append(("export_exit", f"export {name} exit {p.returncode} where analyze exits 0: {lines[:1]}"))
            elif not os.path.exists(target) or os.path.getsize(target) == 0:
                viol.append(("export_exit", f"export {name} exit 0 without writing {os.path.basename(target)}"))
            elif name == "report-json" and doc is not None:
                with open(target, "rb") as fh:
                    try:
                        same = json.loads(fh.read()) == doc
                    except ValueError:
                        same = False
                if not same:
                    viol.append(("export_json", "export --report json is not analyze's JSON"))
        elif analyze_rc == 0:  # no such call / connection
            if p.returncode != 1 or len(lines) != 1 or os.path.basename(capture) not in lines[0]:
                viol.append(("export_error_output", f"export {name} of nothing: exit {p.returncode}, {lines[:2]}"))
        if os.path.exists(target):
            os.unlink(target)
    return viol


def check_compare(cli, capture, other, capture_is_before, analyze_rc, analyze_error):
    """compare BEFORE AFTER with `capture` on one side and a capture that analyses on the other."""
    pair = [capture, other] if capture_is_before else [other, capture]
    side = "BEFORE" if capture_is_before else "AFTER"
    p, viol = run_cli(cli, ["compare"] + pair + ["--json", "--quiet"])
    if p is None or viol:
        return [(n, f"compare: {m}") for n, m in viol]
    lines = error_lines(p, "stallscope-cli compare: error:")
    if analyze_rc == 1:
        reason = analyze_error.split("stallscope-cli: error: ", 1)[-1]
        if p.returncode != 1:
            viol.append(("compare_exit", f"compare exit {p.returncode} with {side} not analysable"))
        elif len(lines) != 1 or side not in lines[0] or reason not in lines[0] or p.stdout.strip():
            viol.append(("compare_error_output", f"compare with {side} not analysable: {lines[:2]} "
                                                 f"(must name {side} and say {reason!r})"))
    elif analyze_rc == 0:
        try:
            ok = p.returncode == 0 and isinstance(json.loads(p.stdout), dict)
        except ValueError:
            ok = False
        if not ok:
            viol.append(("compare_exit", f"compare exit {p.returncode} ({lines[:1]}) where both sides analyse"))
    return viol


def run_one(cli, mid, path, rng, tmp, keep):
    if rng is None:  # a hostile capture, as it is
        raw, ops = open(path, "rb").read(), ["hostile"]
    else:
        cap = pcap_mutator.read(open(path, "rb").read())
        raw, ops = pcap_mutator.mutate(rng, cap)
    try:
        span = ts_span(pcap_mutator.read(raw))
    except Exception:
        span = None
    ext = ".pcapng" if raw[:4] == b"\x0a\x0d\x0d\x0a" else ".pcap"
    out = os.path.join(tmp, mid.replace("#", "_").replace("/", "_") + ext)
    with open(out, "wb") as fh:
        fh.write(raw)
    t0 = time.monotonic()
    p, viol = run_cli(cli, ["analyze", out, "--json"])
    if p is None or viol:
        return mid, ops, viol, time.monotonic() - t0, None
    err = p.stderr.decode("utf-8", "replace")
    doc, analyze_error = None, None
    if p.returncode == 1:
        lines = error_lines(p)
        analyze_error = lines[0] if lines else None
        if len(lines) != 1 or p.stdout.strip() or os.path.basename(out) not in lines[0]:
            viol.append(("error_output", f"exit 1 with {len(lines)} error lines (must be one, naming the file), "
                                         f"{len(p.stdout)} bytes on stdout: {lines[:2]}"))
    elif p.returncode != 0:
        viol.append(("crash", f"exit {p.returncode}: {err.strip()[-200:]}"))
    else:
        try:
            doc = json.loads(p.stdout)
        except ValueError as e:
            viol.append(("bad_json", str(e)))
            doc = None
        if doc is not None:
            seen = set()
            for name, msg in check_report(doc):
                if name not in seen:
                    seen.add(name)
                    viol.append((name, msg))
            d = doc.get("capture", {}).get("duration_ms")
            if span is not None and isinstance(d, (int, float)) and d > span + 0.002:
                viol.append(("duration_bounds", f"duration_ms {d} > timestamp span {span:.3f}"))
    if p.returncode in (0, 1) and not any(n == "error_output" for n, _ in viol):
        viol += check_exports(cli, out, tmp, p.returncode, analyze_error, doc)
        # A mutant against its seed, on alternate sides; a hostile capture against a good one.
        other = GOOD if rng is None else path
        k = int(mid.rsplit("#", 1)[1]) if "#" in mid else len(mid)
        viol += check_compare(cli, out, other, k % 2 == 1, p.returncode, analyze_error)
    if keep and viol:
        shutil.copy(out, keep)
    os.unlink(out)
    return mid, ops, viol, time.monotonic() - t0, p.returncode


def main():
    global MEM_MB
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--per-seed", type=int, default=6, help="mutants per seed capture (48 seeds: 288)")
    ap.add_argument("--seed", default="13")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--keep", help="copy mutants with violations here")
    ap.add_argument("--only")
    ap.add_argument("--write-known", action="store_true")
    ap.add_argument("--mem-mb", type=int, default=MEM_MB, help="RLIMIT_AS per run; 0 = none (sanitizers)")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    MEM_MB = a.mem_mb
    corpus = os.environ.get("STALLSCOPE_PUBLIC_CORPUS") or a.corpus
    files = seeds(corpus)
    if not os.path.isdir(corpus):
        print(f"note: public corpus {corpus} absent: seeds are the {len(files)} bundled captures only; "
              f"known failures of public-corpus mutants are not checked")
    todo = plan(files, a.per_seed, a.seed)
    if a.only:
        todo = [t for t in todo if t[0] == a.only]
    t0 = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="stallscope-mutants-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as pool:
        futs = [pool.submit(run_one, a.cli, mid, f, rng, tmp, a.keep) for mid, f, rng in todo]
        for fu in futs:
            results.append(fu.result())
    wall = time.monotonic() - t0

    got = {(mid, name): msg for mid, ops, viol, _, _ in results for name, msg in viol}
    ops_of = {mid: ops for mid, ops, _, _, _ in results}
    known_list = json.load(open(KNOWN)) if os.path.exists(KNOWN) else []
    ran = {mid for mid, _, _, _, _ in results}
    known = {(k["id"], k["invariant"]): k["reason"] for k in known_list if k["id"] in ran}
    new = {k: v for k, v in got.items() if k not in known}
    fixed = {k: v for k, v in known.items() if k not in got}

    by_inv = {}
    for (mid, name) in got:
        by_inv.setdefault(name, []).append(mid)
    print(f"{len(results)} mutants of {len(files)} seed captures in {wall:.1f} s "
          f"(slowest {max((r[3] for r in results), default=0):.2f} s); "
          f"{sum(1 for r in results if r[4] == 1)} rejected with exit 1; "
          f"{sum(1 for r in results if r[2])} with violations; largest peak RSS of a run "
          f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024} MB (limit {MEM_MB or 'none'} MB)")
    for name, mids in sorted(by_inv.items(), key=lambda kv: -len(kv[1])):
        print(f"  {name:24} {len(mids):4} mutants  e.g. {mids[0]} ({'+'.join(ops_of[mids[0]])}): "
              f"{got[(mids[0], name)][:150]}")
    if a.v:
        for (mid, name), msg in sorted(got.items()):
            print(f"    {'known' if (mid, name) in known else 'NEW  '} {mid} [{'+'.join(ops_of[mid])}] {name}: {msg}")

    if a.write_known:
        reasons = {k["invariant"]: k["reason"] for k in known_list}
        rows = [{"id": mid, "invariant": name, "mutations": ops_of[mid],
                 "reason": reasons.get(name, "TODO: say why"), "example": msg[:200]}
                for (mid, name), msg in sorted(got.items())]
        with open(KNOWN, "w") as fh:
            fh.write("[\n" + ",\n".join("  " + json.dumps(r) for r in rows) + "\n]\n")
        print(f"wrote {len(rows)} known failures to {KNOWN}")
        return 0
    problems = [f"NEW {mid} [{'+'.join(ops_of[mid])}] {name}: {msg}" for (mid, name), msg in sorted(new.items())]
    problems += [f"FIXED {mid} {name}: no longer happens; remove it from mutation_known_failures.json ({why})"
                 for (mid, name), why in sorted(fixed.items())]
    if problems:
        print(f"\n{len(problems)} problem(s) (seed {a.seed}; rerun one with --only ID, keep files with --keep DIR):")
        for p in problems[:200]:
            print("  " + p)
        return 1
    print(f"\nno violation beyond the {len(known)} known ones")
    return 0


if __name__ == "__main__":
    sys.exit(main())
