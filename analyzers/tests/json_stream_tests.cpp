// JsonStream against nlohmann: every value, and random documents, written
// by the stream must read byte for byte as nlohmann's dump(indent, ' ',
// false, error_handler_t::replace) of the same tree.
#include "analyzers/report/json_stream.h"
#include "analyzers/report/json_number.h"
#include "analyzers/report/report.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace stallscope;
using ojson = nlohmann::ordered_json;

namespace {

const int kIndents[] = {-1, 0, 1, 2, 4};

// Writes a tree through the stream, node by node, the way the reports do.
void stream(JsonStream& w, const ojson& j) {
    switch (j.type()) {
    case ojson::value_t::object:
        w.begin_object();
        for (auto& [k, v] : j.items()) {
            w.key(k);
            stream(w, v);
        }
        w.end_object();
        break;
    case ojson::value_t::array:
        w.begin_array();
        for (auto& v : j) stream(w, v);
        w.end_array();
        break;
    case ojson::value_t::string: w.value(j.get_ref<const std::string&>()); break;
    case ojson::value_t::boolean: w.value(j.get<bool>()); break;
    case ojson::value_t::number_integer: w.value(j.get<int64_t>()); break;
    case ojson::value_t::number_unsigned: w.value(j.get<uint64_t>()); break;
    case ojson::value_t::number_float: w.value(j.get<double>()); break;
    default: w.value(nullptr); break;
    }
}

std::string streamed(const ojson& j, int indent) {
    std::ostringstream os;
    {
        JsonStream w(os, indent);
        stream(w, j);
    }
    return os.str();
}

std::string dumped(const ojson& j, int indent) { return j.dump(indent, ' ', false, ojson::error_handler_t::replace); }

void check_same(const ojson& j) {
    for (int indent : kIndents) {
        INFO("indent " << indent);
        std::string expected = dumped(j, indent), got = streamed(j, indent);
        REQUIRE(got == expected);
    }
}

std::vector<double> hard_doubles() {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e-7, 1.5e-7, 1e-5, 1e-4, 9.999e-5, 0.001, 0.0005,
                             1e15, 1e16, 1e17, 1e21, 1e22, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308,
                             9007199254740992.0, 9007199254740993.0, 123456789012345678.0, 42.0, 1234.5, 3.14159,
                             -273.15, 1e300, -1e-300, 0.3, 2.675, 1.005, 100.0, 4.35, 0.1 + 0.2,
                             std::nan(""), -std::nan(""), inf, -inf};
    for (int e = -30; e <= 30; ++e) v.push_back(std::pow(10.0, e));
    for (double d = 0.0; d < 5.0; d += 0.001) v.push_back(std::round(d * 1000.0) / 1000.0);  // round_ms values
    return v;
}

// Bytes that test the escaping and nlohmann's replacement of invalid UTF-8.
std::vector<std::string> hard_strings() {
    std::vector<std::string> v = {"", "plain", "with \"quotes\"", "back\\slash", "/slash/", "tab\there",
                                  "new\nline", "cr\rlf\n", "\b\f", std::string("nul\0byte", 8), "\x01\x1f\x7f",
                                  "caf\xc3\xa9", "\xe2\x82\xac 5", "\xf0\x9f\x98\x80 emoji", "\x80", "\xc3",
                                  "\xe2\x82", "abc\xff", "\xc0\xaf overlong", "\xed\xa0\x80 surrogate",
                                  "\xf5\x80\x80\x80", "mixed \xc3\xa9 and \xff and \"q\" and \n",
                                  "\xf0\x9f\x98", "ok\xc3\xa9\xc3", "\"\\\x1b[31m", "=1+2", "-dash"};
    for (int c = 0; c < 256; ++c) v.push_back(std::string(1, char(c)) + "x" + std::string(1, char(c)));
    return v;
}

// A random tree of every kind of value, with containers up to `depth` deep.
ojson random_value(std::mt19937_64& rng, int depth) {
    auto pick = [&](uint64_t n) { return rng() % n; };
    auto random_string = [&] {
        std::string s;
        size_t n = pick(24);
        bool bytes = pick(4) == 0;  // else mostly printable ASCII
        for (size_t i = 0; i < n; ++i) s += bytes ? char(rng()) : char(pick(8) ? 0x20 + pick(95) : pick(0x20));
        return s;
    };
    switch (pick(depth > 0 ? 11 : 8)) {
    case 0: return nullptr;
    case 1: return pick(2) == 0;
    case 2: return int64_t(rng());
    case 3: return uint64_t(rng());
    case 4: {  // any bit pattern, NaNs and infinities included
        uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    }
    case 5: return std::round(double(int64_t(pick(20'000'000))) - 1e7) / 1000.0;
    case 6: return double(int64_t(pick(1'000'000)));
    case 7: return random_string();
    case 8:
    case 9: {
        ojson o = ojson::object();
        for (size_t i = pick(5); i > 0; --i) o[random_string()] = random_value(rng, depth - 1);
        return o;
    }
    default: {
        ojson a = ojson::array();
        for (size_t i = pick(5); i > 0; --i) a.push_back(random_value(rng, depth - 1));
        return a;
    }
    }
}

} // namespace

TEST_CASE("json stream: doubles as nlohmann formats them (grisu2, .0, null for NaN and inf)", "[json]") {
    for (double d : hard_doubles()) {
        INFO("value " << d);
        check_same(ojson(d));
        check_same(ojson::array({d, d}));
    }
    std::mt19937_64 rng(1);
    ojson many = ojson::array();
    for (int i = 0; i < 20000; ++i) {
        uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        many.push_back(d);
        many.push_back(double(int64_t(rng() % 2'000'000'000)) / 1000.0);
        many.push_back(std::ldexp(double(rng() >> 11), int(rng() % 200) - 100));
    }
    check_same(many);
}

TEST_CASE("json stream: integers, booleans and null", "[json]") {
    ojson a = {int64_t(0), int64_t(-1), std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
               uint64_t(0), std::numeric_limits<uint64_t>::max(), uint64_t(1) << 63, true, false, nullptr};
    check_same(a);
    for (auto& v : a) check_same(v);
    // The narrow types the model uses, through the same overloads.
    std::ostringstream os;
    {
        JsonStream w(os, -1);
        w.begin_array().value(uint8_t(255)).value(uint16_t(65535)).value(int(-7)).value(uint32_t(4000000000u));
        w.value(std::optional<uint16_t>()).value(std::optional<uint8_t>(3)).value(std::vector<uint32_t>{1, 2});
        w.end_array();
    }
    CHECK(os.str() == "[255,65535,-7,4000000000,null,3,[1,2]]");
}

// One-digit integers take a shortcut (JsonStream::value): its edges.
TEST_CASE("json stream: integers around the one-digit shortcut", "[json]") {
    ojson a = ojson::array();
    for (int64_t v = -12; v <= 12; ++v) a.push_back(v);
    for (uint64_t v = 0; v <= 12; ++v) a.push_back(v);
    check_same(a);
    std::ostringstream os;
    {
        JsonStream w(os, -1);
        w.begin_array().value(uint8_t(9)).value(uint8_t(10)).value(int16_t(-1)).value(int(0)).value(uint32_t(7));
        w.value(int64_t(-10)).value(size_t(9)).value(size_t(100)).end_array();
    }
    CHECK(os.str() == "[9,10,-1,0,7,-10,9,100]");
}

TEST_CASE("json stream: strings escaped as nlohmann does, invalid UTF-8 replaced", "[json]") {
    for (auto& s : hard_strings()) {
        INFO("string of " << s.size() << " bytes");
        check_same(ojson(s));
        ojson o = ojson::object();
        o[s] = s;  // keys are escaped the same way
        check_same(o);
    }
    std::mt19937_64 rng(2);
    for (int i = 0; i < 5000; ++i) {
        std::string s;
        for (size_t n = rng() % 40; n > 0; --n) s += char(rng());
        check_same(ojson(s));
    }
}

TEST_CASE("json stream: empty containers, nesting and layout", "[json]") {
    check_same(ojson::object());
    check_same(ojson::array());
    check_same(ojson::parse(R"({"a":[],"b":{},"c":[[],{},[[]],{"d":{}}],"e":[1,[2,[3,{"f":[]}]]]})"));
    std::mt19937_64 rng(3);
    for (int i = 0; i < 3000; ++i) check_same(random_value(rng, 4));
}

TEST_CASE("json stream: documents and strings larger than its buffer", "[json]") {
    ojson big = ojson::array();
    std::string long_plain(300000, 'a'), long_escaped(100000, '"'), long_utf8;
    for (int i = 0; i < 50000; ++i) long_utf8 += "\xc3\xa9\xff";
    big.push_back(long_plain);
    big.push_back(long_escaped);
    big.push_back(long_utf8);
    for (int i = 0; i < 100000; ++i) big.push_back({{"i", i}, {"s", "x" + std::to_string(i)}, {"d", i / 7.0}});
    check_same(big);
}

namespace {

// What nlohmann writes for d, and what the ms fast path writes ("" when it declines).
std::string grisu(double d) {
    char buf[kDoubleChars];
    return std::string(buf, write_any_double(buf, d));
}
std::string fast_ms(double d) {
    char buf[kMsChars];
    char* end = write_ms_double(buf, d);
    return end ? std::string(buf, end) : std::string();
}

// The fast path either declines or writes nlohmann's bytes.
void check_ms(double d) {
    std::string got = fast_ms(d);
    if (got.empty()) return;
    INFO("value " << grisu(d));
    REQUIRE(got == grisu(d));
}

} // namespace

TEST_CASE("json number: times in ms (n / 1000) written as grisu2 writes them", "[json]") {
    for (uint64_t n = 0; n < (1u << 20); ++n) {  // every time below 1,048 ms
        double d = double(n) / 1000.0;
        REQUIRE(!fast_ms(d).empty());
        check_ms(d);
        check_ms(-d);
    }
    std::mt19937_64 rng(4);
    for (int i = 0; i < 1'000'000; ++i) {
        const uint64_t n = rng() >> 32;  // any n < 2^32, the fast path's range
        const double d = double(n) / 1000.0;
        REQUIRE(!fast_ms(d).empty());
        check_ms(d);
        check_ms(-d);
        // Its neighbours are not n / 1000: declined, or (never) the same bytes.
        check_ms(std::nextafter(d, 0.0));
        check_ms(std::nextafter(d, 1e300));
    }
    // Outside its range, and not times at all: declined or right.
    for (double d : hard_doubles()) check_ms(d);
    for (int i = 0; i < 200'000; ++i) {
        uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        check_ms(d);
        check_ms(double(rng() % 10'000'000'000'000ull) / 1000.0);
        check_ms(double(rng() % 1'000'000) / 10000.0);  // shares: 4 decimals
    }
    CHECK(fast_ms(4294967.295) == "4294967.295");
    CHECK(fast_ms(4294967.296).empty());
    CHECK(fast_ms(0.1 + 0.2).empty());
    CHECK(fast_ms(-0.0) == "-0.0");
    CHECK(fast_ms(7.0) == "7.0");
    CHECK(fast_ms(0.05) == "0.05");
    CHECK(fast_ms(std::nan("")).empty());
}

namespace {

// value_ms(ms) against value(round_ms(ms)): the same bytes, whichever path
// write_ms_rounded takes (or declines).
void check_rounded(double ms) {
    std::ostringstream fused, plain;
    {
        JsonStream a(fused, -1), b(plain, -1);
        a.begin_array().value_ms(ms).value(1).number_ms(ms);
        a.end_array();
        b.begin_array().value(round_ms(ms)).value(1).number(round_ms(ms));
        b.end_array();
    }
    INFO("ms " << grisu(ms));
    REQUIRE(fused.str() == plain.str());
}

} // namespace

TEST_CASE("json stream: value_ms writes value(round_ms(ms))", "[json]") {
    // Halves (rounded away from zero), their neighbours, -0.0, tiny negatives,
    // the edge of the fast path's range, NaN and infinities.
    for (double ms : {0.0, -0.0, 0.0005, -0.0005, 0.0004999, -0.0004999, 0.0015, 2.5e-4, -1e-300, 1e-300, 7.0,
                      0.05, 1.0005, -1.0005, 4294967.295, 4294967.2954999, 4294967.2955, 4294967.296, -4294967.2955,
                      1e9, -1e9, 1e300, std::numeric_limits<double>::infinity(),
                      -std::numeric_limits<double>::infinity(), std::nan(""), std::numeric_limits<double>::denorm_min()})
        check_rounded(ms);
    std::mt19937_64 rng(26);
    for (int i = 0; i < 300'000; ++i) {
        const double half = (double(rng() >> 32) + 0.5) / 1000.0;  // near n + 0.5 thousandths
        check_rounded(half);
        check_rounded(-half);
        check_rounded(std::nextafter(half, 0.0));
        check_rounded(std::nextafter(half, 1e300));
        check_rounded(double(int64_t(rng() % 20'000'000'000ull) - 10'000'000'000ll) / 1e6);  // ns as ms
        check_rounded(std::ldexp(double(rng() >> 11), int(rng() % 80) - 70));  // any magnitude
        uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        check_rounded(d);
    }
    // What write_ms_digits writes, digit by digit.
    char buf[kMsChars];
    CHECK(std::string(buf, write_ms_digits(buf, false, 0)) == "0.0");
    CHECK(std::string(buf, write_ms_digits(buf, true, 5)) == "-0.005");
    CHECK(std::string(buf, write_ms_digits(buf, false, 9990)) == "9.99");
    CHECK(std::string(buf, write_ms_digits(buf, false, 10'000)) == "10.0");
    CHECK(std::string(buf, write_ms_digits(buf, false, 4294967295u)) == "4294967.295");
    CHECK(write_ms_rounded(buf, 4294967.296) == nullptr);  // rounds to 2^32: declined
    CHECK(std::string(buf, write_ms_rounded(buf, -0.0004)) == "-0.0");  // round(-0.4) is -0.0
}

// The claim in json_number.h, for every n the fast path accepts. Hidden (about
// five minutes): run it with `analyzers_tests "[.exhaustive]"` after touching
// write_ms_double.
TEST_CASE("json number: every n below 2^32 (n / 1000) as grisu2 writes it", "[.exhaustive]") {
    uint64_t bad = 0;
    for (uint64_t n = 0; n < (uint64_t(1) << 32); ++n) {
        const double d = double(n) / 1000.0;
        char a[kDoubleChars], b[kMsChars];
        char* ea = write_any_double(a, d);
        char* eb = write_ms_double(b, d);
        if (!eb || ea - a != eb - b || std::memcmp(a, b, size_t(ea - a)) != 0) ++bad;
    }
    CHECK(bad == 0);
}

// The inline paths (plain short keys and strings) and the slow ones (escapes,
// bytes >= 0x80, long, deep) must give the same bytes as nlohmann, wherever in
// the buffer they fall: random strings of every kind, many to a document.
TEST_CASE("json stream: random keys and strings, fast and slow paths, as nlohmann writes them", "[json]") {
    std::mt19937_64 rng(5);
    auto random_string = [&] {
        std::string s;
        const size_t n = rng() % 8 == 0 ? rng() % 6000 : rng() % 80;  // some past the inline limit (4096)
        switch (rng() % 4) {
        case 0:  // plain printable ASCII: the fast path
            for (size_t i = 0; i < n; ++i) s += char(0x20 + rng() % 95);
            break;
        case 1:  // mostly plain, now and then a quote, a backslash or a control character
            for (size_t i = 0; i < n; ++i) s += rng() % 16 ? char(0x20 + rng() % 95) : "\"\\\n\t\x01\x1f"[rng() % 6];
            break;
        case 2:  // mostly plain, now and then a byte >= 0x80 (UTF-8 or not)
            for (size_t i = 0; i < n; ++i) s += rng() % 16 ? char(0x20 + rng() % 95) : char(0x80 + rng() % 128);
            break;
        default:  // any bytes
            for (size_t i = 0; i < n; ++i) s += char(rng());
        }
        return s;
    };
    for (int doc = 0; doc < 40; ++doc) {
        ojson a = ojson::array();
        for (int i = 0; i < 400; ++i) {
            ojson o = ojson::object();
            for (size_t k = rng() % 4; k > 0; --k) o[random_string()] = random_string();
            a.push_back(std::move(o));
            a.push_back(random_string());
        }
        check_same(a);
    }
    // Deeper than the inline key path's indent (64 columns).
    ojson deep = "leaf";
    for (int d = 0; d < 40; ++d) deep = ojson{{"k" + std::to_string(d), deep}, {"s", random_string()}};
    check_same(deep);
}

// plain() reads eight bytes at a time: every byte that needs an escape or
// the UTF-8 check, at every place in a string longer than a word.
// The tail is read as one word over the last 8 bytes, or two overlapping
// halves for 4 to 7 bytes, or byte by byte below 4: every length up to 25.
TEST_CASE("json stream: a byte that needs escaping is found at every place of a string", "[json]") {
    for (int b = 0; b < 256; ++b) {
        for (size_t len = 1; len <= 40; ++len)  // each tail path, and 16-byte blocks and their tail
        for (size_t at = 0; at < len; ++at) {
            std::string s(len, 'a');
            s[at] = char(b);
            std::ostringstream os;
            {
                JsonStream w(os, -1);
                w.value(s);
            }
            INFO("byte " << b << " at " << at);
            CHECK(os.str() == ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace));
        }
    }
}

// The reports' keys take the literal path (key(const char (&)[N])), which
// does not scan for escapes: every key of every golden report is plain.
TEST_CASE("json stream: every key the reports write is plain ASCII", "[json]") {
    size_t files = 0, keys = 0;
    std::function<void(const ojson&)> walk = [&](const ojson& j) {
        if (j.is_object()) {
            for (auto& [k, v] : j.items()) {
                ++keys;
                INFO(k);
                CHECK(std::all_of(k.begin(), k.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }));
                walk(v);
            }
        } else if (j.is_array()) {
            for (auto& v : j) walk(v);
        }
    };
    for (auto& e : std::filesystem::directory_iterator(std::string(STALLSCOPE_TESTDATA_DIR) + "/golden")) {
        if (e.path().string().find(".json.expected") == std::string::npos) continue;
        std::ifstream in(e.path());
        walk(ojson::parse(in));
        ++files;
    }
    CHECK(files > 5);
    CHECK(keys > 1000);
}

// write_uint_table / write_ms_code_table (json_number.h) format a call
// tape's raw values from tables: the bytes of write_uint and of
// write_ms_rounded for every table entry, both signs and past the tables.
TEST_CASE("json number: integers and ms values from tables as write_uint and write_ms_rounded write them", "[json]") {
    auto same_u = [](uint64_t n) {
        char a[32], b[32];
        const std::string_view want(a, size_t(write_uint(a, n) - a));
        const std::string_view got(b, size_t(write_uint_table(b, n) - b));
        INFO(n);
        CHECK(got == want);
    };
    auto same_ms = [](double ms) {
        char a[32], b[32];
        uint64_t code = 0;
        REQUIRE(ms_rounded_code(ms, code));
        const std::string_view want(a, size_t(write_ms_rounded(a, ms) - a));
        const std::string_view got(b, size_t(write_ms_code_table(b, code) - b));
        INFO(ms);
        CHECK(got == want);
    };
    for (uint64_t n = 0; n < 300000; ++n) same_u(n);
    for (uint64_t n = 300000; n < 200000000; n += 9973) same_u(n);
    for (uint64_t n : {uint64_t(99999999), uint64_t(100000000), uint64_t(100000001), uint64_t(UINT32_MAX), UINT64_MAX})
        same_u(n);
    for (uint32_t n = 0; n < 30000; ++n) {  // every fraction, whole parts 0 to 29, both signs
        same_ms(double(n) / 1000.0);
        same_ms(-double(n) / 1000.0);
    }
    for (double ms : {12345.678, 9999.999, 10000.0, 4294967.295, -4294967.295, 0.0004, -0.0004}) same_ms(ms);
}

// write_uint / write_int (json_number.h) replace std::to_chars for every
// integer of a report: the same digits for every length, at its edges.
TEST_CASE("json number: integers written two digits at a time as to_chars writes them", "[json]") {
    auto same_u = [](uint64_t n) {
        char a[24], b[24];
        const std::string_view want(a, size_t(std::to_chars(a, a + 24, n).ptr - a));
        const std::string_view got(b, size_t(write_uint(b, n) - b));
        INFO(n);
        CHECK(got == want);
        CHECK(decimal_digits(n) == want.size());
    };
    auto same_i = [](int64_t n) {
        char a[24], b[24];
        const std::string_view want(a, size_t(std::to_chars(a, a + 24, n).ptr - a));
        const std::string_view got(b, size_t(write_int(b, n) - b));
        INFO(n);
        CHECK(got == want);
    };
    for (uint64_t n = 0; n < 100000; ++n) same_u(n);
    for (int64_t n = -1000; n < 1000; ++n) same_i(n);
    uint64_t p = 1;
    for (int k = 0; k < 20; ++k, p *= 10) {  // 10^k and its neighbours, 32 and 64 bits
        for (uint64_t d : {p - 1, p, p + 1, 2 * p - 1, 9 * p, 9 * p + 1}) same_u(d);
        same_i(int64_t(p > uint64_t(INT64_MAX) ? 0 : p));
        same_i(-int64_t(p > uint64_t(INT64_MAX) ? 0 : p));
    }
    for (int b = 0; b < 64; ++b) {  // 2^b and its neighbours
        const uint64_t v = uint64_t(1) << b;
        same_u(v - 1);
        same_u(v);
        same_u(v + 1);
    }
    same_u(uint64_t(UINT32_MAX));
    same_u(uint64_t(UINT32_MAX) + 1);
    same_u(UINT64_MAX);
    same_i(INT64_MIN);
    same_i(INT64_MAX);
    same_i(INT64_MIN + 1);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 200000; ++i) {
        const uint64_t v = rng() >> (rng() % 64);
        same_u(v);
        same_i(int64_t(v) * (i % 2 ? -1 : 1));
    }
    // Through the stream, every integer type.
    std::ostringstream os;
    {
        JsonStream w(os, -1);
        w.begin_array().value(uint8_t(99)).value(uint16_t(100)).value(int16_t(-32768)).value(uint32_t(4294967295u));
        w.value(int64_t(-9999999999)).value(uint64_t(10000000000000000000ULL)).end_array();
    }
    CHECK(os.str() == "[99,100,-32768,4294967295,-9999999999,10000000000000000000]");
}

// Keys written in the code take an inline path (key(const char (&)[N])) that
// falls back to the general one deeper than 64 columns: both, every indent.
TEST_CASE("json stream: literal keys at every depth as nlohmann writes them", "[json]") {
    for (int indent : kIndents) {
        std::ostringstream os;
        ojson want = 7;
        {
            JsonStream w(os, indent);
            for (int d = 0; d < 40; ++d) w.begin_object().key("first").value(int64_t(d)).key("nested_key");
            w.value(int64_t(7));
            for (int d = 0; d < 40; ++d) w.key("last").begin_array().end_array().end_object();
        }
        for (int d = 39; d >= 0; --d) {
            ojson o = ojson::object();
            o["first"] = d;
            o["nested_key"] = want;
            o["last"] = ojson::array();
            want = std::move(o);
        }
        INFO("indent " << indent);
        CHECK(os.str() == want.dump(indent, ' ', false, ojson::error_handler_t::replace));
    }
}

// raw_string copies a plain string of up to 16 bytes as two overlapping
// fixed-size copies: every length, with bytes that differ, as value() writes it.
TEST_CASE("json stream: a plain string written raw is value()'s bytes at every length", "[json]") {
    for (size_t len = 0; len <= 40; ++len) {
        std::string s;
        for (size_t i = 0; i < len; ++i) s += char('A' + i % 26 + (i / 26) * 6);
        for (size_t before = 0; before < 3; ++before) {  // raw after other values too
            std::ostringstream raw, general;
            {
                JsonStream a(raw, -1), b(general, -1);
                a.begin_array();
                b.begin_array();
                for (size_t i = 0; i < before; ++i) {
                    a.value(s);
                    b.value(s);
                }
                b.value(s);
                char* p = a.raw_begin();
                if (!a.raw_element()) *p++ = ',';
                p = a.raw_string(p, s);
                a.raw_end(p);
                a.end_array();
                b.end_array();
            }
            INFO("length " << len << " after " << before);
            CHECK(raw.str() == general.str());
        }
    }
}
