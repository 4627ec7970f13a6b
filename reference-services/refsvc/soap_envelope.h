// SOAP 1.1 envelopes for the seed benchmarks' operations, and just enough
// parsing for the server to echo what it received and the client to check it.
#pragma once
#include <string>
#include <string_view>

namespace stallscope::refsvc {

bool is_known_op(const std::string& op);
std::string op_names();

// Request envelope for `op` with `size` items (ints/doubles/strings), bytes (base64) or characters.
std::string build_request(const std::string& op, long size);

struct SoapCall {
    std::string op;
    long size = 0;        // <size> for setSize/getString/getIntegers, items/bytes for echo*
    std::string payload;  // inner XML of <input> for echo ops (echoed back verbatim after counting)
};

// Returns "" on success or what is wrong with the request body.
std::string parse_request(std::string_view body, SoapCall& out);
std::string build_response(const SoapCall& call);
std::string build_fault(const std::string& reason);
// Checks a response body against what the client asked for; "" when it matches.
std::string check_response(const std::string& op, long size, std::string_view request, std::string_view response);

}  // namespace stallscope::refsvc
