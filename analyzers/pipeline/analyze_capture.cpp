#include "analyzers/pipeline/analyze_capture.h"

#include "analyzers/pipeline/front_stage.h"
#include "analyzers/pipeline/streaming_analysis.h"
#include "analyzers/pipeline/sharded_analysis.h"
#include "capture/pcap/file_set_reader.h"
#include "capture/pcap/pcap_file_reader.h"

#include <thread>

namespace stallscope {

namespace {

// Feeds every frame to the analyzer (Analyzer or ShardedAnalysis); stops
// at damage (analysing what came before it) or when `progress` cancels.
template <class A>
void read_frames(const std::string& path, PcapFileReader& reader, A& analyzer, const ProgressFn& progress,
                 AnalyzeOutcome& out) {
    Frame f;
    uint64_t n = 0;
    for (;;) {
        auto st = reader.next(f);
        if (st == PcapFileReader::Status::End) break;
        if (st == PcapFileReader::Status::Error) {
            analyzer.capture().truncated = true;
            // The report names the file: the warning need not (the error does, for exit 1).
            std::string reason = reader.error();
            if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2);
            analyzer.add_warning({reason + "; analysed the " + std::to_string(n) + " frames before it", 0,
                                  reader.error_offset(), 0});
            break;
        }
        ++n;
        analyzer.on_frame(f);
        if (progress && (n & 0xFFFF) == 0) {
            if (!progress(Progress{reader.position(), reader.file_size(), n})) {
                out.cancelled = true;
                break;
            }
        }
    }
    if (progress) progress(Progress{reader.position(), reader.file_size(), n});
}

template <class A>
AnalyzeOutcome run(const std::string& path, PcapFileReader& reader, A& analyzer, const ProgressFn& progress) {
    AnalyzeOutcome out;
    analyzer.capture().format = reader.format();
    analyzer.capture().bytes = reader.file_size();
    try {
        read_frames(path, reader, analyzer, progress, out);
        out.result = analyzer.finish();
    } catch (const SpillError& e) {
        // Without the spilled items nothing can be reported right.
        out.error = path + ": " + e.what();
        return out;
    }
    out.ok = true;
    return out;
}

} // namespace

unsigned default_analysis_threads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

AnalyzeOutcome analyze_file(const std::string& path, const AnalysisOptions& options, const ProgressFn& progress) {
    std::string error;
    auto reader = PcapFileReader::open(path, error);
    if (!reader) {
        AnalyzeOutcome out;
        out.error = error;
        return out;
    }
    if (options.threads > 1) {
        ShardedAnalysis analyzer(options, path, options.threads);
        return run(path, *reader, analyzer, progress);
    }
    Analyzer analyzer(options, path);
    return run(path, *reader, analyzer, progress);
}

namespace {
template <class A>
AnalyzeOutcome run_set(const std::vector<std::string>& paths, FileSetReader& reader, A& analyzer,
                       const std::vector<std::string>& missing, const ProgressFn& progress) {
    for (const std::string& m : missing)
        analyzer.add_warning({"file set: no file " + m + " (a gap in the set: its frames were never read)", 0, 0, 0});
    AnalyzeOutcome out = run(paths.front(), reader, analyzer, progress);
    if (!out.ok) return out;
    CaptureInfo& c = out.result.capture;
    c.files.clear();
    for (const std::string& p : reader.files()) c.files.push_back({p, 0});
    for (const FrameRun& r : reader.runs()) c.files[r.file].frames += r.count;
    c.frame_runs = reader.runs();
    for (const FileSetReader::Note& n : reader.notes())
        c.warnings.push_back({"file set: " + n.message, 0, n.offset, 0});
    return out;
}
} // namespace

AnalyzeOutcome analyze_files(const std::vector<std::string>& given, const AnalysisOptions& options,
                             const ProgressFn& progress) {
    std::vector<std::string> missing;
    std::vector<std::string> paths = given.size() == 1 ? expand_file_set(given.front(), missing) : given;
    if (paths.size() == 1 && missing.empty()) return analyze_file(paths.front(), options, progress);
    std::string error;
    auto reader = FileSetReader::open(paths, error);
    if (!reader) {
        AnalyzeOutcome out;
        out.error = error;
        return out;
    }
    if (options.threads > 1) {
        ShardedAnalysis analyzer(options, paths.front(), options.threads);
        return run_set(paths, *reader, analyzer, missing, progress);
    }
    Analyzer analyzer(options, paths.front());
    return run_set(paths, *reader, analyzer, missing, progress);
}

namespace {
// The analysis's first stage alone, fed by the same read loop as the analysis.
struct DecodeOnly : FrontSink {
    AnalysisFront front{*this};
    uint64_t segments = 0;
    void front_warning(Warning, Tag) override {}
    void segment(const Frame&, const TcpPacket&) override { ++segments; }
    void on_frame(const Frame& f) { front.on_frame(f); }
    void add_warning(Warning) {}
    CaptureInfo& capture() { return front.capture(); }
};
} // namespace

bool decode_only(const std::string& path, uint64_t& frames, uint64_t& segments, std::string& error) {
    auto reader = PcapFileReader::open(path, error);
    if (!reader) return false;
    DecodeOnly d;
    AnalyzeOutcome out;
    read_frames(path, *reader, d, {}, out);
    d.front.finish();  // damage stops it where it stops the analysis
    frames = d.front.capture().packets;
    segments = d.segments;
    return true;
}

} // namespace stallscope
