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
            Warning damage{WarningCode::CaptureDamaged, reason + "; analysed the " + std::to_string(n) + " frames before it",
                           0, reader.error_offset(), 0};
            analyzer.capture().damage = damage;
            analyzer.add_warning(std::move(damage));
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

// Secrets embedded in the capture (pcapng Decryption Secrets Blocks) join
// the key store when their block is read, before the packets after it.
template <class A>
void take_secrets(PcapFileReader& reader, A& analyzer, const std::shared_ptr<TlsKeyStore>& keys) {
    constexpr uint32_t kTlsKeyLog = 0x544c534b;  // "TLSK"
    reader.set_secrets_sink([&analyzer, keys, unsupported_warned = false](uint32_t type, std::span<const uint8_t> data,
                                                                         uint64_t offset) mutable {
        if (type != kTlsKeyLog) {
            if (!unsupported_warned)
                analyzer.add_warning({WarningCode::KeyLogLine, "decryption secrets block at file offset " + std::to_string(offset) +
                                      " of an unsupported type ignored", 0, offset, 0});
            unsupported_warned = true;
            return;
        }
        std::string source = "decryption secrets block at file offset " + std::to_string(offset);
        keys->add_key_log(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), source,
                          [&](const std::string& w) { analyzer.add_warning({WarningCode::KeyLogLine, w, 0, offset, 0}); });
    });
}

template <class A>
AnalyzeOutcome run(const std::string& path, PcapFileReader& reader, A& analyzer, const ProgressFn& progress,
                   const std::shared_ptr<TlsKeyStore>& keys, const std::vector<std::string>& key_warnings) {
    AnalyzeOutcome out;
    analyzer.capture().format = reader.format();
    analyzer.capture().bytes = reader.file_size();
    // The reader outlives the analyzer here (both callers), so its lasting frames may be lent.
    if constexpr (requires { analyzer.set_frames_outlive_next(true); })
        analyzer.set_frames_outlive_next(reader.frames_outlive_next());
    if constexpr (requires { analyzer.set_idle_work({}); })
        analyzer.set_idle_work(reader.ahead_work());  // the reader's work ahead, on workers that wait
    for (const std::string& w : key_warnings) analyzer.add_warning({WarningCode::KeyLogLine, w, 0, 0, 0});
    take_secrets(reader, analyzer, keys);
    try {
        read_frames(path, reader, analyzer, progress, out);
        out.result = analyzer.finish();
    } catch (const SpillError& e) {
        // Without the spilled items nothing can be reported right.
        out.error = path + ": " + e.what();
        return out;
    }
    out.error = out.cancelled ? std::string() : nothing_decoded_error(path, out.result.capture);
    out.ok = out.error.empty();
    return out;
}

} // namespace

std::string nothing_decoded_error(const std::string& path, const CaptureInfo& cap) {
    if (cap.packets == 0 || cap.undecodable_packets < cap.packets) return {};
    std::string links, first;
    for (const auto& l : cap.link_types) links += (links.empty() ? "" : ", ") + l;
    if (!cap.warnings.empty()) first = "; " + cap.warnings.front().message;
    return path + ": none of its " + std::to_string(cap.packets) + " frames could be decoded (link types: " + links +
           first + ")";
}

const Warning* damage_warning(const CaptureInfo& cap) {
    return cap.truncated && !cap.damage.message.empty() ? &cap.damage : nullptr;
}

unsigned default_analysis_threads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

namespace {
// The key store every connection looks its secrets up in: the key log's,
// then each Decryption Secrets Block's as it is read. False: the key log
// cannot be read (`error`).
bool prepare_keys(AnalysisOptions& opt, std::vector<std::string>& key_warnings, std::string& error) {
    if (!opt.tls_keys) opt.tls_keys = std::make_shared<TlsKeyStore>();
    return opt.keylog_path.empty() ||
           opt.tls_keys->load_file(opt.keylog_path, [&](const std::string& w) { key_warnings.push_back(w); }, error);
}

AnalyzeOutcome failed(std::string error) {
    AnalyzeOutcome out;
    out.error = std::move(error);
    return out;
}

// Runs `body` with the analyzer the options ask for: sharded over threads, or one thread.
template <class Body>
AnalyzeOutcome with_analyzer(const AnalysisOptions& opt, const std::string& path, Body body) {
    if (opt.threads > 1) {
        ShardedAnalysis analyzer(opt, path, opt.threads);
        return body(analyzer);
    }
    Analyzer analyzer(opt, path);
    return body(analyzer);
}
}  // namespace

AnalyzeOutcome analyze_file(const std::string& path, const AnalysisOptions& options, const ProgressFn& progress) {
    std::string error;
    auto reader = PcapFileReader::open(path, error);
    if (!reader) return failed(error);
    AnalysisOptions opt = options;
    std::vector<std::string> key_warnings;
    if (!prepare_keys(opt, key_warnings, error)) return failed(error);
    return with_analyzer(opt, path, [&](auto& analyzer) {
        return run(path, *reader, analyzer, progress, opt.tls_keys, key_warnings);
    });
}

namespace {
template <class A>
AnalyzeOutcome run_set(const std::vector<std::string>& paths, FileSetReader& reader, A& analyzer,
                       const std::vector<std::string>& missing, const ProgressFn& progress,
                       const std::shared_ptr<TlsKeyStore>& keys, const std::vector<std::string>& key_warnings) {
    for (const std::string& m : missing)
        analyzer.add_warning({WarningCode::FileSetGap,
                              "file set: no file " + m + " (a gap in the set: its frames were never read)", 0, 0, 0});
    AnalyzeOutcome out = run(paths.front(), reader, analyzer, progress, keys, key_warnings);
    if (!out.ok) return out;
    CaptureInfo& c = out.result.capture;
    c.files.clear();
    for (const std::string& p : reader.files()) c.files.push_back({p, 0});
    for (const FrameRun& r : reader.runs()) c.files[r.file].frames += r.count;
    c.frame_runs = reader.runs();
    for (const FileSetReader::Note& n : reader.notes())
        c.warnings.push_back({WarningCode::FileSetGap, "file set: " + n.message, 0, n.offset, 0});
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
    if (!reader) return failed(error);
    AnalysisOptions opt = options;
    std::vector<std::string> key_warnings;
    if (!prepare_keys(opt, key_warnings, error)) return failed(error);
    return with_analyzer(opt, paths.front(), [&](auto& analyzer) {
        return run_set(paths, *reader, analyzer, missing, progress, opt.tls_keys, key_warnings);
    });
}

namespace {
// The analysis's first stage alone, fed by the same read loop as the analysis.
struct DecodeOnly : FrontSink {
    AnalysisFront front{*this};
    uint64_t segments = 0;
    void front_warning(Warning) override {}
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
