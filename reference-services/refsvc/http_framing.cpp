#include "reference-services/refsvc/http_framing.h"

#include "dissectors/http/ascii_case.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace stallscope::refsvc {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// Ensures at least `n` buffered bytes (or returns the error).
std::string fill_to(Conn& c, size_t n, int64_t deadline_ns) {
    std::string err;
    while (c.buffer().size() < n) {
        long r = c.read_some(deadline_ns, err);
        if (r < 0) return err;
        if (r == 0) return "connection closed before the message was complete";
    }
    return "";
}

// Reads one CRLF-terminated line from the buffer (bounded).
std::string read_line(Conn& c, int64_t deadline_ns, std::string& line) {
    std::string err;
    size_t eol;
    while ((eol = c.buffer().find("\r\n")) == std::string::npos) {
        if (c.buffer().size() > 1024) return "chunk-size line too long";
        long r = c.read_some(deadline_ns, err);
        if (r < 0) return err;
        if (r == 0) return "connection closed inside a chunked body";
    }
    line = c.buffer().substr(0, eol);
    c.buffer().erase(0, eol + 2);
    return "";
}

}  // namespace

const std::string* HttpHead::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (ascii_iequals(k, name)) return &v;
    return nullptr;
}

bool HttpHead::header_has_token(std::string_view name, std::string_view token) const {
    for (const auto& [k, v] : headers) {
        if (!ascii_iequals(k, name)) continue;
        std::string_view rest = v;
        while (!rest.empty()) {
            size_t comma = rest.find(',');
            if (ascii_iequals(trim(rest.substr(0, comma)), token)) return true;
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    return false;
}

std::string build_request_head(const std::string& path, const std::string& host_port, bool http11,
                               size_t content_length, bool expect_100, const std::string& soap_action) {
    std::string h = "POST " + path + (http11 ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");
    h += "Host: " + host_port + "\r\n";
    h += "User-Agent: stallscope-refclient/0.1\r\n";
    h += "Content-Type: text/xml; charset=utf-8\r\n";
    h += "Content-Length: " + std::to_string(content_length) + "\r\n";
    h += "SOAPAction: \"" + soap_action + "\"\r\n";
    if (expect_100) h += "Expect: 100-continue\r\n";
    h += "\r\n";
    return h;
}

std::string build_response_head(int status, bool http11, bool keep_alive, bool chunked, size_t content_length) {
    const char* reason = status == 200 ? "OK" : status == 500 ? "Internal Server Error" : "Bad Request";
    std::string h = std::string(http11 ? "HTTP/1.1 " : "HTTP/1.0 ") + std::to_string(status) + " " + reason + "\r\n";
    h += "Server: stallscope-refserver/0.1\r\n";
    h += "Content-Type: text/xml; charset=utf-8\r\n";
    if (chunked) h += "Transfer-Encoding: chunked\r\n";
    else h += "Content-Length: " + std::to_string(content_length) + "\r\n";
    if (!keep_alive) h += "Connection: close\r\n";
    h += "\r\n";
    return h;
}

std::string continue_head() { return "HTTP/1.1 100 Continue\r\n\r\n"; }

std::string chunk_encode(std::string_view body) {
    std::string out;
    char hex[32];
    for (size_t off = 0; off < body.size(); off += kChunkBytes) {
        size_t n = std::min(kChunkBytes, body.size() - off);
        std::snprintf(hex, sizeof hex, "%zx\r\n", n);
        out += hex;
        out.append(body.substr(off, n));
        out += "\r\n";
    }
    out += "0\r\n\r\n";
    return out;
}

std::string parse_head(std::string_view text, bool response, HttpHead& out) {
    out = HttpHead{};
    out.is_response = response;
    size_t eol = text.find("\r\n");
    std::string_view first = text.substr(0, eol);
    size_t sp1 = first.find(' ');
    if (sp1 == std::string_view::npos) return "malformed start line";
    size_t sp2 = first.find(' ', sp1 + 1);
    if (response) {
        out.version = std::string(first.substr(0, sp1));
        std::string code(first.substr(sp1 + 1, sp2 == std::string_view::npos ? std::string_view::npos : sp2 - sp1 - 1));
        char* end = nullptr;
        long st = std::strtol(code.c_str(), &end, 10);
        if (code.size() != 3 || *end != '\0' || st < 100 || st > 599) return "bad status code '" + code + "'";
        out.status = static_cast<int>(st);
    } else {
        if (sp2 == std::string_view::npos) return "malformed request line";
        out.method = std::string(first.substr(0, sp1));
        out.target = std::string(first.substr(sp1 + 1, sp2 - sp1 - 1));
        out.version = std::string(first.substr(sp2 + 1));
    }
    if (out.version != "HTTP/1.0" && out.version != "HTTP/1.1") return "unsupported version '" + out.version + "'";
    while (eol != std::string_view::npos) {
        size_t start = eol + 2;
        eol = text.find("\r\n", start);
        std::string_view line = text.substr(start, eol == std::string_view::npos ? std::string_view::npos : eol - start);
        if (line.empty()) continue;
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) return "header line without colon";
        out.headers.emplace_back(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
    }
    return "";
}

std::string read_head(Conn& conn, bool response, int64_t deadline_ns, HttpHead& out) {
    std::string err;
    size_t end;
    while ((end = conn.buffer().find("\r\n\r\n")) == std::string::npos) {
        if (conn.buffer().size() > kMaxHeadBytes) return "HTTP head larger than 64 KiB";
        long r = conn.read_some(deadline_ns, err);
        if (r < 0) return err;
        if (r == 0) return conn.buffer().empty() ? "eof" : "connection closed inside the HTTP head";
    }
    std::string text = conn.buffer().substr(0, end);
    conn.buffer().erase(0, end + 4);
    return parse_head(text, response, out);
}

std::string read_body(Conn& conn, const HttpHead& head, int64_t deadline_ns, std::string& body) {
    body.clear();
    if (head.header_has_token("Transfer-Encoding", "chunked")) {
        for (;;) {
            std::string line;
            if (auto e = read_line(conn, deadline_ns, line); !e.empty()) return e;
            char* end = nullptr;
            unsigned long n = std::strtoul(line.c_str(), &end, 16);
            if (end == line.c_str()) return "bad chunk size line";
            if (body.size() + n > kMaxBodyBytes) return "chunked body too large";
            if (n == 0) {  // trailers until blank line
                do {
                    if (auto e = read_line(conn, deadline_ns, line); !e.empty()) return e;
                } while (!line.empty());
                return "";
            }
            if (auto e = fill_to(conn, n + 2, deadline_ns); !e.empty()) return e;
            body.append(conn.buffer(), 0, n);
            conn.buffer().erase(0, n + 2);
        }
    }
    if (const std::string* cl = head.header("Content-Length")) {
        char* end = nullptr;
        unsigned long n = std::strtoul(cl->c_str(), &end, 10);
        if (cl->empty() || *end != '\0' || n > kMaxBodyBytes) return "bad Content-Length '" + *cl + "'";
        if (auto e = fill_to(conn, n, deadline_ns); !e.empty()) return e;
        body = conn.buffer().substr(0, n);
        conn.buffer().erase(0, n);
        return "";
    }
    if (!head.is_response) return "";  // a request without length has no body
    if (head.status / 100 == 1 || head.status == 204 || head.status == 304) return "";
    std::string err;  // response delimited by close
    for (;;) {
        if (conn.buffer().size() > kMaxBodyBytes) return "body too large";
        long r = conn.read_some(deadline_ns, err);
        if (r < 0) return err;
        if (r == 0) break;
    }
    body.swap(conn.buffer());
    conn.buffer().clear();
    return "";
}

}  // namespace stallscope::refsvc
