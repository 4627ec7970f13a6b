#pragma once
// What a call's messages say, as opposed to how they travelled (pairing and
// timing live in exchange_tracker): header fields copied into the call, and
// each body kept (up to a cap), undone of its Content-Encoding, measured for
// the message_size detector and decoded as a SOAP envelope.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/detectors/deflate_sampler.h"
#include "analyzers/calls/function_ref.h"
#include "analyzers/result/model.h"
#include "dissectors/http/http_message.h"
#include "dissectors/soap/soap_decoder.h"

#include <cstdint>
#include <span>
#include <string>

namespace stallscope {

// The header fields a call and its body read: the first occurrence of each,
// as HttpMessageHead::header finds it, from the index the parser made of
// them; null when absent. Valid while the head is.
struct HeadFields {
    const std::string_view* user_agent = nullptr;
    const std::string_view* content_type = nullptr;
    const std::string_view* soap_action = nullptr;
    const std::string_view* content_encoding = nullptr;
    const std::string_view* server = nullptr;
    const std::string_view* upgrade = nullptr;
    explicit HeadFields(const HttpMessageHead& head);
};

// Request-line and header facts a call reports (method, URI, SOAPAction ...).
void fill_request_fields(Call& call, const HttpMessageHead& head, const HeadFields& fields);
// Status, reason, Server, framing facts of the final response.
void fill_response_fields(Call& call, const HttpMessageHead& head, const HeadFields& fields);

// One message's body, kept for decoding until the message ends.
class MessageBody {
public:
    void set_encoding(std::string content_encoding) { encoding_ = std::move(content_encoding); }
    // Content-Encoding, and whether the head says the body is XML/SOAP
    // (Content-Type ...xml or soap, or a SOAPAction): then a body that is
    // not XML gets a soap_error saying so.
    void set_head(const HeadFields& fields);
    // Keeps at most `cap` bytes in all; past it the body is marked capped.
    // A body's first piece is only referenced where it lies (most bodies are
    // one piece, decoded before the bytes under them go): keep() copies it
    // before they do.
    void append(std::span<const uint8_t> data, size_t cap);
    // The bytes passed to append() are about to go: copy what is referenced.
    void keep() {
        if (!borrowed_.empty()) own();
    }
    // The message ended: undo Content-Encoding, measure the content into
    // `msg`, decode the SOAP envelope into `soap`, free the buffer. `what`
    // names the body in warnings ("response body of call 7"), asked only
    // when there is one.
    // `sampler` (null: compress every body) and `sample_key` (its operation
    // and direction, asked after the decode) choose the bodies compressed.
    // `read_whole` (empty: every body whole) says, after the envelope's head
    // is read, whether the body (of the bytes given) is in the whole-XML sample
    // (analyzers/accounting/xml_sample.h): then it is read to its end and its
    // markup counted; else msg.whole_xml is false.
    // The callables are called during the call only (FunctionRef).
    void finish(const AnalysisOptions& opt, MessageInfo& msg, SoapInfo& soap, FunctionRef<std::string()> what,
                FunctionRef<void(WarningCode, const std::string&)> warn, DeflateSampler* sampler = nullptr,
                FunctionRef<std::string()> sample_key = {}, FunctionRef<bool(uint64_t)> read_whole = {});
    size_t held() const { return bytes_.size() + borrowed_.size(); }
    // Back to a new body's state; the buffer's memory stays for the next
    // message (up to kKeepBytes).
    void clear();

private:
    static constexpr size_t kKeepBytes = 8 * 1024;
    void release();  // empties the buffer, keeping up to kKeepBytes of memory
    void own();      // borrowed_ into bytes_
    std::string bytes_;
    std::string_view borrowed_;  // the body, where it lies (bytes_ then empty)
    bool capped_ = false;
    std::string encoding_;
    bool xml_expected_ = false;
};

// Size facts for the message_size detector (exposed for tests); without a
// sampler every body of 512 B or more is compressed.
// count_markup false: markup_bytes is not measured (m.whole_xml false).
// `known_markup`: count_markup_bytes(content) already made (by the SOAP
// decoder's plain pass); kMarkupUnknown: counted here.
void measure_content(std::string_view content, MessageInfo& m, DeflateSampler* sampler = nullptr,
                     const std::string& key = {}, bool count_markup = true, uint64_t known_markup = kMarkupUnknown);
// Bytes from each '<' (outside a tag) to the next '>', both counted.
uint64_t count_markup_bytes(std::string_view content);

} // namespace stallscope
