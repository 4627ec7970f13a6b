#!/usr/bin/env python3
"""Runs stallscope-cli over the hostile corpus and checks what it must do.

For every capture named in expectations.json:
  - `stallscope-cli analyze FILE --json` ends within --timeout CPU seconds
    (RLIMIT_CPU; a wall-clock limit of 6x that, at least 120 s, catches a
    process blocked without using CPU: the machine may be shared), under an
    address-space limit (--mem-mb; 0 = none, needed for ASan builds), without
    a signal or a sanitizer report;
  - the exit code is the expected one; exit 1 prints exactly one
    "stallscope-cli: error:" line naming the file and nothing on stdout;
    exit 0 prints JSON that parses, with every expected warning and check;
  - every stderr warning line names the file once, and a frame or an offset;
    one tied to a connection names the connection; a JSON warning never
    repeats the file name, and one whose message starts "frame N:" has N in
    its `frame` field;
  - the JSON never contains the absent strings (and never "root:x:0:0");
  - every frame named is one of the capture's (report_invariants' frame_bounds);
  - every number is possible (impossible_numbers): 0 <= latency <= capture
    duration, handshakes likewise, phases in time order and inside the
    capture, findings inside the capture, a retransmission cost no more
    than its call's latency;
  - under strace: no file but the input (and shared libraries / locale data)
    is opened or even tried, and no socket is created.

  run_corpus.py --cli build/app/cli/stallscope-cli [--caps] [--only NAME] [-v]
--caps first generates the big cap-hitting captures into a temporary
directory (make_hostile_corpus.py --caps) and checks those instead.
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_invariants import check_report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "..", "..", "reference-services", "hostile", "make_hostile_corpus.py")
ALWAYS_ABSENT = ["root:x:0:0"]
SANITIZER_MARKS = ["AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:"]
# What a process may open besides its input: the dynamic loader's files,
# shared libraries, locale and gconv data, and /proc or /sys files that the
# C library and the sanitizer runtimes read about the process itself, and the
# time zone (tzset via localtime; locale-like system data).
ALLOWED_PREFIXES = ("/etc/ld.so.cache", "/etc/ld.so.preload", "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/",
                    "/usr/local/lib/", "/usr/share/locale/", "/usr/lib/locale/", "/proc/self/", "/sys/devices/system/cpu",
                    "/dev/null", "/dev/urandom", "/proc/sys/vm/overcommit_memory", "/etc/localtime",
                    "/usr/share/zoneinfo/")
TRACED = "open,openat,openat2,creat,socket,connect,execve"
OPEN_RE = re.compile(r'^(?:\[pid\s+\d+\]\s+)?(\d+\s+)?(open|openat|openat2|creat)\((?:[^,]*, )?"((?:[^"\\]|\\.)*)"')
SOCKET_RE = re.compile(r"^(?:\[pid\s+\d+\]\s+)?(\d+\s+)?(socket|connect)\(")
EXEC_RE = re.compile(r'^(?:\[pid\s+\d+\]\s+)?(\d+\s+)?execve\("((?:[^"\\]|\\.)*)"')


def lookup(doc, path):
    """'calls.0.complete' -> value; a '#' step is the length of a list."""
    cur = doc
    for step in path.split("."):
        if step == "#":
            return len(cur)
        if isinstance(cur, list):
            cur = cur[int(step)]
        else:
            cur = cur[step]
    return cur


def check_op(value, op, want):
    if op == "==":
        return value == want
    if op == ">=":
        return value is not None and value >= want
    if op == "<=":
        return value is not None and value <= want
    if op == "contains":
        return value is not None and want in value
    raise ValueError("unknown op " + op)


EPS_MS = 0.002  # the JSON rounds times to 0.001 ms


def impossible_numbers(doc):
    """Times and costs that cannot be true, whatever the capture."""
    out = []
    dur = doc["capture"]["duration_ms"]

    def within(what, v):
        if v is not None and not (-EPS_MS <= v <= dur + EPS_MS):
            out.append("%s = %r outside the capture (0 .. %r ms)" % (what, v, dur))

    for k in doc["connections"]:
        within("connection %d handshake_ms" % k["id"], k.get("handshake_ms"))
    latency = {}
    for c in doc["calls"]:
        cid = c["id"]
        latency[cid] = c["latency_ms"] or 0
        within("call %d latency_ms" % cid, c["latency_ms"])
        within("call %d start_ms" % cid, c["start_ms"])
        prev_end = None
        for ph in c["phases"]:
            what = "call %d phase %s" % (cid, ph["phase"])
            if ph["duration_ms"] < 0:
                out.append("%s lasts %r ms" % (what, ph["duration_ms"]))
            within(what + " start", ph["start_ms"])
            within(what + " end", ph["start_ms"] + ph["duration_ms"])
            if prev_end is not None and ph["start_ms"] < prev_end - EPS_MS:
                out.append("%s starts at %r ms, before the phase before it ended (%r ms)" % (what, ph["start_ms"],
                                                                                           prev_end))
            prev_end = ph["start_ms"] + ph["duration_ms"]
    for f in doc["findings"]:
        what = "finding %s (calls %s)" % (f["kind"], f["calls"])
        if f["cost_ms"] < 0:
            out.append("%s costs %r ms" % (what, f["cost_ms"]))
        if f.get("start_ms") is not None and f.get("end_ms") is not None and f["cost_ms"] > 0:
            within(what + " start", f["start_ms"])
            within(what + " end", f["end_ms"])
        if f["kind"] == "retransmission" and len(f["calls"]) == 1:
            lat = latency.get(f["calls"][0])
            if lat is not None and f["cost_ms"] > lat + EPS_MS:
                out.append("%s costs %r ms, more than its call's latency %r ms" % (what, f["cost_ms"], lat))
    return out


def limit_resources(mb, cpu_seconds):
    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        if mb:
            resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def strace_problems(trace_path, capture, cli, spill_dir=None):
    problems = []
    allowed_exec = {os.path.realpath(cli)}
    real_capture = os.path.realpath(capture)
    with open(trace_path, errors="replace") as fh:
        for line in fh:
            m = OPEN_RE.match(line)
            if m:
                path = m.group(3)
                if path in (capture, real_capture) or os.path.realpath(path) == real_capture:
                    continue
                if path.startswith(ALLOWED_PREFIXES):
                    continue
                # The spill file (--spill, or past 1000 calls): an unlinked temp
                # file (O_TMPFILE opens the directory itself), nothing else.
                tmp_dirs = {os.path.realpath(d) for d in (spill_dir, os.environ.get("TMPDIR"), "/tmp") if d}
                if os.path.realpath(path) in tmp_dirs and "O_TMPFILE" in line:
                    continue
                problems.append("opened a file other than the input: " + line.strip()[:200])
                continue
            if SOCKET_RE.match(line):
                problems.append("created a socket: " + line.strip()[:200])
                continue
            m = EXEC_RE.match(line)
            if m and os.path.realpath(m.group(2)) not in allowed_exec:
                problems.append("ran a program: " + line.strip()[:200])
    return problems


# Runs a command and reports its peak RSS (and its descendants') on stderr,
# outside strace so the tracer's own files are not the capture's.
RSS_WRAPPER = (
    "import os, signal, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execvp(sys.argv[1], sys.argv[1:])\n"
    "_, status, ru = os.wait4(pid, 0)\n"
    "sys.stderr.write('run_corpus: peak RSS %d KiB\\n' % ru.ru_maxrss)\n"
    "if os.WIFSIGNALED(status):\n"
    "    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)\n"
    "    os.kill(os.getpid(), os.WTERMSIG(status))\n"
    "sys.exit(os.WEXITSTATUS(status))\n")
RSS_RE = re.compile(r"^run_corpus: peak RSS (\d+) KiB$", re.M)


def run_one(cli, path, exp, args, strace):
    name = os.path.basename(path)
    problems = []
    # "report": "csv-summary" for captures whose JSON would be too big to check.
    report = exp.get("report", "json")
    cmd = [cli, "analyze", path, "--" + report]
    if args.spill:
        cmd += ["--spill-after", "0"]
    trace = None
    if strace:
        fd, trace = tempfile.mkstemp(prefix="hostile-strace-", suffix=".txt")
        os.close(fd)
        cmd = [strace, "-f", "-qq", "-e", "trace=" + TRACED, "-o", trace] + cmd
    if exp.get("max_rss_mb") and args.mem_mb > 0:  # sanitizer builds (no limit): shadow memory, not ours
        cmd = [sys.executable, "-c", RSS_WRAPPER] + cmd
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C")
    if args.spill:
        env["TMPDIR"] = args.spill
    t0 = time.monotonic()
    wall = max(120, 6 * args.timeout)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=wall,
                              preexec_fn=limit_resources(args.mem_mb, args.timeout), env=env)
    except subprocess.TimeoutExpired:
        if trace:
            os.unlink(trace)
        return ["hang: no exit within %d s wall-clock time" % wall], wall
    elapsed = time.monotonic() - t0
    out = proc.stdout.decode("utf-8", errors="replace")
    err = proc.stderr.decode("utf-8", errors="replace")
    if trace:
        problems += strace_problems(trace, path, cli, args.spill)
        os.unlink(trace)

    if proc.returncode in (-9, -24):  # SIGKILL / SIGXCPU from RLIMIT_CPU
        problems.append("hang: more than %d s of CPU time (signal %d)" % (args.timeout, -proc.returncode))
    elif proc.returncode < 0 or proc.returncode > 2:
        problems.append("crashed: exit status %d (signal %d?)" % (proc.returncode, -proc.returncode
                                                                 if proc.returncode < 0 else proc.returncode - 128))
    for mark in SANITIZER_MARKS:
        if mark in err:
            problems.append("sanitizer report on stderr: " + mark)
    if proc.returncode != exp["exit"]:
        problems.append("exit %d, expected %d; stderr: %s" % (proc.returncode, exp["exit"], err.strip()[:300]))
    for s in exp["stderr"]:
        if s not in err:
            problems.append("stderr lacks %r" % s)

    # Lines from the sanitizer runtimes are judged above; the rest is ours.
    lines = [l for l in err.splitlines() if l.startswith("stallscope-cli:")]
    if exp["exit"] == 1:
        if out.strip():
            problems.append("exit 1 but something on stdout")
        if len(lines) != 1 or not lines[0].startswith("stallscope-cli: error: " + path):
            problems.append("exit 1 needs exactly one 'stallscope-cli: error: <file>: ...' line, got %r" % lines[:3])
        return problems, elapsed
    if exp.get("max_rss_mb") and args.mem_mb > 0:  # sanitizer builds (no limit): shadow memory, not ours
        m = RSS_RE.search(err)
        if not m:
            problems.append("peak RSS not measured")
        elif int(m.group(1)) > exp["max_rss_mb"] * 1024:
            problems.append("peak RSS %d MiB, more than %d MiB" % (int(m.group(1)) >> 10, exp["max_rss_mb"]))
        elif args.verbose:
            print("     peak RSS %d MiB (limit %d MiB)" % (int(m.group(1)) >> 10, exp["max_rss_mb"]))
    if proc.returncode != 0 or report != "json":
        return problems, elapsed

    try:
        doc = json.loads(out)
    except ValueError as e:
        return problems + ["stdout is not JSON: %s" % e], elapsed

    warn_lines = [l for l in lines if l.startswith("stallscope-cli: warning: ")]
    for l in lines:
        if not l.startswith("stallscope-cli: warning: "):
            problems.append("unexpected stderr line: " + l[:200])
    for l in warn_lines:
        body = l[len("stallscope-cli: warning: "):]
        if not body.startswith(path):
            problems.append("warning does not name the file: " + l[:200])
        elif "more warnings not shown" not in body and not re.search(r"\b(frame|offset) \d+", body):
            problems.append("warning names neither a frame nor an offset: " + l[:200])
        elif body.count(path) != 1:
            problems.append("warning names the file more than once: " + l[:200])
    json_warnings = doc["capture"]["warnings"]
    for w in json_warnings:
        # The report names the file (capture.file); a message that names a
        # frame has it in `frame` too.
        if path in w["message"]:
            problems.append("JSON warning repeats the file name: " + w["message"][:200])
        m = re.match(r"frame (\d+): ", w["message"])
        if m and w.get("frame") != int(m.group(1)):
            problems.append("JSON warning names frame %s but its frame field is %r: %s" % (m.group(1), w.get("frame"),
                                                                                       w["message"][:120]))
    for w in json_warnings:
        if w.get("connection"):
            text = [l for l in warn_lines if w["message"] in l]
            if text and not any(re.search(r"\bconnection %d\b" % w["connection"], l) for l in text):
                problems.append("warning of connection %d does not name it on stderr: %s" % (w["connection"],
                                                                                            text[0][:200]))
    for s in exp["warnings"]:
        if not any(s in w["message"] for w in json_warnings):
            problems.append("no warning contains %r (got %s)" % (s, [w["message"][:80] for w in json_warnings[:5]]))
    for path_, op, want in exp["checks"]:
        try:
            value = lookup(doc, path_)
        except (KeyError, IndexError, TypeError):
            problems.append("check %s: no such field" % path_)
            continue
        if not check_op(value, op, want):
            problems.append("check %s %s %r failed: got %r" % (path_, op, want, value))
    problems += impossible_numbers(doc)
    # Every frame it names is one of the capture's (a call at frame 0 was made of bytes never placed).
    problems += [m for n, m in check_report(doc) if n == "frame_bounds"]
    for s in ALWAYS_ABSENT + exp["absent"]:
        if s in out:
            problems.append("JSON contains %r" % s)
    return problems, elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--dir", default=HERE)
    ap.add_argument("--timeout", type=int, default=20, help="CPU seconds per capture")
    ap.add_argument("--mem-mb", type=int, default=2048, help="address-space limit; 0 = none (ASan)")
    ap.add_argument("--no-strace", action="store_true")
    ap.add_argument("--caps", action="store_true", help="generate and check the big cap-hitting captures")
    ap.add_argument("--spill", action="store_true",
                    help="analyse with --spill-after 0 (every call through the temp file), TMPDIR a fresh "
                         "directory that must be empty afterwards")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    cli = os.path.abspath(args.cli)
    if args.spill:
        args.spill = tempfile.mkdtemp(prefix="hostile-spill-")
    tmp = None
    corpus = args.dir
    if args.caps:
        tmp = tempfile.mkdtemp(prefix="hostile-caps-")
        subprocess.run([sys.executable, GENERATOR, "--caps", tmp], check=True, stdout=subprocess.DEVNULL)
        corpus = tmp
    strace = None if args.no_strace else shutil.which("strace")
    if strace:
        probe = subprocess.run([strace, "-qq", "-e", "trace=openat", "-o", os.devnull, "true"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if probe.returncode != 0:
            print("run_corpus: strace cannot trace here (%s); file/socket checks skipped"
                  % probe.stderr.decode(errors="replace").strip()[:100])
            strace = None
    elif not args.no_strace:
        print("run_corpus: strace not installed; file/socket checks skipped (scripts/install-deps.sh installs it)")

    with open(os.path.join(corpus, "expectations.json")) as fh:
        expectations = json.load(fh)
    failed = 0
    try:
        for name in sorted(expectations):
            if args.only and name not in args.only:
                continue
            path = os.path.join(os.path.abspath(corpus), name)
            problems, secs = run_one(cli, path, expectations[name], args, strace)
            if args.spill and os.listdir(args.spill):
                problems.append("left files in the spill directory: %s" % os.listdir(args.spill))
                for f in os.listdir(args.spill):
                    os.unlink(os.path.join(args.spill, f))
            if problems:
                failed += 1
                print("FAIL %s (%.2f s): %s" % (name, secs, expectations[name]["what"]))
                for p in problems:
                    print("     - " + p)
            elif args.verbose:
                print("ok   %s (%.2f s)" % (name, secs))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        if args.spill:
            shutil.rmtree(args.spill, ignore_errors=True)
    total = len(expectations) if not args.only else len(args.only)
    print("run_corpus: %d of %d captures ok%s%s" % (total - failed, total,
                                                     "" if strace else " (without strace checks)",
                                                     " (spilling every call)" if args.spill else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
