// message_size: bytes on the wire per call, XML overhead and what gzip
// would save, per operation. Information, not a stall: cost_ms is 0 so the
// summary's "lost" time never includes it. See docs/detectors/message_size.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/toolkit_fixes.h"
#include "dissectors/http/ascii_case.h"
#include "analyzers/detectors/deflate_sampler.h"
#include "analyzers/spill/spill_array.h"
#include "analyzers/accounting/summary.h"
#include "analyzers/accounting/xml_sample.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>

namespace stallscope {

namespace {

using namespace detect;

// Reported when compression would save at least 1 KiB per call on average
// and at least 30 % of the body bytes: below that, bytes are not what makes
// the call slow or expensive on any link we care about.
constexpr double kMinSavingBytes = 1024;
constexpr double kMinSavingShare = 0.30;

bool encoded(const std::string& enc) {
    return !enc.empty() && !ascii_icontains(enc, "identity");
}

std::string pct(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", v * 100);
    return b;
}

class MessageSize : public Detector {
public:
    MessageSize(uint64_t deflate_sample_first, XmlSampling xml) : first_(deflate_sample_first), xml_(xml) {}
    const char* kind() const override { return "message_size"; }

    // Sums per operation as calls pass: the calls themselves may be on disk
    // by the end. All sums are of whole byte counts, so exact in any order.
    void on_call(const Call& c, const Connection&, const CallScan&, std::vector<Finding>&) override {
        // Every call takes its place in the gzip sample (as DeflateSampler
        // chose it); complete calls are counted.
        Op& a = op_of(c);
        if (!a.gzip[0]) a.gzip[0] = a.gzip[1] = DeflateEstimate(first_, !xml_.full);
        a.gzip[0]->add(c.request, c.id, c.complete);
        a.gzip[1]->add(c.response, c.id, c.complete);
        if (!a.xml) a.xml.emplace(xml_);
        a.xml->add(c, c.complete);  // markup and elements: from the whole-XML sample
        if (!c.complete) return;
        double rq = double(c.request.header_bytes + c.request.body_bytes);
        double rs = double(c.response.header_bytes + c.response.body_bytes);
        a.req_wire += rq;
        a.resp_wire += rs;
        a.wire += rq + rs;
        if (a.calls++ == 0) {
            a.index = uint32_t(by_index_.size());
            by_index_.push_back(&a);
        }
        const uint64_t wire = c.request.header_bytes + c.request.body_bytes + c.response.header_bytes + c.response.body_bytes;
        per_call_.at(logged_++) = {c.id, wire, a.index, 0};
        if (encoded(c.content_encoding)) a.already = true;
        a.chunked = a.chunked || c.request_chunked || c.response_chunked;
        a.content += double(c.request.content_bytes + c.response.content_bytes);
        if (a.calls == 1 || c.id < a.first.id) a.first = call_facts(c);
    }

    void spill_to(const std::function<std::unique_ptr<SpillFile>()>& make_file) override {
        if (auto f = make_file()) per_call_.to_file(std::move(f));
    }

    void finish(std::vector<Finding>& out) override {
        // The operations reported, then their calls from the log: only
        // they cost memory here (the finding names every call).
        struct Reported { std::vector<uint64_t> ids, wire; };
        std::vector<std::unique_ptr<Reported>> reported(by_index_.size());
        for (Op* a : by_index_) {  // operations with a complete call
            a->deflated = a->gzip[0]->deflated() + a->gzip[1]->deflated();
            if (worth_reporting(*a)) reported[a->index] = std::make_unique<Reported>();
        }
        per_call_.each([&](uint64_t i, const Logged& r) {
            if (i >= logged_ || !reported[r.op]) return;
            reported[r.op]->ids.push_back(r.id);
            reported[r.op]->wire.push_back(r.wire);
        });
        for (auto& [op, a] : ops_) {
            // Only incomplete calls: in the gzip sample, not reported.
            if (a.calls == 0 || !reported[a.index]) continue;
            Reported& calls = *reported[a.index];
            const double n = double(a.calls), saving = saving_bytes(a);
            const XmlSampleSums::Figures x = a.xml->figures();
            const double markup_share = x.content > 0 ? x.markup / x.content : 0;
            const size_t mid = calls.wire.size() / 2;
            std::nth_element(calls.wire.begin(), calls.wire.begin() + ptrdiff_t(mid), calls.wire.end());
            const double median = double(calls.wire[mid]);
            calls.wire = {};
            Side side = a.resp_wire >= a.req_wire ? Side::Server : Side::Client;
            const Call& first = a.first;
            Finding f = make_finding(kind(), side, first);
            std::sort(calls.ids.begin(), calls.ids.end());
            f.calls = std::move(calls.ids);
            f.frames = {first.request.first_frame, first.response.first_frame};
            f.cost_ms = 0;
            f.cost_method = "0: size is reported, not costed (no stall)";
            // Not a stall: a zero-length interval at the first call's start.
            f.start_ns = f.end_ns = first.start_ns;
            f.explanation = op + ": " + std::to_string(uint64_t(median)) + " B on the wire per call (median), " +
                            pct(markup_share) + " of the XML is markup; gzip would save about " +
                            pct(saving / a.content) + " (" + std::to_string(uint64_t(saving / n)) + " B per call)";
            f.fix = "compress bodies (Content-Encoding: gzip, Accept-Encoding: gzip), send less XML (shorter element "
                    "names, no per-element xsi:type), or batch small calls";
            apply_toolkit_fix(f, first);
            f.details.push_back({"operation", op});
            f.details.push_back({"calls", std::to_string(a.calls)});
            f.details.push_back({"bytes_per_call_median", std::to_string(uint64_t(median))});
            f.details.push_back({"request_bytes_mean", std::to_string(uint64_t(a.req_wire / n))});
            f.details.push_back({"response_bytes_mean", std::to_string(uint64_t(a.resp_wire / n))});
            f.details.push_back({"xml_elements_per_call", std::to_string(uint64_t(x.weight > 0 ? x.elements / x.weight : 0))});
            f.details.push_back({"markup_share", pct(markup_share)});
            // The two above are from this many calls read whole (docs/json-format.md).
            f.details.push_back({"xml_sampled_calls", std::to_string(x.calls)});
            f.details.push_back({"gzip_estimate_bytes_per_call", std::to_string(uint64_t(a.deflated / n))});
            f.details.push_back({"gzip_saving", pct(saving / a.content)});
            f.details.push_back({"framing", a.chunked ? "chunked" : "Content-Length"});
            out.push_back(std::move(f));
        }
        ops_.clear();
        last_ = nullptr;
        by_index_.clear();
        per_call_ = SpillArray<Logged>(kLogBlock, 2);
        logged_ = 0;
    }

private:
    struct Op {
        double wire = 0, req_wire = 0, resp_wire = 0, content = 0, deflated = 0;
        bool already = false, chunked = false;
        uint64_t calls = 0;            // complete ones
        uint32_t index = 0;            // in by_index_ (once a call is complete)
        Call first;                    // the lowest-numbered call
        std::optional<DeflateEstimate> gzip[2];  // request, response bodies
        std::optional<XmlSampleSums> xml;        // markup and element figures
    };
    // Each complete call, for the median and the finding's call list: in
    // memory, or on file once the analysis spills.
    struct Logged {
        uint64_t id, wire;
        uint32_t op, pad;
    };
    static constexpr size_t kLogBlock = 2048;  // 48 KiB blocks
    static double saving_bytes(const Op& a) { return a.already ? 0 : a.content - a.deflated; }
    static bool worth_reporting(const Op& a) {
        const double saving = saving_bytes(a);
        return saving / double(a.calls) >= kMinSavingBytes && a.content > 0 && saving / a.content >= kMinSavingShare;
    }
    // c's operation (operation_key): the last one's again without building
    // the key while SOAP calls name it (calls of one operation come in runs).
    Op& op_of(const Call& c) {
        if (last_ && !c.soap.operation.empty() && last_->first == c.soap.operation) return last_->second;
        last_ = &*ops_.try_emplace(operation_key(c)).first;
        return last_->second;
    }
    std::map<std::string, Op> ops_;
    std::pair<const std::string, Op>* last_ = nullptr;  // in ops_ (map entries stay put)
    std::vector<Op*> by_index_;
    SpillArray<Logged> per_call_{kLogBlock, 2};
    uint64_t logged_ = 0;
    uint64_t first_;
    XmlSampling xml_;
};

} // namespace

std::unique_ptr<Detector> make_message_size_detector(uint64_t deflate_sample_first, XmlSampling xml) {
    return std::make_unique<MessageSize>(deflate_sample_first, xml);
}

} // namespace stallscope
