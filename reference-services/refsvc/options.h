// Command-line parsing for stallscope-refserver and stallscope-refclient.
// Flags given explicitly override the chosen profile's knobs.
#pragma once
#include <string>

#include "reference-services/refsvc/knobs.h"
#include "reference-services/refsvc/tls_io.h"

namespace stallscope::refsvc {

struct ServerOptions {
    std::string profile;
    Knobs knobs;
    std::string bind = "127.0.0.1";
    int port = -1;              // 0: let the kernel pick (printed on the "listening on" line)
    int max_seconds = 300;
    long max_requests = 100000;
    int idle_timeout_s = 10;    // a kept-alive connection idle this long is closed
    TlsOptions tls;             // --tls 1.2|1.3 --cert --key [--keylog]
};

struct ClientOptions {
    std::string profile;
    Knobs knobs;
    std::string url;
    std::string host;  // numeric IPv4 after parsing (localhost -> 127.0.0.1)
    int port = 0;
    std::string path;
    std::string op;
    long calls = 1;
    long size = 10;
    int timeout_s = 10;  // per call
    TlsOptions tls;      // https:// URLs: --tls 1.2|1.3 --cacert [--keylog] [--tls-resume on|off]
    std::string sni = "refsvc.stallscope.test";  // TLS server name (checked against the certificate)
};

// Both return "" on success, or the message to print before exiting with status 2.
// `help` is set when --help was given (the caller prints usage and exits 0).
std::string parse_server_options(int argc, char** argv, ServerOptions& out, bool& help);
std::string parse_client_options(int argc, char** argv, ClientOptions& out, bool& help);
std::string server_usage();
std::string client_usage();

}  // namespace stallscope::refsvc
