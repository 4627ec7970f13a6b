#include "analyzers/analyze.h"

#include "analyzers/analyzer.h"
#include "capture/pcap/pcap_file_reader.h"

namespace stallscope {

AnalyzeOutcome analyze_file(const std::string& path, const AnalysisOptions& options, const ProgressFn& progress) {
    AnalyzeOutcome out;
    std::string error;
    auto reader = PcapFileReader::open(path, error);
    if (!reader) {
        out.error = error;
        return out;
    }
    Analyzer analyzer(options, path);
    analyzer.capture().format = reader->format();
    analyzer.capture().bytes = reader->file_size();
    auto drain_warnings = [&] {
        for (auto& w : reader->take_warnings()) analyzer.add_warning({path + ": " + w, 0, 0, 0});
    };
    Frame f;
    uint64_t n = 0;
    for (;;) {
        auto st = reader->next(f);
        if (st == PcapFileReader::Status::End) break;
        if (st == PcapFileReader::Status::Error) {
            // Analyse what came before the damage and say where it was.
            analyzer.capture().truncated = true;
            analyzer.add_warning({reader->error() + "; analysed the " + std::to_string(n) + " frames before it", 0,
                                  reader->error_offset(), 0});
            break;
        }
        ++n;
        analyzer.on_frame(f);
        if (progress && (n & 0xFFFF) == 0) {
            drain_warnings();
            if (!progress(Progress{reader->position(), reader->file_size(), n})) {
                out.cancelled = true;
                break;
            }
        }
    }
    drain_warnings();
    if (progress) progress(Progress{reader->position(), reader->file_size(), n});
    out.result = analyzer.finish();
    out.ok = true;
    return out;
}

} // namespace stallscope
