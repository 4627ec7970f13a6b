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


def seeds(corpus):
    files = sorted(glob.glob(os.path.join(HERE, "*.pcap")))
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
    return out


def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_S, CPU_S + 5))
    if MEM_MB:
        resource.setrlimit(resource.RLIMIT_AS, (MEM_MB << 20, MEM_MB << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def ts_span(cap):
    ts = [r[0] for r in cap.records if r[0] is not None]
    return (max(ts) - min(ts)) / 1e6 if ts else 0.0


def run_one(cli, mid, path, rng, tmp, keep):
    cap = pcap_mutator.read(open(path, "rb").read())
    raw, ops = pcap_mutator.mutate(rng, cap)
    try:
        span = ts_span(pcap_mutator.read(raw))
    except Exception:
        span = None
    ext = ".pcapng" if raw[:4] == b"\x0a\x0d\x0d\x0a" else ".pcap"
    out = os.path.join(tmp, mid.replace("#", "_") + ext)
    with open(out, "wb") as fh:
        fh.write(raw)
    t0 = time.monotonic()
    viol = []
    try:
        p = subprocess.run([cli, "analyze", out, "--json"], capture_output=True, preexec_fn=limits,
                           timeout=WALL_S, env=dict(os.environ, TZ="UTC", LC_ALL="C"))
    except subprocess.TimeoutExpired:
        return mid, ops, [("limits", f"no exit within {WALL_S} s")], time.monotonic() - t0, None
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode < 0:
        sig = -p.returncode
        name = "limits" if sig in (9, 24) else "crash"  # SIGKILL/SIGXCPU: CPU limit
        viol.append((name, f"killed by signal {sig}: {err.strip().splitlines()[-1:]}"))
    elif p.returncode == 1:
        lines = [ln for ln in err.splitlines() if ln.startswith("stallscope-cli: error:")]
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
