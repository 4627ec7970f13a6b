// libFuzzer: decode_content (gzip / deflate / identity) with an output cap.
// The output must never exceed the cap, whatever the input claims.
#include "dissectors/http/content_decoder.h"

#include <cstdint>
#include <cstdlib>

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    static const char* const kEncodings[] = {"gzip", "deflate", "identity", "x-gzip", "br"};
    const char* enc = kEncodings[data[0] % 5];
    size_t cap = size_t(1) << (10 + (data[0] >> 5));  // 1 KiB .. 128 KiB
    std::string out, err;
    bool ok = decode_content(enc, {data + 1, size - 1}, cap, out, err);
    if (out.size() > cap || out.capacity() > cap + 32) std::abort();
    if (!ok && err.empty()) std::abort();
    return 0;
}
