#!/usr/bin/env python3
"""The whole-XML sample (docs/json-format.md "whole_xml") against reading every
envelope whole (--full-xml), on every bundled capture (testdata/*.pcap*) and
the public corpus (skipped with 77 when absent, and only it is absent):

- the head fields of every call (operation, namespace, soap_version, fault,
  envelope_bytes) are the same: they never depend on the sample;
- a call's element_count is either null (not in the sample) or the full
  run's value, and a soap_error is either the full run's or null;
- whole_xml says how many calls were measured: the non-null element_counts;
- per operation, the mean element_count over the measured calls stays within
  ELEMENTS_ERROR of the mean over every call, and message_size's
  xml_elements_per_call and markup_share within the same bounds of the full
  run's; with the default sample (32 then 1 in 64) the figures of an
  operation with at most 32 calls are exact;
- message_size's gzip_estimate_bytes_per_call (its own sample, 32 then 1 in
  64 bodies per operation and direction, a body over 16 KiB measured on 16 KiB
  of it) stays within GZIP_ERROR of --full-xml's, which compresses every body
  whole, and gzip_saving within SAVING_ERROR points (the worst are HTML pages
  of the public corpus, whose later parts repeat earlier ones from afar);
- the report is the same with --threads 1 and --threads 3.

Run with the default sample and a tight one (--xml-sample 2:4), so the
bundled captures, which have fewer than 32 calls per operation, are sampled.

  xml_sample_test.py CLI TESTDATA_DIR [CORPUS_DIR]
"""
import glob
import json
import os
import subprocess
import sys
from collections import defaultdict

ELEMENTS_ERROR = 0.25   # relative, mean elements per call of an operation
MARKUP_ERROR = 5        # percentage points of markup_share
GZIP_ERROR = 0.25       # relative, gzip_estimate_bytes_per_call of an operation
SAVING_ERROR = 6        # percentage points of gzip_saving
TIGHT = "2:4"


def analyze(cli, path, *extra):
    p = subprocess.run([cli, "analyze", path, "--json", "--quiet", *extra], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        return None, "%s %s: exit %d: %s" % (path, " ".join(extra), p.returncode, p.stderr.strip()[:200])
    return json.loads(p.stdout), None


def op_of(call):
    return call.get("operation") or "%s %s" % (call.get("method"), (call.get("uri") or "").split("?")[0])


def findings_by_op(doc):
    out = {}
    for f in doc["findings"]:
        if f["kind"] == "message_size":
            out[f["details"]["operation"]] = f["details"]
    return out


def pct(s):
    return float(s.rstrip("%"))


def check(cli, path, problems, stats):
    full, err = analyze(cli, path, "--full-xml", "--threads", "1")
    if err:
        problems.append(err)
        return
    if full["whole_xml"]["sampled"] or full["whole_xml"]["calls_measured"] != len(full["calls"]):
        problems.append("%s --full-xml: whole_xml %s" % (path, full["whole_xml"]))
    full_calls = {c["id"]: c for c in full["calls"]}
    per_op_all = defaultdict(list)
    for c in full["calls"]:
        if c["element_count"] is not None:
            per_op_all[op_of(c)].append(c["element_count"])
    full_sizes = findings_by_op(full)
    for sample in ([], ["--xml-sample", TIGHT]):
        name = "%s %s" % (os.path.basename(path), " ".join(sample) or "(default sample)")
        doc, err = analyze(cli, path, "--threads", "1", *sample)
        if err:
            problems.append(err)
            continue
        doc3, err = analyze(cli, path, "--threads", "3", *sample)
        if err or json.dumps(doc3, sort_keys=True) != json.dumps(doc, sort_keys=True):
            problems.append("%s: --threads 3 report differs from --threads 1 %s" % (name, err or ""))
        marker = doc["whole_xml"]
        if sample:
            stats["tight_calls"] += marker["calls"]
            stats["tight_measured"] += marker["calls_measured"]
        measured = [c for c in doc["calls"] if c["element_count"] is not None]
        if not marker["sampled"] or marker["calls"] != len(doc["calls"]) or marker["calls_measured"] != len(measured):
            problems.append("%s: whole_xml %s, %d calls with element_count" % (name, marker, len(measured)))
        per_op = defaultdict(list)
        for c in doc["calls"]:
            f = full_calls.get(c["id"])
            if f is None:
                problems.append("%s: call %d not in the full run" % (name, c["id"]))
                continue
            for k in ("operation", "namespace", "soap_version", "fault", "envelope_bytes", "uri", "status"):
                if c.get(k) != f.get(k):
                    problems.append("%s call %d: %s %r, full run %r" % (name, c["id"], k, c.get(k), f.get(k)))
            if c["element_count"] is not None:
                per_op[op_of(c)].append(c["element_count"])
                if c["element_count"] != f["element_count"]:
                    problems.append("%s call %d: element_count %r, full run %r" % (name, c["id"], c["element_count"],
                                                                                f["element_count"]))
            if c["soap_error"] is not None and c["soap_error"] != f["soap_error"]:
                problems.append("%s call %d: soap_error %r, full run %r" % (name, c["id"], c["soap_error"], f["soap_error"]))
            if c["soap_error"] != f["soap_error"]:
                stats["soap_error_unseen"] += 1
        for op, values in per_op_all.items():
            sampled = per_op.get(op)
            full_mean = sum(values) / len(values)
            if not sampled:
                problems.append("%s: operation %s: no call measured" % (name, op))
                continue
            mean = sum(sampled) / len(sampled)
            error = abs(mean - full_mean) / full_mean if full_mean else abs(mean)
            stats["worst_elements"] = max(stats["worst_elements"], error)
            stats["operations"] += 1
            if error > ELEMENTS_ERROR:
                problems.append("%s: operation %s: %.1f elements per measured call, %.1f over all %d calls" %
                                (name, op, mean, full_mean, len(values)))
            if not sample and len(values) <= 32 and sampled != values:
                problems.append("%s: operation %s has %d calls but the default sample measured %d" %
                                (name, op, len(values), len(sampled)))
        sizes = findings_by_op(doc)
        if sorted(sizes) != sorted(full_sizes):
            problems.append("%s: message_size operations %s, full run %s" % (name, sorted(sizes), sorted(full_sizes)))
        for op, d in sizes.items():
            f = full_sizes.get(op)
            if not f:
                continue
            fe, se = float(f["xml_elements_per_call"]), float(d["xml_elements_per_call"])
            if fe and abs(se - fe) / fe > ELEMENTS_ERROR:
                problems.append("%s: %s xml_elements_per_call %s, full run %s" % (name, op, se, fe))
            if abs(pct(d["markup_share"]) - pct(f["markup_share"])) > MARKUP_ERROR:
                problems.append("%s: %s markup_share %s, full run %s" % (name, op, d["markup_share"], f["markup_share"]))
            stats["worst_markup"] = max(stats["worst_markup"], abs(pct(d["markup_share"]) - pct(f["markup_share"])))
            fg, sg = float(f["gzip_estimate_bytes_per_call"]), float(d["gzip_estimate_bytes_per_call"])
            gzip_error = abs(sg - fg) / fg if fg else abs(sg)
            stats["worst_gzip"] = max(stats["worst_gzip"], gzip_error)
            stats["gzip_checks"] += 1
            if gzip_error > GZIP_ERROR:
                problems.append("%s: %s gzip_estimate_bytes_per_call %s, full run (every body whole) %s" % (name, op, sg, fg))
            saving_error = abs(pct(d["gzip_saving"]) - pct(f["gzip_saving"]))
            stats["worst_saving"] = max(stats["worst_saving"], saving_error)
            if saving_error > SAVING_ERROR:
                problems.append("%s: %s gzip_saving %s, full run (every body whole) %s" % (name, op, d["gzip_saving"],
                                                                                       f["gzip_saving"]))
            if int(d["xml_sampled_calls"]) > int(f["xml_sampled_calls"]) or int(f["xml_sampled_calls"]) != int(f["calls"]):
                problems.append("%s: %s xml_sampled_calls %s, full run %s of %s" % (name, op, d["xml_sampled_calls"],
                                                                                f["xml_sampled_calls"], f["calls"]))


def main():
    cli, testdata = sys.argv[1], sys.argv[2]
    corpus = sys.argv[3] if len(sys.argv) > 3 else "/work/shared/corpus/public-http"
    captures = sorted(glob.glob(os.path.join(testdata, "*.pcap")) + glob.glob(os.path.join(testdata, "*.pcapng")))
    if not captures:
        print("no bundled capture in %s" % testdata)
        return 1
    have_corpus = os.path.isdir(corpus)
    if have_corpus:
        captures += sorted(glob.glob(os.path.join(corpus, "*.pcap*")))
    problems = []
    stats = defaultdict(float)
    for path in captures:
        check(cli, path, problems, stats)
    print("%d captures, %d operation checks: worst elements-per-call error %.1f %% (bound %.0f %%), worst markup "
          "share error %.1f points (bound %d); %d call reports whose soap_error the sample did not see" %
          (len(captures), stats["operations"], 100 * stats["worst_elements"], 100 * ELEMENTS_ERROR,
           stats["worst_markup"], MARKUP_ERROR, stats["soap_error_unseen"]))
    print("%d gzip estimates: worst error %.1f %% of --full-xml's (bound %.0f %%), worst saving error %.0f points "
          "(bound %d)" % (stats["gzip_checks"], 100 * stats["worst_gzip"], 100 * GZIP_ERROR, stats["worst_saving"],
                          SAVING_ERROR))
    print("--xml-sample %s measured %d of %d calls" % (TIGHT, stats["tight_measured"], stats["tight_calls"]))
    if stats["tight_measured"] * 2 > stats["tight_calls"]:
        problems.append("the tight sample measured more than half the calls: it does not sample")
    for p in problems[:40]:
        print("FAIL", p)
    if problems:
        return 1
    if not have_corpus:
        print("public corpus %s absent: bundled captures only" % corpus)
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
