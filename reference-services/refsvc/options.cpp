#include "reference-services/refsvc/options.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <vector>

#include "reference-services/refsvc/profiles.h"
#include "reference-services/refsvc/soap_envelope.h"

namespace stallscope::refsvc {
namespace {

// Walks argv, accepting both "--flag value" and "--flag=value".
class ArgCursor {
public:
    ArgCursor(int argc, char** argv) : args_(argv + 1, argv + argc) {}
    bool done() const { return i_ >= args_.size(); }
    // Returns the flag name and stores an inline "=value" if present.
    std::string next_flag() {
        std::string a = args_[i_++];
        inline_.reset();
        auto eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            inline_ = a.substr(eq + 1);
            a = a.substr(0, eq);
        }
        return a;
    }
    bool value(std::string& out) {
        if (inline_) { out = *inline_; inline_.reset(); return true; }
        if (done()) return false;
        out = args_[i_++];
        return true;
    }
    bool has_inline() const { return inline_.has_value(); }

private:
    std::vector<std::string> args_;
    size_t i_ = 0;
    std::optional<std::string> inline_;
};

bool parse_long(const std::string& s, long lo, long hi, long& out) {
    if (s.empty()) return false;
    errno = 0;
    char* end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
    out = v;
    return true;
}

// Knob flags shared by client and server, recorded as overrides applied after the profile.
struct KnobOverrides {
    std::optional<bool> nodelay, http11, chunked, delack;
    std::optional<WriteMode> write;
    std::optional<ContinueMode> cont;
    std::optional<int> expect;
    void apply(Knobs& k) const {
        if (nodelay) k.nodelay = *nodelay;
        if (http11) k.http11 = *http11;
        if (chunked) k.chunked = *chunked;
        if (delack) k.delack = *delack;
        if (write) k.write = *write;
        if (cont) k.continue_mode = *cont;
        if (expect) k.expect_100_ms = *expect;
    }
};

// Returns true if `flag` was a knob flag (err set on a bad value).
bool parse_knob(const std::string& flag, ArgCursor& c, KnobOverrides& o, bool server, std::string& err) {
    std::string v;
    auto need = [&](const char* what) {
        if (!c.value(v)) { err = flag + " needs a value (" + what + ")"; return false; }
        return true;
    };
    if (flag == "--nodelay") {
        if (!need("on|off")) return true;
        if (v == "on") o.nodelay = true;
        else if (v == "off") o.nodelay = false;
        else err = "--nodelay must be on or off, not '" + v + "'";
        return true;
    }
    if (flag == "--write") {
        if (!need("one|writev|split|many")) return true;
        WriteMode m;
        if (parse_write_mode(v, m)) o.write = m;
        else err = "--write must be one, writev, split or many, not '" + v + "'";
        return true;
    }
    if (flag == "--http") {
        if (!need("1.0|1.1")) return true;
        if (v == "1.0") o.http11 = false;
        else if (v == "1.1") o.http11 = true;
        else err = "--http must be 1.0 or 1.1, not '" + v + "'";
        return true;
    }
    if (flag == "--delack" || flag == "--chunked") {
        bool on = true;
        if (c.has_inline()) {
            c.value(v);
            if (v == "on") on = true;
            else if (v == "off") on = false;
            else { err = flag + "=" + v + ": use on or off"; return true; }
        }
        if (flag == "--delack") o.delack = on;
        else if (server) o.chunked = on;
        else err = "--chunked is a server option";
        return true;
    }
    if (server && flag == "--continue") {
        if (!need("immediate|never|late")) return true;
        ContinueMode m;
        if (parse_continue_mode(v, m)) o.cont = m;
        else err = "--continue must be immediate, never or late, not '" + v + "'";
        return true;
    }
    if (!server && flag == "--expect-100") {
        if (!need("T_MS, or off")) return true;
        long ms;
        if (v == "off") o.expect = -1;
        else if (parse_long(v, 0, 60000, ms)) o.expect = static_cast<int>(ms);
        else err = "--expect-100 must be a wait in ms (0..60000) or off, not '" + v + "'";
        return true;
    }
    return false;
}

// TLS flags shared by client and server; true if `flag` was one (err set on a bad value).
bool parse_tls_flag(const std::string& flag, ArgCursor& c, TlsOptions& t, bool server, std::string& err) {
    std::string v;
    std::string* dest = flag == "--tls" ? &t.version : flag == "--keylog" ? &t.keylog
                        : server && flag == "--cert" ? &t.cert : server && flag == "--key" ? &t.key
                        : !server && flag == "--cacert" ? &t.cacert : nullptr;
    if (dest) {
        if (!c.value(*dest) || dest->empty()) err = flag + " needs a value";
        else if (dest == &t.version && *dest != "1.2" && *dest != "1.3") err = "--tls must be 1.2 or 1.3, not '" + *dest + "'";
        return true;
    }
    if (!server && flag == "--tls-resume") {
        if (!c.value(v) || (v != "on" && v != "off")) err = "--tls-resume must be on or off";
        else t.resume = v == "on";
        return true;
    }
    return false;
}

std::string apply_profile(const std::string& name, bool server, const KnobOverrides& o, Knobs& out) {
    if (name.empty()) return "--profile is required (one of: " + profile_names() + ")";
    const Profile* p = find_profile(name);
    if (!p) return "unknown profile '" + name + "' (known: " + profile_names() + ")";
    out = server ? p->server : p->client;
    o.apply(out);
    return "";
}

// http(s)://HOST:PORT/PATH with a numeric IPv4 host or "localhost"; https:// needs --tls and the reverse.
std::string parse_url(ClientOptions& o) {
    bool https = o.url.rfind("https://", 0) == 0;
    const std::string pre = https ? "https://" : "http://";
    if (o.url.rfind(pre, 0) != 0) return "--url must start with http:// or https:// (got '" + o.url + "')";
    if (https != o.tls.enabled()) return https ? "an https:// URL needs --tls 1.2|1.3" : "--tls needs an https:// URL";
    if (https && o.tls.cacert.empty()) return "--tls needs --cacert (the CA that signed the server's certificate)";
    std::string rest = o.url.substr(pre.size());
    auto slash = rest.find('/');
    std::string hostport = rest.substr(0, slash);
    o.path = slash == std::string::npos ? "/" : rest.substr(slash);
    auto colon = hostport.rfind(':');
    if (colon == std::string::npos) return "--url needs an explicit port, e.g. http://127.0.0.1:8080/soap";
    o.host = hostport.substr(0, colon);
    if (o.host == "localhost") o.host = "127.0.0.1";
    long port;
    if (!parse_long(hostport.substr(colon + 1), 1, 65535, port)) return "bad port in --url '" + o.url + "'";
    o.port = static_cast<int>(port);
    in_addr a{};
    if (inet_pton(AF_INET, o.host.c_str(), &a) != 1)
        return "--url host must be a numeric IPv4 address or localhost (got '" + o.host + "')";
    return "";
}

}  // namespace

std::string server_usage() {
    return "usage: stallscope-refserver --profile NAME --port P [--bind ADDR] [--max-seconds S] [--max-requests N]\n"
           "       [--nodelay on|off] [--write one|writev|split|many] [--http 1.0|1.1]\n"
           "       [--continue immediate|never|late] [--chunked] [--delack] [--idle-timeout-s S]\n"
           "       [--tls 1.2|1.3 --cert PEM --key PEM [--keylog FILE]]\n"
           "       stallscope-refserver --list-profiles\n"
           "profiles: " + profile_names() + "\n"
           "Prints 'listening on PORT' when ready; stops on SIGINT/SIGTERM or at a bound.\n";
}

std::string client_usage() {
    return "usage: stallscope-refclient --profile NAME --url http://127.0.0.1:P/soap --op OP --calls N [--size S]\n"
           "       [--nodelay on|off] [--write one|writev|split|many] [--http 1.0|1.1]\n"
           "       [--expect-100 T_MS|off] [--delack] [--timeout-s S]\n"
           "       [--tls 1.2|1.3 --cacert PEM [--keylog FILE] [--tls-resume on|off] [--sni NAME]]  (https:// URLs)\n"
           "ops: " + op_names() + "\n"
           "profiles: " + profile_names() + "\n"
           "Prints one JSON line per call; exit 0 iff every call succeeded.\n";
}

std::string parse_server_options(int argc, char** argv, ServerOptions& out, bool& help) {
    ArgCursor c(argc, argv);
    KnobOverrides o;
    help = false;
    std::string err, v;
    while (!c.done()) {
        std::string f = c.next_flag();
        if (f == "--help" || f == "-h") { help = true; return ""; }
        if (parse_knob(f, c, o, true, err)) {
            if (!err.empty()) return err;
            continue;
        }
        if (parse_tls_flag(f, c, out.tls, true, err)) {
            if (!err.empty()) return err;
            continue;
        }
        long n;
        if (f == "--profile") {
            if (!c.value(out.profile)) return "--profile needs a name";
        } else if (f == "--port") {
            if (!c.value(v) || !parse_long(v, 0, 65535, n)) return "--port needs a number 0..65535";
            out.port = static_cast<int>(n);
        } else if (f == "--bind") {
            if (!c.value(out.bind)) return "--bind needs an IPv4 address";
            in_addr a{};
            if (inet_pton(AF_INET, out.bind.c_str(), &a) != 1) return "--bind must be a numeric IPv4 address";
        } else if (f == "--max-seconds") {
            if (!c.value(v) || !parse_long(v, 1, 86400, n)) return "--max-seconds needs a number 1..86400";
            out.max_seconds = static_cast<int>(n);
        } else if (f == "--max-requests") {
            if (!c.value(v) || !parse_long(v, 1, 100000000, n)) return "--max-requests needs a number >= 1";
            out.max_requests = n;
        } else if (f == "--idle-timeout-s") {
            if (!c.value(v) || !parse_long(v, 1, 3600, n)) return "--idle-timeout-s needs a number 1..3600";
            out.idle_timeout_s = static_cast<int>(n);
        } else {
            return "unknown option '" + f + "'";
        }
    }
    if (out.port < 0) return "--port is required";
    if (out.tls.enabled() && (out.tls.cert.empty() || out.tls.key.empty())) return "--tls needs --cert and --key";
    return apply_profile(out.profile, true, o, out.knobs);
}

std::string parse_client_options(int argc, char** argv, ClientOptions& out, bool& help) {
    ArgCursor c(argc, argv);
    KnobOverrides o;
    help = false;
    std::string err, v;
    while (!c.done()) {
        std::string f = c.next_flag();
        if (f == "--help" || f == "-h") { help = true; return ""; }
        if (parse_knob(f, c, o, false, err)) {
            if (!err.empty()) return err;
            continue;
        }
        if (parse_tls_flag(f, c, out.tls, false, err)) {
            if (!err.empty()) return err;
            continue;
        }
        long n;
        if (f == "--profile") {
            if (!c.value(out.profile)) return "--profile needs a name";
        } else if (f == "--sni") {
            if (!c.value(out.sni) || out.sni.empty()) return "--sni needs a host name";
        } else if (f == "--url") {
            if (!c.value(out.url)) return "--url needs a value";
        } else if (f == "--op") {
            if (!c.value(out.op)) return "--op needs a name";
        } else if (f == "--calls") {
            if (!c.value(v) || !parse_long(v, 1, 100000, n)) return "--calls needs a number 1..100000";
            out.calls = n;
        } else if (f == "--size") {
            if (!c.value(v) || !parse_long(v, 0, 1000000, n)) return "--size needs a number 0..1000000";
            out.size = n;
        } else if (f == "--timeout-s") {
            if (!c.value(v) || !parse_long(v, 1, 3600, n)) return "--timeout-s needs a number 1..3600";
            out.timeout_s = static_cast<int>(n);
        } else {
            return "unknown option '" + f + "'";
        }
    }
    if (out.url.empty()) return "--url is required";
    if (out.op.empty()) return "--op is required (one of: " + op_names() + ")";
    if (!is_known_op(out.op)) return "unknown op '" + out.op + "' (known: " + op_names() + ")";
    if (auto e = parse_url(out); !e.empty()) return e;
    return apply_profile(out.profile, false, o, out.knobs);
}

}  // namespace stallscope::refsvc
