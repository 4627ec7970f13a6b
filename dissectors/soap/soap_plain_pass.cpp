#include "dissectors/soap/soap_plain_pass.h"

#include "dissectors/soap/envelope_walker.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stallscope::soap_detail {

namespace {

// As the SAX pass: deeper documents are left to the reader's own limits.
constexpr uint32_t kPlainMaxLevels = 200;
constexpr size_t kMaxAttributes = 32;  // more on one element: declined
// libxml2 refuses names over 50,000 characters and text over 10,000,000
// bytes (no XML_PARSE_HUGE); far below both, nothing can hit them.
constexpr size_t kMaxName = 1000;
constexpr size_t kMaxDocument = 8 * 1024 * 1024;

// Character classes by table: the scan looks at every byte of a body, and
// one load beats the chains of comparisons (measured in performance.md).
enum : uint8_t { kSpace = 1, kNameStart = 2, kNameChar = 4, kPlain = 8, kAlnum = 16, kText = 32, kValue = 64 };
constexpr std::array<uint8_t, 256> make_classes() {
    std::array<uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        const bool digit = c >= '0' && c <= '9';
        const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
        // Printable ASCII and the three white-space controls: XML characters that
        // are the same in every ASCII-compatible encoding and need no UTF-8 check.
        const bool plain = (c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n' || c == '\r';
        uint8_t v = 0;
        if (space) v |= kSpace;
        if (alpha || c == '_') v |= kNameStart | kNameChar;
        if (digit || c == '.' || c == '-') v |= kNameChar;
        if (plain) v |= kPlain;
        if (alpha || digit) v |= kAlnum;
        // Character data the content loop passes without a second look.
        if (plain && c != '<' && c != '&' && c != '>') v |= kText;
        // Attribute value characters (the closing quote is found before).
        if (plain && c != '<' && c != '&') v |= kValue;
        t[size_t(c)] = v;
    }
    return t;
}
constexpr std::array<uint8_t, 256> kClass = make_classes();
bool has(char c, uint8_t cls) { return kClass[static_cast<unsigned char>(c)] & cls; }

bool is_space(char c) { return has(c, kSpace); }
bool is_name_start(char c) { return has(c, kNameStart); }
bool is_plain_char(char c) { return has(c, kPlain); }
bool is_alnum(char c) { return has(c, kAlnum); }

// The end of the name characters from p on (at most n).
size_t name_end(const char* s, size_t p, size_t n) {
    while (p < n && has(s[p], kNameChar)) ++p;
    return p;
}

// Past whole 8-byte words of printable ASCII other than < & and `also`
// ('>' in character data, the quote in a value), from p up to n, a word at
// a time: a byte is flagged by the classic "has a byte below n / equal to
// c" tricks, which never miss one (they may flag more bytes above a true
// one; only "any" is used).
[[gnu::always_inline]] inline size_t skip_plain_words(const char* s, size_t p, size_t n, char also) {
    constexpr uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    auto below = [&](uint64_t x, uint64_t k) { return (x - ones * k) & ~x & highs; };
    auto equal = [&](uint64_t x, uint64_t c) { return below(x ^ (ones * c), 1); };
    while (p + 8 <= n) {
        uint64_t x;
        std::memcpy(&x, s + p, 8);
        if ((x & highs) | below(x, 0x20) | equal(x, 0x7F) | equal(x, '<') | equal(x, '&') | equal(x, uint8_t(also)))
            break;
        p += 8;
    }
    return p;
}

#if defined(__SSE2__)
// The offset (0 to 15) of the first byte of s[0, 16) that character data
// does not pass unlooked-at (below 0x20 or past 0x7E, '<', '&', '>'), 16
// if none: one test for 16 bytes, and the stop byte's place without a
// byte loop (short texts between tags are most of a long envelope).
[[gnu::always_inline]] inline unsigned text_stop16(const char* s) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    // A signed compare: bytes 0x80 to 0xFF are negative, below 0x20 too.
    __m128i m = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7F)));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('<')));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('&')));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('>')));
    const unsigned bits = unsigned(_mm_movemask_epi8(m));
    return bits ? unsigned(__builtin_ctz(bits)) : 16u;
}
#endif

// Namespace names libxml2's URI parser takes with a scheme and without a
// message: urn:<pchar...>, http(s)://host[:port][/path]. Anything else
// (relative, odd characters, the reserved xml/xmlns names) is declined.
bool plain_namespace_uri(std::string_view u) {
    // The envelope's own, declared in nearly every document: no walk.
    if (u == kSoap11Ns || u == kSoap12Ns) return true;
    auto path_char = [](char c) { return is_alnum(c) || c == '.' || c == '-' || c == '_' || c == '~' || c == ':'; };
    if (u.substr(0, 4) == "urn:") {
        u.remove_prefix(4);
        return !u.empty() && std::all_of(u.begin(), u.end(), path_char);
    }
    if (u == "http://www.w3.org/XML/1998/namespace" || u == "http://www.w3.org/2000/xmlns/") return false;
    if (u.substr(0, 7) == "http://") u.remove_prefix(7);
    else if (u.substr(0, 8) == "https://") u.remove_prefix(8);
    else return false;
    // A host name starting with a letter: libxml2 reads a leading dotted
    // quad as an IPv4 address and fails on what follows (1.2.3.4.5).
    size_t i = 0;
    if (u.empty() || !is_name_start(u[0]) || u[0] == '_') return false;
    while (i < u.size() && (is_alnum(u[i]) || u[i] == '.' || u[i] == '-')) ++i;
    if (i < u.size() && u[i] == ':') {  // a port of 1 to 5 digits (libxml2 fails past INT_MAX)
        size_t d = ++i;
        while (i < u.size() && u[i] >= '0' && u[i] <= '9') ++i;
        if (i == d || i - d > 5) return false;
    }
    if (i == u.size()) return true;
    if (u[i] != '/') return false;
    for (; i < u.size(); ++i)
        if (u[i] != '/' && !path_char(u[i])) return false;
    return true;
}

struct Binding {
    std::string_view prefix;  // empty: the default namespace
    std::string_view uri;
    int depth;  // of the element that declared it
};

struct Attribute {
    std::string_view prefix, local, value;
};

// The scanner's stacks, kept per thread so a document allocates nothing.
struct ScanStacks {
    std::vector<std::string_view> open;  // qualified names of the open elements
    std::vector<Binding> bindings;
    std::vector<Attribute> attrs;
    void clear() {
        open.clear();
        bindings.clear();
        attrs.clear();
    }
};

class PlainScanner {
public:
    PlainScanner(std::string_view doc, EnvelopeWalker& walker, uint32_t level_cap, ScanStacks& stacks)
        : d_(doc), walker_(walker), level_cap_(level_cap), open_(stacks.open), bindings_(stacks.bindings),
          attrs_(stacks.attrs) {}

    // True: taken (read to the end, or to the head's end when the walker
    // says it is done: every false after that only unwinds the scan).
    bool run() { return scan() || stopped_; }
    // Stopped after the head (run() true): no byte from here on was read.
    bool stopped() const { return stopped_; }
    // Read to the end (run() true, not stopped): the bytes from each '<'
    // outside a tag to the next '>' (analyzers' count_markup_bytes), when
    // no attribute value holds a '>'; else kMarkupUnknown. Everything the
    // scan takes outside its tags is character data and white space around
    // the root (no comment, PI, CDATA, reference), and no '<' is in a value.
    uint64_t markup_bytes() const {
        return (!count_markup_ || stopped_ || gt_in_tag_) ? kMarkupUnknown : uint64_t(d_.size() - outside_);
    }
    void count_markup() { count_markup_ = true; }
    size_t position() const { return p_; }

private:
    bool stop_if_done() {
        stopped_ = walker_.done();
        return !stopped_;
    }

    bool scan() {
        if (!declaration()) return false;
        skip_space_outside();
        if (at(p_) != '<' || at(p_ + 1) == '!' || at(p_ + 1) == '?') return false;
        if (!element()) return false;
        if (!open_.empty() && !content()) return false;
        skip_space_outside();
        return p_ == d_.size();  // nothing but white space after the root
    }

    char at(size_t i) const { return i < d_.size() ? d_[i] : '\0'; }
    // White space outside the root and the declaration: not markup.
    void skip_space_outside() {
        const size_t b = p_;
        skip_space();
        outside_ += p_ - b;
    }
    void skip_space() {
        const char* s = d_.data();
        size_t p = p_;
        while (p < d_.size() && is_space(s[p])) ++p;
        p_ = p;
    }
    bool expect(std::string_view s) {
        if (d_.substr(p_, s.size()) != s) return false;
        p_ += s.size();
        return true;
    }
    // QName (ASCII) at p_: NCName, or NCName ':' NCName, on locals (the
    // scan's hottest loop). It ends at a second ':', which no caller takes.
    [[gnu::always_inline]] bool qname(std::string_view& prefix, std::string_view& local) {
        const char* s = d_.data();
        const size_t n = d_.size(), b = p_;
        if (b >= n || !is_name_start(s[b])) return false;
        size_t p = name_end(s, b + 1, n);
        const size_t colon = p;
        if (p < n && s[p] == ':') {
            if (p + 1 >= n || !is_name_start(s[p + 1])) return false;
            p = name_end(s, p + 2, n);
        }
        p_ = p;
        if (colon == p) {
            if (p - b > kMaxName) return false;
            prefix = {};
            local = d_.substr(b, p - b);
            return true;
        }
        if (colon - b > kMaxName || p - colon - 1 > kMaxName) return false;
        prefix = d_.substr(b, colon - b);
        local = d_.substr(colon + 1, p - colon - 1);
        return true;
    }
    // Quoted attribute value: plain characters, no '<' or '&'. One pass,
    // a word at a time to the first byte that is the quote or needs a look.
    bool quoted(std::string_view& value) {
        const char q = at(p_);
        if (q != '"' && q != '\'') return false;
        const char* s = d_.data();
        const size_t n = d_.size(), b = p_ + 1;
        for (size_t p = b; p < n;) {
            p = skip_plain_words(s, p, n, q);
            // The word that stopped it (or the tail), byte by byte.
            for (const size_t word_end = std::min(n, p + 8); p < word_end; ++p) {
                if (s[p] == q) {
                    value = d_.substr(b, p - b);
                    p_ = p + 1;
                    // A '>' inside a tag ends it for count_markup_bytes's rule.
                    if (count_markup_ && value.find('>') != std::string_view::npos) gt_in_tag_ = true;
                    return true;
                }
                if (!has(s[p], kValue)) return false;
            }
        }
        return false;
    }
    bool eq() {
        skip_space();
        if (at(p_) != '=') return false;
        ++p_;
        skip_space();
        return true;
    }

    // <?xml version="1.0" [encoding="UTF-8"] [standalone="yes|no"]?> at the
    // very start, or nothing.
    bool declaration() {
        if (d_.substr(0, 5) != "<?xml") return true;
        p_ = 5;
        std::string_view v;
        if (!is_space(at(p_))) return false;
        skip_space();
        if (!expect("version") || !eq() || !quoted(v) || v != "1.0") return false;
        auto attribute = [&](std::string_view name) {
            size_t save = p_;
            skip_space();
            if (p_ == save || !expect(name)) { p_ = save; return false; }
            return true;
        };
        if (attribute("encoding")) {
            if (!eq() || !quoted(v) || (v != "UTF-8" && v != "utf-8")) return false;
        }
        if (attribute("standalone")) {
            if (!eq() || !quoted(v) || (v != "yes" && v != "no")) return false;
        }
        skip_space();
        return expect("?>");
    }

    std::string_view resolve(std::string_view prefix, bool& ok) const {
        for (auto it = bindings_.rbegin(); it != bindings_.rend(); ++it)
            if (it->prefix == prefix) return it->uri;
        ok = prefix.empty();  // no default namespace is fine, an unbound prefix is not
        return {};
    }

    // A start tag at p_ ('<'): the element is opened (or, <x/>, opened and closed).
    bool element() {
        const size_t name_begin = ++p_;
        std::string_view prefix, local;
        if (!qname(prefix, local)) return false;
        const std::string_view qn = d_.substr(name_begin, p_ - name_begin);
        const int depth = int(open_.size());
        attrs_.clear();
        bool empty = false;
        for (;;) {
            const size_t before = p_;
            skip_space();
            if (at(p_) == '>') { ++p_; break; }
            if (at(p_) == '/' && at(p_ + 1) == '>') { p_ += 2; empty = true; break; }
            if (p_ == before) return false;  // attributes are separated by white space
            Attribute a;
            if (!qname(a.prefix, a.local) || !eq() || !quoted(a.value)) return false;
            // Same local name twice (also via two prefixes, or two declarations
            // of one prefix): libxml2 may call it an error; declined.
            for (const Attribute& o : attrs_)
                if (o.local == a.local) return false;
            if (attrs_.size() >= kMaxAttributes) return false;
            attrs_.push_back(a);
        }
        // Declarations first: they apply to the element's own name and attributes.
        for (const Attribute& a : attrs_) {
            if (a.prefix.empty() && a.local == "xmlns") {
                if (!a.value.empty() && !plain_namespace_uri(a.value)) return false;
                bindings_.push_back({{}, a.value, depth});
            } else if (a.prefix == "xmlns") {
                if (a.local == "xml" || a.local == "xmlns" || !plain_namespace_uri(a.value)) return false;
                bindings_.push_back({a.local, a.value, depth});
            }
        }
        for (const Attribute& a : attrs_) {
            if (a.prefix.empty() || a.prefix == "xmlns") continue;
            bool ok = true;
            if (a.prefix == "xml") return false;  // xml:id and friends: the reader's tree looks at them
            resolve(a.prefix, ok);
            if (!ok) return false;
        }
        if (!prefix.empty() && (prefix == "xml" || prefix == "xmlns")) return false;
        bool ok = true;
        const std::string_view uri = resolve(prefix, ok);
        if (!ok) return false;
        if (uint32_t(depth) + 1 > level_cap_) return false;
        if (!walker_.element(depth, local, uri, empty)) return false;
        if (empty) {
            walker_.end_element(depth);
            pop_bindings(depth);
        } else {
            open_.push_back(qn);
        }
        return stop_if_done();
    }

    void pop_bindings(int depth) {
        while (!bindings_.empty() && bindings_.back().depth >= depth) bindings_.pop_back();
    }

    // Character data from p_ to the next '<' (p_ left there, or at the end):
    // 16 bytes a test (SSE2), or whole words of plain bytes and the word that
    // stopped the test byte by byte, so each byte is looked at once or twice
    // (one word test per remaining byte cost ~20 instructions a byte of a
    // short text). False: a byte character data may not hold plainly ('&',
    // "]]>", non-ASCII).
    bool text_run() {
        const char* s = d_.data();
        const size_t n = d_.size(), b = p_;
        size_t p = p_;
        while (p < n) {
#if defined(__SSE2__)
            if (p + 16 <= n) {
                const unsigned k = text_stop16(s + p);
                p += k;
                if (k == 16) continue;
            } else {
                while (p < n && has(s[p], kText)) ++p;
                if (p == n) break;
            }
#else
            p = skip_plain_words(s, p, n, '>');
            const size_t word_end = std::min(n, p + 8);
            while (p < word_end && has(s[p], kText)) ++p;
            if (p == word_end) continue;  // a word of text bytes (or the end)
#endif
            const char c = s[p];
            if (has(c, kText)) { ++p; continue; }  // tab, LF, CR
            if (c == '<') break;
            if (c == '&' || !is_plain_char(c)) return false;
            if (p >= 2 && s[p - 1] == ']' && s[p - 2] == ']' && p - 2 >= b) return false;  // "]]>"
            ++p;  // '>'
        }
        p_ = p;
        return true;
    }

    // Content of the open elements until the root's end tag.
    bool content() {
        while (!open_.empty()) {
            const size_t b = p_;
            if (p_ < d_.size() && d_[p_] != '<' && !text_run()) return false;
            if (p_ >= d_.size()) return false;  // unclosed elements
            if (p_ > b) {
                const int depth = int(open_.size());
                std::string_view text = d_.substr(b, p_ - b);
                outside_ += p_ - b;
                // libxml2 turns line ends into \n in character data.
                if (walker_.wants_text(depth) && text.find('\r') != std::string_view::npos) return false;
                walker_.text(depth, text);
            }
            if (at(p_ + 1) == '/') {
                p_ += 2;
                std::string_view prefix, local;
                const size_t nb = p_;
                if (!qname(prefix, local)) return false;
                if (d_.substr(nb, p_ - nb) != open_.back()) return false;
                skip_space();
                if (at(p_) != '>') return false;
                ++p_;
                open_.pop_back();
                const int depth = int(open_.size());
                walker_.end_element(depth);
                pop_bindings(depth);
                if (!stop_if_done()) return false;
            } else if (at(p_ + 1) == '!' || at(p_ + 1) == '?') {
                return false;  // comment, CDATA, PI, DOCTYPE: not plain
            } else if (!element()) {
                return false;
            }
        }
        return true;
    }

    std::string_view d_;
    size_t p_ = 0;
    EnvelopeWalker& walker_;
    uint32_t level_cap_;
    std::vector<std::string_view>& open_;  // qualified names of the open elements
    std::vector<Binding>& bindings_;
    std::vector<Attribute>& attrs_;
    bool stopped_ = false;
    bool count_markup_ = false;
    bool gt_in_tag_ = false;  // a '>' in an attribute value (count_markup_ only)
    size_t outside_ = 0;      // bytes outside the tags: character data, white space around the root
};

} // namespace

namespace {

// Heads read before on this thread (SoapRead::Head, taken, stopped after
// the head): the bytes up to where the scan stopped, and what it yielded.
// The scan of a head reads no byte past that point (a word test that looks
// further stops at the '<' or the quote before it, whatever follows), so a
// document starting with the same bytes yields the same SoapInfo: a client
// sends the same head for every call of an operation, and it is compared
// instead of scanned. Whatever a thread read before, the answer is the
// scan's.
class HeadMemo {
public:
    const SoapInfo* find(std::string_view doc, uint32_t max_depth) {
        // In a long run of misses, one document in 16 is looked up: the
        // compares cost little where heads never repeat, and a hit ends the run.
        if (misses_ > 64 && misses_ % 16 != 0) {
            ++misses_;
            return nullptr;
        }
        for (const Entry& e : entries_)
            if (e.max_depth == max_depth && !e.head.empty() && doc.size() >= e.head.size() &&
                std::memcmp(doc.data(), e.head.data(), e.head.size()) == 0) {
                ++hits_;
                misses_ = 0;
                return &e.info;
            }
        ++misses_;
        return nullptr;
    }
    // Heads that differ in every call (a message id in a Header) never hit:
    // after a run of misses only one in 64 is kept, so copying them costs
    // little and the heads that do repeat are not all pushed out.
    void add(std::string_view head, uint32_t max_depth, const SoapInfo& info) {
        if (misses_ > 8 && misses_ % 64 != 0) return;
        Entry& e = entries_[next_++ % entries_.size()];
        e.head.assign(head.data(), head.size());  // capacity kept: no allocation once warm
        e.max_depth = max_depth;
        e.info = info;
    }
    uint64_t hits() const { return hits_; }

private:
    struct Entry {
        std::string head;  // empty: unused
        uint32_t max_depth = 0;
        SoapInfo info;
    };
    std::array<Entry, 4> entries_;  // a few operations' heads at a time; more only cost compares
    size_t next_ = 0;
    uint64_t hits_ = 0;
    uint64_t misses_ = 0;  // since the last hit
};

thread_local HeadMemo t_head_memo;

} // namespace

bool plain_decode(std::string_view doc, const SoapLimits& limits, SoapInfo& info, SoapRead read,
                  uint64_t* markup_bytes) {
    if (markup_bytes) *markup_bytes = kMarkupUnknown;
    if (doc.size() > kMaxDocument) return false;
    const bool head = read == SoapRead::Head;
    if (head) {
        if (const SoapInfo* known = t_head_memo.find(doc, limits.max_depth)) {
            info = *known;
            return true;
        }
    }
    thread_local ScanStacks stacks;
    stacks.clear();
    EnvelopeWalker walker(info, limits, read);
    PlainScanner scan(doc, walker, std::min(limits.max_depth, kPlainMaxLevels), stacks);
    if (markup_bytes) scan.count_markup();
    if (!scan.run() || !info.error.empty()) return false;
    if (markup_bytes) *markup_bytes = scan.markup_bytes();
    if (head && scan.stopped()) t_head_memo.add(doc.substr(0, scan.position()), limits.max_depth, info);
    return true;
}

uint64_t plain_head_memo_hits() { return t_head_memo.hits(); }

} // namespace stallscope::soap_detail
