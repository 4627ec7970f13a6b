// message_size: bytes on the wire per call, XML overhead and what gzip
// would save, per operation. Information, not a stall: cost_ms is 0 so the
// summary's "lost" time never includes it. See docs/detectors/message_size.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/toolkit_fixes.h"
#include "analyzers/summary.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace stallscope {

namespace {

using namespace detect;

// Reported when compression would save at least 1 KiB per call on average
// and at least 30 % of the body bytes: below that, bytes are not what makes
// the call slow or expensive on any link we care about.
constexpr double kMinSavingBytes = 1024;
constexpr double kMinSavingShare = 0.30;

bool encoded(const std::string& enc) {
    std::string e = enc;
    for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
    return !e.empty() && e.find("identity") == std::string::npos;
}

std::string pct(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", v * 100);
    return b;
}

class MessageSize : public Detector {
public:
    const char* kind() const override { return "message_size"; }

    void finish(const std::vector<Call>& calls, const std::vector<Connection>&, std::vector<Finding>& out) override {
        std::map<std::string, std::vector<const Call*>> ops;
        for (const Call& c : calls)
            if (c.complete) ops[operation_key(c)].push_back(&c);
        for (auto& [op, cs] : ops) {
            double wire = 0, req_wire = 0, resp_wire = 0, content = 0, markup = 0, deflated = 0, elements = 0;
            bool already = false, chunked = false;
            std::vector<double> per_call;
            for (const Call* c : cs) {
                double rq = double(c->request.header_bytes + c->request.body_bytes);
                double rs = double(c->response.header_bytes + c->response.body_bytes);
                req_wire += rq;
                resp_wire += rs;
                wire += rq + rs;
                per_call.push_back(rq + rs);
                if (encoded(c->content_encoding)) already = true;
                chunked = chunked || c->request_chunked || c->response_chunked;
                for (const MessageInfo* m : {&c->request, &c->response}) {
                    if (!m->deflate_estimate) continue;
                    content += double(m->content_bytes);
                    markup += double(m->markup_bytes);
                    deflated += double(m->deflate_estimate);
                }
                elements += double(c->soap.element_count + c->soap_response.element_count);
            }
            double n = double(cs.size());
            double saving = already ? 0 : content - deflated;
            if (saving / n < kMinSavingBytes || content <= 0 || saving / content < kMinSavingShare) continue;
            std::sort(per_call.begin(), per_call.end());
            double median = per_call[per_call.size() / 2];
            Side side = resp_wire >= req_wire ? Side::Server : Side::Client;
            Finding f = make_finding(kind(), side, *cs.front());
            f.calls.clear();
            for (const Call* c : cs) f.calls.push_back(c->id);
            f.frames = {cs.front()->request.first_frame, cs.front()->response.first_frame};
            f.cost_ms = 0;
            f.cost_method = "0: size is reported, not costed (no stall)";
            // Not a stall: a zero-length interval at the first call's start.
            f.start_ns = f.end_ns = cs.front()->start_ns;
            f.explanation = op + ": " + std::to_string(uint64_t(median)) + " B on the wire per call (median), " +
                            pct(content > 0 ? markup / content : 0) + " of the XML is markup; gzip would save about " +
                            pct(saving / content) + " (" + std::to_string(uint64_t(saving / n)) + " B per call)";
            f.fix = "compress bodies (Content-Encoding: gzip, Accept-Encoding: gzip), send less XML (shorter element "
                    "names, no per-element xsi:type), or batch small calls";
            apply_toolkit_fix(f, *cs.front());
            f.details.push_back({"operation", op});
            f.details.push_back({"calls", std::to_string(cs.size())});
            f.details.push_back({"bytes_per_call_median", std::to_string(uint64_t(median))});
            f.details.push_back({"request_bytes_mean", std::to_string(uint64_t(req_wire / n))});
            f.details.push_back({"response_bytes_mean", std::to_string(uint64_t(resp_wire / n))});
            f.details.push_back({"xml_elements_per_call", std::to_string(uint64_t(elements / n))});
            f.details.push_back({"markup_share", pct(content > 0 ? markup / content : 0)});
            f.details.push_back({"gzip_estimate_bytes_per_call", std::to_string(uint64_t(deflated / n))});
            f.details.push_back({"gzip_saving", pct(saving / content)});
            f.details.push_back({"framing", chunked ? "chunked" : "Content-Length"});
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_message_size_detector() { return std::make_unique<MessageSize>(); }

} // namespace stallscope
