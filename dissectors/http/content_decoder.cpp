#include "dissectors/http/content_decoder.h"

#include "dissectors/http/ascii_case.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace stallscope {

namespace {


// Appends to `out` while keeping its capacity <= max_out. libstdc++ rounds a
// reserve() up to twice the old capacity, so growth goes through a fresh
// string (whose small old capacity makes reserve exact) instead.
void append_capped(std::string& out, const char* data, size_t n, size_t max_out) {
    size_t need = out.size() + n;
    if (need > out.capacity()) {
        size_t target = std::min(max_out, std::max(need, out.capacity() * 2));
        std::string bigger;
        bigger.reserve(target);
        bigger.append(out);
        out.swap(bigger);
    }
    out.append(data, n);
}

enum class InflateResult { Ok, TooBig, Corrupt, Truncated };

// window_bits: 15+32 = zlib or gzip (auto-detected), -15 = raw deflate.
InflateResult inflate_capped(std::span<const uint8_t> in, int window_bits, size_t max_out, std::string& out,
                             std::string& zmsg) {
    z_stream zs{};
    if (inflateInit2(&zs, window_bits) != Z_OK) {
        zmsg = "inflateInit2 failed";
        return InflateResult::Corrupt;
    }
    size_t pos = 0;
    unsigned char buf[16384];
    InflateResult result = InflateResult::Truncated;
    for (;;) {
        // avail_in is 32-bit: feed at most 1 GiB at a time.
        if (zs.avail_in == 0 && pos < in.size()) {
            size_t k = std::min<size_t>(in.size() - pos, size_t(1) << 30);
            zs.next_in = const_cast<Bytef*>(in.data() + pos);
            zs.avail_in = uInt(k);
            pos += k;
        }
        zs.next_out = buf;
        zs.avail_out = sizeof buf;
        int rc = inflate(&zs, Z_NO_FLUSH);
        size_t produced = sizeof buf - zs.avail_out;
        if (produced > max_out - out.size()) {
            append_capped(out, reinterpret_cast<const char*>(buf), max_out - out.size(), max_out);
            result = InflateResult::TooBig;
            break;
        }
        append_capped(out, reinterpret_cast<const char*>(buf), produced, max_out);
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members (RFC 1952 2.2) continue; other trailing bytes are ignored.
            bool more = zs.avail_in > 0 || pos < in.size();
            if (more && window_bits != -15) {
                const uint8_t* next = zs.avail_in > 0 ? zs.next_in : in.data() + pos;
                if (next[0] == 0x1f) {
                    inflateReset(&zs);
                    continue;
                }
            }
            result = InflateResult::Ok;
            break;
        }
        if (rc == Z_NEED_DICT || rc == Z_DATA_ERROR || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR) {
            zmsg = zs.msg ? zs.msg : "corrupt compressed data";
            result = InflateResult::Corrupt;
            break;
        }
        // Z_BUF_ERROR or Z_OK without progress and no more input: truncated.
        if (zs.avail_in == 0 && pos >= in.size() && produced == 0) {
            result = InflateResult::Truncated;
            break;
        }
    }
    inflateEnd(&zs);
    return result;
}

} // namespace

bool decode_content(std::string_view encoding, std::span<const uint8_t> in, size_t max_out, std::string& out,
                    std::string& error) {
    out.clear();
    error.clear();
    if (encoding.empty() || ascii_iequals(encoding, "identity")) {
        if (in.size() > max_out) {
            append_capped(out, reinterpret_cast<const char*>(in.data()), max_out, max_out);
            error = "content exceeds " + std::to_string(max_out) + " bytes";
            return false;
        }
        append_capped(out, reinterpret_cast<const char*>(in.data()), in.size(), max_out);
        return true;
    }
    bool gzip = ascii_iequals(encoding, "gzip") || ascii_iequals(encoding, "x-gzip");
    bool deflate = ascii_iequals(encoding, "deflate");
    if (!gzip && !deflate) {
        error = "unsupported content encoding: " + std::string(encoding);
        return false;
    }
    std::string zmsg;
    InflateResult r = inflate_capped(in, 15 + 32, max_out, out, zmsg);
    if (r == InflateResult::Corrupt && deflate && out.empty()) {
        // "deflate" is zlib-wrapped per RFC 9110, but some servers send raw deflate.
        zmsg.clear();
        r = inflate_capped(in, -15, max_out, out, zmsg);
    }
    switch (r) {
    case InflateResult::Ok:
        return true;
    case InflateResult::TooBig:
        error = "decoded content exceeds " + std::to_string(max_out) + " bytes";
        return false;
    case InflateResult::Corrupt:
        error = "corrupt " + std::string(encoding) + " data: " + zmsg;
        return false;
    case InflateResult::Truncated:
        error = "truncated " + std::string(encoding) + " data";
        return false;
    }
    return false;
}

} // namespace stallscope
