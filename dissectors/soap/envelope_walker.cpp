#include "dissectors/soap/envelope_walker.h"

#include <algorithm>

namespace stallscope::soap_detail {

namespace {
constexpr size_t kMaxFaultText = 4096;  // fault code/string are cut here
} // namespace

void EnvelopeWalker::keep_text(std::string_view v) {
    if (capture_->size() < kMaxFaultText) capture_->append(v.substr(0, kMaxFaultText - capture_->size()));
}

bool EnvelopeWalker::element_slow(int depth, std::string_view name, std::string_view ns, bool empty) {
    if (depth < 0) return true;
    ++info_.element_count;
    uint32_t level = uint32_t(depth) + 1;
    info_.max_depth = std::max(info_.max_depth, level);
    if (level > limits_.max_depth) {
        info_.fail(SoapError::TooDeep, "too deeply nested (more than " + std::to_string(limits_.max_depth) + " levels)");
        return false;
    }
    if (capture_ && depth <= capture_depth_) capture_ = nullptr;

    if (depth == 0) {
        const bool v11 = ns == kSoap11Ns;
        if (name == "Envelope" && (v11 || ns == kSoap12Ns)) {
            info_.is_soap = true;
            env_ns_ = v11 ? kSoap11Ns : kSoap12Ns;
            info_.version.assign(v11 ? "1.1" : "1.2", 3);
        } else {
            head_done();  // not an envelope: nothing more to learn
        }
        return true;
    }
    if (!info_.is_soap) return true;
    const bool in_env_ns = ns == env_ns_;
    if (depth == 1) {
        top_is_body_ = name == "Body" && in_env_ns;
        return true;
    }
    if (depth == 2) {
        in_fault_ = false;
        if (top_is_body_ && !seen_operation_) {
            seen_operation_ = true;
            info_.operation.assign(name.data(), name.size());
            info_.operation_ns.assign(ns.data(), ns.size());
            if (name == "Fault" && in_env_ns) info_.fault = in_fault_ = true;
            if (!in_fault_ || empty) head_done();  // the operation's start tag is the head's end
        }
        return true;
    }
    if (!in_fault_) return true;
    if (depth == 3) {
        fault_part_ = FaultPart::None;
        if (info_.version == "1.1") {
            // SOAP 1.1 fault children are unqualified; tolerate the envelope namespace too.
            bool local = ns.empty() || in_env_ns;
            if (local && name == "faultcode" && info_.fault_code.empty()) start_capture(info_.fault_code, depth, empty);
            if (local && name == "faultstring" && info_.fault_string.empty())
                start_capture(info_.fault_string, depth, empty);
        } else if (in_env_ns) {
            if (name == "Code") fault_part_ = FaultPart::Code;
            if (name == "Reason") fault_part_ = FaultPart::Reason;
        }
        return true;
    }
    if (depth == 4 && in_env_ns) {
        if (fault_part_ == FaultPart::Code && name == "Value" && info_.fault_code.empty())
            start_capture(info_.fault_code, depth, empty);
        if (fault_part_ == FaultPart::Reason && name == "Text" && info_.fault_string.empty())
            start_capture(info_.fault_string, depth, empty);
    }
    return true;
}

void EnvelopeWalker::start_capture(std::string& target, int depth, bool empty) {
    if (empty) return;
    capture_ = &target;
    capture_depth_ = depth;
}

} // namespace stallscope::soap_detail
