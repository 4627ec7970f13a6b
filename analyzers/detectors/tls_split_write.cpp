// tls_split_write: an encrypted message sent as a header-sized TLS record
// followed by the body's record(s) although one record (16 KB) would carry
// it, or as many small records: the toolkit called SSL_write per part.
// Costs an extra record (29 B or so with its header and tag) and packet;
// its time is counted only when it armed a Nagle stall, and then in the
// tls_nagle_delayed_ack finding. See docs/detectors/tls_split_write.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/nagle_stalls.h"

#include <numeric>

namespace stallscope {

namespace {

using namespace detect;

constexpr uint32_t kMaxRecordPlaintext = 16384;
// An HTTP head is a few hundred bytes; 2 KB leaves room for long cookies and SOAPAction values.
constexpr uint32_t kHeaderSized = 2048;
constexpr size_t kExtraRecords = 2;  // as split_write: two beyond what the size needs

class TlsSplitWrite : public Detector {
public:
    const char* kind() const override { return "tls_split_write"; }
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection&, const CallScan& scan, std::vector<Finding>& out) override {
        if (!call.encrypted) return;
        for (int which = 0; which < 2; ++which) {
            const MessageInfo& m = which == 0 ? call.request : call.response;
            const Side sender = which == 0 ? Side::Client : Side::Server;
            const auto& sizes = m.write_sizes;  // plaintext bytes per record
            if (sizes.size() < 2) continue;
            if (which == 0 && call.got_continue) continue;  // split on purpose: Expect: 100-continue
            uint64_t total = std::accumulate(sizes.begin(), sizes.end(), uint64_t(0));
            size_t needed = size_t((total + kMaxRecordPlaintext - 1) / kMaxRecordPlaintext);
            bool head_then_body = sizes.front() <= kHeaderSized && total <= kMaxRecordPlaintext;
            bool many = sizes.size() >= needed + kExtraRecords;
            if (!head_then_body && !many) continue;
            Finding f = make_finding(kind(), sender, call);
            f.frames = m.frames;
            f.cost_ms = 0;
            f.cost_method = "no time of its own: a Nagle hold it armed is counted in tls_nagle_delayed_ack";
            f.start_ns = m.first_ns;
            f.end_ns = m.last_ns;
            std::string who = side_name(sender);
            f.explanation = "the " + who + "'s encrypted " + (which == 0 ? "request" : "response") + " (" +
                            std::to_string(total) + " B) left in " + std::to_string(sizes.size()) + " TLS records (" +
                            join_sizes(sizes) + " B of plaintext) where " + std::to_string(needed) +
                            (needed == 1 ? " record" : " records") + " would carry it" +
                            (head_then_body ? ": a header-sized record, then the body" : "");
            for (const NagleStall& st : scan.nagle_stalls())
                if (st.sender == sender) {
                    f.explanation += "; it armed the Nagle stall at frame " + std::to_string(st.b_frame);
                    break;
                }
            f.fix = "hand the whole message to TLS in one SSL_write (build head and body in one buffer), or use "
                    "a buffering BIO so the records leave together";
            f.details.push_back({"record_plaintext_sizes", join_sizes(sizes)});
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_tls_split_write_detector() { return std::make_unique<TlsSplitWrite>(); }

} // namespace stallscope
