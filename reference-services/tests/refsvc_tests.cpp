// Unit tests of the reference services' pure parts: envelopes, HTTP framing, options.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "reference-services/refsvc/http_framing.h"
#include "reference-services/refsvc/options.h"
#include "reference-services/refsvc/profiles.h"
#include "reference-services/refsvc/soap_envelope.h"

using namespace stallscope::refsvc;

TEST_CASE("server parses and echoes every operation, client accepts the echo") {
    for (std::string op : {"doNothing", "setSize", "getString", "getIntegers", "echoVoid", "echoInts", "echoDoubles",
                           "echoStrings", "echoBase64"}) {
        for (long size : {0L, 10L, 1000L}) {
            std::string req = build_request(op, size);
            SoapCall call;
            REQUIRE(parse_request(req, call) == "");
            CHECK(call.op == op);
            if (op == "echoInts" || op == "echoDoubles" || op == "echoStrings" || op == "setSize" ||
                op == "getString" || op == "getIntegers")
                CHECK(call.size == size);
            std::string resp = build_response(call);
            CHECK(check_response(op, size, req, resp) == "");
        }
    }
}

TEST_CASE("client rejects a response that does not echo the request") {
    std::string req = build_request("echoInts", 10);
    SoapCall call;
    REQUIRE(parse_request(req, call) == "");
    call.payload = "<item>1</item>";
    CHECK(check_response("echoInts", 10, req, build_response(call)) != "");
    CHECK(check_response("getString", 5, req, build_response(SoapCall{"getString", 4, ""})) != "");
    CHECK(check_response("doNothing", 0, req, "<html/>") != "");
}

TEST_CASE("server rejects malformed SOAP bodies without crashing") {
    SoapCall call;
    for (std::string bad : {"", "<x/>", "<SOAP-ENV:Body>", "<SOAP-ENV:Body></SOAP-ENV:Body>",
                            "<SOAP-ENV:Body><ns1:nope/></SOAP-ENV:Body>",
                            "<SOAP-ENV:Body><ns1:setSize><size>abc</size></ns1:setSize></SOAP-ENV:Body>",
                            "<SOAP-ENV:Body><ns1:echoBase64><input>!!</input></ns1:echoBase64></SOAP-ENV:Body>",
                            "<SOAP-ENV:Body><ns1:echoInts"})
        CHECK(parse_request(bad, call) != "");
}

TEST_CASE("HTTP heads parse, with case-insensitive headers and tokens") {
    HttpHead h;
    REQUIRE(parse_head("POST /soap HTTP/1.1\r\nHost: x\r\nexpect: 100-Continue\r\nConnection: keep-alive, TE", false,
                       h) == "");
    CHECK(h.method == "POST");
    CHECK(h.target == "/soap");
    CHECK(h.header_has_token("Expect", "100-continue"));
    CHECK(h.header_has_token("connection", "te"));
    CHECK_FALSE(h.header_has_token("Connection", "close"));
    REQUIRE(parse_head("HTTP/1.1 100 Continue", true, h) == "");
    CHECK(h.status == 100);
    CHECK(parse_head("HTTP/2 200 OK", true, h) != "");
    CHECK(parse_head("HTTP/1.1 20 OK", true, h) != "");
    CHECK(parse_head("garbage", false, h) != "");
    CHECK(parse_head("POST /x HTTP/1.1\r\nno colon here", false, h) != "");
}

TEST_CASE("chunk encoding splits into 4096-byte chunks and terminates") {
    std::string body(10000, 'a');
    std::string enc = chunk_encode(body);
    CHECK(enc.rfind("1000\r\n", 0) == 0);
    CHECK(enc.size() > body.size());
    CHECK(enc.substr(enc.size() - 5) == "0\r\n\r\n");
    CHECK(chunk_encode("") == "0\r\n\r\n");
}

namespace {
std::string parse_client(std::vector<std::string> args, ClientOptions& o) {
    std::vector<char*> argv{const_cast<char*>("stallscope-refclient")};
    for (auto& a : args) argv.push_back(a.data());
    bool help = false;
    return parse_client_options(static_cast<int>(argv.size()), argv.data(), o, help);
}
}  // namespace

TEST_CASE("client options: profile knobs, overrides and bad arguments") {
    ClientOptions o;
    REQUIRE(parse_client({"--profile", "apache-soap", "--url", "http://127.0.0.1:2000/soap", "--op", "doNothing",
                          "--calls", "3", "--nodelay=on", "--expect-100", "350"},
                         o) == "");
    CHECK(o.port == 2000);
    CHECK(o.path == "/soap");
    CHECK(o.knobs.nodelay);                     // overridden
    CHECK(o.knobs.write == WriteMode::Split);   // from the profile
    CHECK_FALSE(o.knobs.http11);
    CHECK(o.knobs.expect_100_ms == 350);
    ClientOptions bad;
    CHECK(parse_client({"--profile", "nope", "--url", "http://127.0.0.1:1/", "--op", "doNothing"}, bad) != "");
    CHECK(parse_client({"--profile", "gsoap", "--url", "http://example.com:1/", "--op", "doNothing"}, bad) != "");
    CHECK(parse_client({"--profile", "gsoap", "--url", "http://127.0.0.1:1/", "--op", "frob"}, bad) != "");
    CHECK(parse_client({"--profile", "gsoap", "--url", "http://127.0.0.1:1/", "--op", "doNothing", "--calls", "0"},
                       bad) != "");
    CHECK(parse_client({"--profile", "gsoap", "--url", "http://127.0.0.1:1/", "--op", "doNothing", "--write", "x"},
                       bad) != "");
    CHECK(parse_client({"--profile", "gsoap", "--url", "http://127.0.0.1:1/", "--op", "doNothing", "--calls"}, bad) !=
          "");
}

namespace {
std::string parse_client_fresh(std::vector<std::string> args) {  // options from nothing: no earlier call's values
    ClientOptions o;
    return parse_client(std::move(args), o);
}
}  // namespace

TEST_CASE("client options: https:// goes with --tls and a CA, and the reverse") {
    ClientOptions o;
    REQUIRE(parse_client({"--profile", "xsoap", "--url", "https://127.0.0.1:2443/soap", "--op", "doNothing", "--tls",
                          "1.3", "--cacert", "/tmp/ca.pem", "--tls-resume", "off", "--keylog", "/tmp/k.log"},
                         o) == "");
    CHECK(o.tls.enabled());
    CHECK(o.tls.version == "1.3");
    CHECK_FALSE(o.tls.resume);
    CHECK(o.tls.keylog == "/tmp/k.log");
    CHECK(o.port == 2443);
    CHECK(o.sni == "refsvc.stallscope.test");
    CHECK(parse_client_fresh({"--profile", "xsoap", "--url", "https://127.0.0.1:1/", "--op", "doNothing"}) != "");
    CHECK(parse_client_fresh({"--profile", "xsoap", "--url", "http://127.0.0.1:1/", "--op", "doNothing", "--tls", "1.2",
                        "--cacert", "x"}) != "");
    CHECK(parse_client_fresh({"--profile", "xsoap", "--url", "https://127.0.0.1:1/", "--op", "doNothing", "--tls", "1.2"}) != "");
    CHECK(parse_client_fresh({"--profile", "xsoap", "--url", "https://127.0.0.1:1/", "--op", "doNothing", "--tls", "1.1",
                        "--cacert", "x"}) != "");
    CHECK(parse_client_fresh({"--profile", "xsoap", "--url", "https://127.0.0.1:1/", "--op", "doNothing", "--tls", "1.3",
                        "--cacert", "x", "--tls-resume", "maybe"}) != "");
}

TEST_CASE("server options: --tls needs a certificate and a key") {
    auto parse = [](std::vector<std::string> args, ServerOptions& o) {
        std::vector<char*> argv{const_cast<char*>("stallscope-refserver")};
        for (auto& a : args) argv.push_back(a.data());
        bool help = false;
        return parse_server_options(static_cast<int>(argv.size()), argv.data(), o, help);
    };
    ServerOptions o;
    REQUIRE(parse({"--profile", "xsoap", "--port", "0", "--tls", "1.2", "--cert", "c.pem", "--key", "k.pem"}, o) == "");
    CHECK(o.tls.version == "1.2");
    CHECK(o.tls.cert == "c.pem");
    ServerOptions bad;
    CHECK(parse({"--profile", "xsoap", "--port", "0", "--tls", "1.2", "--cert", "c.pem"}, bad) != "");
    CHECK(parse({"--profile", "xsoap", "--port", "0", "--cacert", "c.pem"}, bad) != "");  // a client flag
}

TEST_CASE("every profile has a fixed variant that applies all fixes") {
    for (const auto& p : all_profiles()) {
        if (p.name.size() > 6 && p.name.substr(p.name.size() - 6) == "-fixed") continue;
        const Profile* f = find_profile(p.name + "-fixed");
        REQUIRE(f != nullptr);
        CHECK(f->client.nodelay);
        CHECK(f->server.nodelay);
        CHECK(f->client.http11);
        CHECK(f->server.continue_mode != ContinueMode::Late);
        CHECK(f->client.write != WriteMode::Split);
    }
}
