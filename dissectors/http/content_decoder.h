#pragma once
// Undoes an HTTP Content-Encoding (gzip, x-gzip, deflate, identity) with a hard
// output cap, so a small "gzip bomb" cannot make us allocate gigabytes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace stallscope {

// Decodes `in` into `out` (replaced). `encoding` is case-insensitive; empty
// means identity. "deflate" accepts zlib-wrapped and (as many servers send it)
// raw deflate data. Returns false with `error` set when the coding is unknown,
// the data is corrupt or truncated, or the output would exceed `max_out`
// bytes; `out` then holds what was decoded before that (at most max_out).
// No single allocation is larger than max_out (+1 for the terminator).
bool decode_content(std::string_view encoding, std::span<const uint8_t> in, size_t max_out, std::string& out,
                    std::string& error);

} // namespace stallscope
