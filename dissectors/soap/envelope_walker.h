#pragma once
// What decode_soap learns from the nodes of a document, in document order,
// whichever libxml2 interface delivers them (the tree-building reader or the
// SAX pass). No libxml2 types here.
#include "dissectors/soap/soap_decoder.h"

#include <string>
#include <string_view>

namespace stallscope::soap_detail {

// The envelope namespaces of SOAP 1.1 and 1.2.
inline constexpr std::string_view kSoap11Ns = "http://schemas.xmlsoap.org/soap/envelope/";
inline constexpr std::string_view kSoap12Ns = "http://www.w3.org/2003/05/soap-envelope";

class EnvelopeWalker {
public:
    EnvelopeWalker(SoapInfo& info, const SoapLimits& limits, SoapRead read = SoapRead::Whole)
        : info_(info), limits_(limits), head_only_(read == SoapRead::Head) {}

    // An element start at `depth` (0: the root). `empty`: <x/> (the reader
    // then reports no end). Returns false (with info.error set) to stop reading.
    // Inline for an element below the operation outside a Fault (nearly
    // every element of a document read whole): counted, nothing else to learn.
    bool element(int depth, std::string_view name, std::string_view ns, bool empty) {
        if (depth > 2 && !in_fault_ && !capture_ && uint32_t(depth) < limits_.max_depth) {
            ++info_.element_count;
            if (info_.max_depth < uint32_t(depth) + 1) info_.max_depth = uint32_t(depth) + 1;
            return true;
        }
        return element_slow(depth, name, ns, empty);
    }
    // The end of an element at `depth`.
    void end_element(int depth) {
        if (capture_ && depth == capture_depth_) capture_ = nullptr;
        if (in_fault_ && depth == 2) head_done();  // the Fault read whole
    }
    // SoapRead::Head and the head has been read: the caller stops reading
    // (and takes what came before as the whole answer, info.head_only set).
    bool done() const { return done_; }
    // Character data (text, CDATA, white space) whose parent is at `depth` - 1.
    // Inline: nearly all text is not kept (only a fault code or string is).
    void text(int depth, std::string_view value) {
        if (capture_ && depth == capture_depth_ + 1) keep_text(value);
    }
    // Would text at `depth` be kept (a fault code or string being read)?
    bool wants_text(int depth) const { return capture_ && depth == capture_depth_ + 1; }

private:
    bool element_slow(int depth, std::string_view name, std::string_view ns, bool empty);
    void keep_text(std::string_view value);
    void start_capture(std::string& target, int depth, bool empty);
    void head_done() {
        if (!head_only_) return;
        done_ = true;
        info_.head_only = true;
    }

    enum class FaultPart { None, Code, Reason };
    SoapInfo& info_;
    const SoapLimits& limits_;
    bool head_only_;
    bool done_ = false;
    std::string_view env_ns_;
    bool top_is_body_ = false;
    bool seen_operation_ = false;
    bool in_fault_ = false;
    FaultPart fault_part_ = FaultPart::None;
    std::string* capture_ = nullptr;
    int capture_depth_ = -1;
};

} // namespace stallscope::soap_detail
