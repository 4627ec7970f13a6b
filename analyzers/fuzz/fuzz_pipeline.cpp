// libFuzzer: the whole pipeline. Input bytes are a capture file (seeded with
// testdata/ and testdata/hostile/): analyze_file -> report_json. Caps are set
// small so every cap path is reachable from small inputs.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/report/report.h"
#include "capture/fuzz/memfd_input.h"

#include <cstdint>
#include <cstdlib>

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string path = fuzz::memfd_path_with(data, size);
    AnalysisOptions opt;
    opt.keep_segments = (size & 1) != 0;
    opt.max_open_connections = 16;
    opt.max_out_of_order_bytes = 16 * 1024;
    opt.max_soap_body_bytes = 32 * 1024;
    opt.max_decompressed_bytes = 64 * 1024;
    opt.max_header_bytes = 2048;
    AnalyzeOutcome o = analyze_file(path, opt);
    if (!o.ok) {
        if (o.error.find(path) == std::string::npos) std::abort();
        return 0;
    }
    if (o.result.capture.warnings.size() > 501) std::abort();
    std::string json = report_json(o.result);
    if (json.empty()) std::abort();
    return 0;
}
