#include "analyzers/detectors/toolkit_fixes.h"

#include "dissectors/http/ascii_case.h"

#include <utility>

namespace stallscope::detect {

namespace {

std::string lower(std::string s) { return ascii_lowered(std::move(s)); }
bool has(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

// One row per toolkit: how it shows itself (lower-case substrings of
// User-Agent or Server) and its own settings. Sources: the toolkits' docs
// and reference-services/toolkits/README.md (what the captures showed).
struct Entry {
    const char* name;
    const char* needles[6];
    const char* nagle;       // stop the Nagle/delayed-ACK stall
    const char* split;       // one write per message
    const char* expect;      // no Expect wait
    const char* connection;  // keep connections open
    const char* size;        // compression
};

const Entry kToolkits[] = {
    {"gSOAP", {"gsoap", nullptr},
     "gSOAP sets TCP_NODELAY itself; keep SOAP_IO_BUFFER (the default) or SOAP_IO_STORE so each message is one send",
     "keep SOAP_IO_BUFFER or use SOAP_IO_STORE / SOAP_IO_CHUNK (do not switch to SOAP_IO_FLUSH)",
     "do not add an Expect header in http_post / fposthdr callbacks",
     "soap_new1(SOAP_IO_KEEPALIVE) (or soap_set_mode(soap, SOAP_IO_KEEPALIVE)) on both client and server contexts",
     "soap_set_mode(soap, SOAP_ENC_ZLIB) (gzip, needs WITH_GZIP)"},
    {"SOAP::Lite", {"soap::lite", "libwww-perl-daemon", nullptr},
     "SOAP::Lite has no TCP_NODELAY knob: set it on the daemon's accepted sockets "
     "(setsockopt($c, IPPROTO_TCP, TCP_NODELAY, 1) in the accept loop); client: proxy($url, keep_alive => 1) alone does not help",
     "HTTP::Daemon prints status line, headers and body separately: subclass send_response to build one string and print it once",
     "",
     "proxy($url, keep_alive => 1) on the client (LWP sends Connection: close otherwise)",
     "$soap->transport->options({compress_threshold => 1024}) (needs Compress::Zlib on both sides)"},
    {"Apache Axis", {"axis/", nullptr},
     "use CommonsHTTPSender as the http transport (one buffer per request); Axis 1.x HTTPSender has no TCP_NODELAY option",
     "deploy CommonsHTTPSender as the http transport in client-config.wsdd",
     "CommonsHTTPSender: HttpClient parameter http.protocol.expect-continue=false",
     "CommonsHTTPSender plus call.setProperty(MessageContext.HTTP_TRANSPORT_VERSION, HTTPConstants.HEADER_PROTOCOL_V11)",
     "call.setProperty(HTTPConstants.MC_GZIP_REQUEST, Boolean.TRUE) and MC_ACCEPT_GZIP (CommonsHTTPSender)"},
    {"zeep/python-requests", {"zeep", "python-requests", "python-urllib", nullptr},
     "urllib3 already sets TCP_NODELAY on the client; the stall is the server's",
     "http.client sends headers and body in two sends; harmless with TCP_NODELAY (urllib3 sets it)",
     "requests does not send Expect unless a header asks for it: remove it from the Session headers",
     "reuse one zeep Transport / requests.Session (keep-alive) and a server that speaks HTTP/1.1",
     "Transport(session=...) with session.headers['Accept-Encoding']='gzip' (the server must compress)"},
    {"Python http.server/wsgiref", {"wsgiserver", "basehttp", "cpython", nullptr},
     "set TCP_NODELAY on accepted sockets (socketserver: override server_bind/get_request and call "
     "sock.setsockopt(IPPROTO_TCP, TCP_NODELAY, 1)); or serve with a WSGI server that writes each response once",
     "BaseHTTPRequestHandler writes status line and each header separately: put it behind a WSGI server "
     "(gunicorn, waitress) that writes headers and body in one send",
     "wsgiref never answers 100 Continue: clients must not send Expect to it",
     "wsgiref.simple_server speaks HTTP/1.0 and closes: use http.server with protocol_version = 'HTTP/1.1' "
     "or a production WSGI server with keep-alive",
     ""},
    {"curl", {"curl/", nullptr},
     "curl sets TCP_NODELAY by default (--tcp-nodelay since 7.50.2)",
     "",
     "curl -H 'Expect:' (libcurl: add the header \"Expect:\" to CURLOPT_HTTPHEADER), or "
     "--expect100-timeout <s> to shorten the 1 s wait",
     "one curl invocation with several URLs, or libcurl reusing one easy handle (keep-alive)",
     "--compressed (asks for gzip responses)"},
    {".NET", {"ms web services client protocol", ".net clr", "microsoft-httpapi", "microsoft-iis", nullptr},
     "ServicePointManager.UseNagleAlgorithm = false (or servicePoint.UseNagleAlgorithm = false)",
     "",
     "ServicePointManager.Expect100Continue = false (HttpWebRequest waits 350 ms for 100 otherwise)",
     "HttpWebRequest.KeepAlive = true and a ServicePoint ConnectionLimit above 1",
     "EnableDecompression = true on the proxy (SoapHttpClientProtocol)"},
    {"Java", {"java/", "apache-httpclient", "commons-httpclient", "apache-coyote", nullptr},
     "Socket.setTcpNoDelay(true) where the code owns the socket; HttpURLConnection has no such switch, "
     "so write each request from one buffer (setFixedLengthStreamingMode and a single write)",
     "wrap the socket stream in a BufferedOutputStream and flush once per message",
     "Apache HttpClient: RequestConfig.custom().setExpectContinueEnabled(false)",
     "HttpURLConnection keeps alive by default (-Dhttp.keepAlive=true); read each response fully and close its stream",
     "Accept-Encoding: gzip with GZIPInputStream on the response"},
};

const Entry* find_entry(const std::string& header) {
    std::string h = lower(header);
    if (h.empty()) return nullptr;
    for (const Entry& e : kToolkits)
        for (const char* const* n = e.needles; *n; ++n)
            if (has(h, *n)) return &e;
    return nullptr;
}

} // namespace

std::string recognise_toolkit(const std::string& header) {
    const Entry* e = find_entry(header);
    return e ? e->name : "";
}

ToolkitFix toolkit_fix(const Call& call, Side side, const std::string& kind) {
    const Entry* e = find_entry(side == Side::Client ? call.user_agent : call.server);
    if (!e) return {};
    ToolkitFix out;
    out.toolkit = e->name;
    const char* fix = "";
    if (kind == "nagle_delayed_ack") fix = e->nagle;
    else if (kind == "split_write") fix = e->split;
    else if (kind == "expect_100_wait") fix = e->expect;
    else if (kind == "connection_setup") fix = e->connection;
    else if (kind == "message_size") fix = e->size;
    out.fix = fix ? fix : "";
    return out;
}

void apply_toolkit_fix(Finding& f, const Call& call) {
    ToolkitFix t = toolkit_fix(call, f.side, f.kind);
    f.toolkit = t.toolkit;
    f.toolkit_fix = t.fix;
}

} // namespace stallscope::detect
