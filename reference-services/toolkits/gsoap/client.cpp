// gSOAP echo client for the toolkit-gsoap scenario.
// usage: gsoap-echo-client URL CALLS SIZE [keepalive]
// Prints {"call":i,"latency_ms":x} per call, timed with steady_clock around soap_call_.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include "soapH.h"
#include "echo.nsmap"

int main(int argc, char** argv) {
  if (argc < 4) { std::fprintf(stderr, "usage: %s URL CALLS SIZE [keepalive]\n", argv[0]); return 2; }
  const char* url = argv[1];
  int calls = std::atoi(argv[2]);
  int size = std::atoi(argv[3]);
  bool keepalive = argc > 4 && std::strcmp(argv[4], "keepalive") == 0;
  if (calls < 1 || calls > 1000 || size < 0 || size > 1000000) { std::fprintf(stderr, "bad CALLS or SIZE\n"); return 2; }

  struct soap* soap = keepalive ? soap_new1(SOAP_IO_KEEPALIVE) : soap_new();
  soap->connect_timeout = 5;
  soap->recv_timeout = 30;
  soap->send_timeout = 30;
  std::string in(size, 'x');
  for (int i = 1; i <= calls; ++i) {
    std::string out;
    auto t0 = std::chrono::steady_clock::now();
    int rc = soap_call_ns__echoString(soap, url, nullptr, in, out);
    auto t1 = std::chrono::steady_clock::now();
    if (rc != SOAP_OK || out != in) {
      soap_print_fault(soap, stderr);
      std::fprintf(stderr, "call %d failed (rc=%d, echoed %zu of %zu bytes)\n", i, rc, out.size(), in.size());
      return 1;
    }
    double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::printf("{\"call\":%d,\"latency_ms\":%.3f}\n", i, ms);
    std::fflush(stdout);
    soap_destroy(soap);
    soap_end(soap);
  }
  soap_closesock(soap);
  soap_free(soap);
  return 0;
}
