#pragma once
// What decode_soap learns from the nodes of a document, in document order,
// whichever libxml2 interface delivers them (the tree-building reader or the
// SAX pass). No libxml2 types here.
#include "dissectors/soap/soap_decoder.h"

#include <string>
#include <string_view>

namespace stallscope::soap_detail {

class EnvelopeWalker {
public:
    EnvelopeWalker(SoapInfo& info, const SoapLimits& limits) : info_(info), limits_(limits) {}

    // An element start at `depth` (0: the root). `empty`: <x/> (the reader
    // then reports no end). Returns false (with info.error set) to stop reading.
    bool element(int depth, std::string_view name, std::string_view ns, bool empty);
    // The end of an element at `depth`.
    void end_element(int depth) {
        if (capture_ && depth == capture_depth_) capture_ = nullptr;
    }
    // Character data (text, CDATA, white space) whose parent is at `depth` - 1.
    void text(int depth, std::string_view value);
    // Would text at `depth` be kept (a fault code or string being read)?
    bool wants_text(int depth) const { return capture_ && depth == capture_depth_ + 1; }

private:
    void start_capture(std::string& target, int depth, bool empty);

    enum class FaultPart { None, Code, Reason };
    SoapInfo& info_;
    const SoapLimits& limits_;
    std::string_view env_ns_;
    bool top_is_body_ = false;
    bool seen_operation_ = false;
    bool in_fault_ = false;
    FaultPart fault_part_ = FaultPart::None;
    std::string* capture_ = nullptr;
    int capture_depth_ = -1;
};

} // namespace stallscope::soap_detail
