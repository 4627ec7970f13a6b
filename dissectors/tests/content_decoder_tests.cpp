// Content-Encoding decoding with an output cap (gzip bombs).
#include "dissectors/http/content_decoder.h"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <string>
#include <vector>

using namespace stallscope;

namespace {

// window_bits: 31 = gzip, 15 = zlib, -15 = raw deflate.
std::vector<uint8_t> compress_with(const std::string& data, int window_bits) {
    z_stream zs{};
    REQUIRE(deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::vector<uint8_t> out(deflateBound(&zs, uLong(data.size())));
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    zs.avail_in = uInt(data.size());
    zs.next_out = out.data();
    zs.avail_out = uInt(out.size());
    REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// `zeros` zero bytes gzip-compressed, streamed so the input is never in memory.
std::vector<uint8_t> gzip_of_zeros(size_t zeros) {
    z_stream zs{};
    REQUIRE(deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) == Z_OK);
    std::vector<uint8_t> block(1 << 16, 0), out, buf(1 << 16);
    size_t left = zeros;
    int flush = Z_NO_FLUSH;
    do {
        size_t k = std::min(left, block.size());
        left -= k;
        flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
        zs.next_in = block.data();
        zs.avail_in = uInt(k);
        do {
            zs.next_out = buf.data();
            zs.avail_out = uInt(buf.size());
            deflate(&zs, flush);
            out.insert(out.end(), buf.data(), buf.data() + (buf.size() - zs.avail_out));
        } while (zs.avail_out == 0);
    } while (flush != Z_FINISH);
    deflateEnd(&zs);
    return out;
}

std::string sample_text() {
    std::string s;
    for (int i = 0; i < 2000; ++i) s += "<item n=\"" + std::to_string(i) + "\">value</item>\n";
    return s;
}

} // namespace

TEST_CASE("gzip, x-gzip, zlib deflate and raw deflate round-trip") {
    const std::string text = sample_text();
    std::string out, err;
    for (const char* enc : {"gzip", "x-gzip", "GZIP"}) {
        INFO(enc);
        CHECK(decode_content(enc, compress_with(text, 31), 1 << 20, out, err));
        CHECK(err.empty());
        CHECK(out == text);
    }
    CHECK(decode_content("deflate", compress_with(text, 15), 1 << 20, out, err));
    CHECK(out == text);
    CHECK(decode_content("deflate", compress_with(text, -15), 1 << 20, out, err));
    CHECK(out == text);
    CHECK(decode_content("identity", {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, 1 << 20, out, err));
    CHECK(out == text);
    CHECK(decode_content("", {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, 1 << 20, out, err));
    CHECK(out == text);
}

TEST_CASE("concatenated gzip members are all decoded") {
    auto a = compress_with("first,", 31);
    auto b = compress_with("second", 31);
    a.insert(a.end(), b.begin(), b.end());
    std::string out, err;
    CHECK(decode_content("gzip", a, 1000, out, err));
    CHECK(out == "first,second");
}

TEST_CASE("gzip bomb stops at max_out without allocating more") {
    const size_t fifty_mb = 50u * 1024 * 1024;
    auto bomb = gzip_of_zeros(fifty_mb);
    CHECK(bomb.size() < 200 * 1024);  // it really is a bomb
    const size_t cap = 1024 * 1024;
    std::string out, err;
    CHECK_FALSE(decode_content("gzip", bomb, cap, out, err));
    CHECK(err.find("exceeds") != std::string::npos);
    CHECK(out.size() == cap);
    CHECK(out.capacity() <= cap);
    CHECK(out.find_first_not_of('\0') == std::string::npos);
}

TEST_CASE("output of exactly max_out bytes is accepted") {
    const std::string text = sample_text();
    std::string out, err;
    CHECK(decode_content("gzip", compress_with(text, 31), text.size(), out, err));
    CHECK(out == text);
    CHECK_FALSE(decode_content("gzip", compress_with(text, 31), text.size() - 1, out, err));
    CHECK(out.size() == text.size() - 1);
}

TEST_CASE("corrupt, truncated and unknown encodings are errors") {
    const std::string text = sample_text();
    auto gz = compress_with(text, 31);
    std::string out, err;

    auto truncated = std::vector<uint8_t>(gz.begin(), gz.begin() + gz.size() / 2);
    CHECK_FALSE(decode_content("gzip", truncated, 1 << 20, out, err));
    CHECK(err.find("truncated") != std::string::npos);
    CHECK(out.size() < text.size());

    auto corrupt = gz;
    for (size_t i = 20; i < 40; ++i) corrupt[i] ^= 0x5a;
    CHECK_FALSE(decode_content("gzip", corrupt, 1 << 20, out, err));
    CHECK_FALSE(err.empty());

    std::vector<uint8_t> garbage = {'n', 'o', 't', ' ', 'z', 'i', 'p'};
    CHECK_FALSE(decode_content("deflate", garbage, 1 << 20, out, err));
    CHECK_FALSE(err.empty());

    CHECK_FALSE(decode_content("gzip", {}, 1 << 20, out, err));
    CHECK_FALSE(err.empty());

    CHECK_FALSE(decode_content("br", gz, 1 << 20, out, err));
    CHECK(err.find("unsupported") != std::string::npos);
}
