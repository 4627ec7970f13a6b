#pragma once
// Reports of an AnalysisResult: the readable text, the JSON documented in
// docs/json-format.md, and CSV. Pure functions of the result (which may
// read spilled items back from disk: they throw SpillError if that fails).
#include "analyzers/result/model.h"

#include <ostream>
#include <string>

namespace stallscope {

std::string report_text(const AnalysisResult& r);
std::string report_json(const AnalysisResult& r, int indent = 2);
std::string report_csv(const AnalysisResult& r);          // one row per call
std::string report_csv_summary(const AnalysisResult& r);  // one row per operation (and one for all)

// The same, written as they are made: a report of a big capture never has
// to fit in memory (the strings above are these into a string).
// threads > 1: the connections and the listed calls are read on another
// thread while this one reads the findings, the same bytes.
void write_report_text(const AnalysisResult& r, std::ostream& os, unsigned threads = 1);
// The text report lists the calls with ids up to this (AnalysisOptions::keep_calls
// can drop the rest before it is written).
inline constexpr uint64_t kTextReportCalls = 500;
// threads > 1: the calls' JSON is made by that many workers, the same bytes (json_calls.h).
void write_report_json(const AnalysisResult& r, std::ostream& os, int indent = 2, unsigned threads = 1);
void write_report_csv(const AnalysisResult& r, std::ostream& os);

// Helpers shared by the writers.
double round_ms(double ms);                  // 3 decimals
double ns_to_ms(int64_t ns);
double ms_between(int64_t ns, int64_t t0);   // ns - t0 in ms, not rounded, never overflowing
double ms_since(int64_t ns, int64_t t0);     // round_ms(ms_between(ns, t0))
std::string utc_time(int64_t ts_ns);         // 2026-01-02T03:04:05.123456789Z

} // namespace stallscope
