// gSOAP echo server for the toolkit-gsoap scenario.
// usage: gsoap-echo-server PORT [keepalive]   (serves until SIGTERM/SIGINT)
// Without "keepalive" the context uses gSOAP's defaults (soap_new()).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "soapH.h"
#include "echo.nsmap"

static volatile std::sig_atomic_t g_stop = 0;
static void on_signal(int) { g_stop = 1; }

int ns__echoString(struct soap*, std::string in, std::string& out) {
  out = in;
  return SOAP_OK;
}

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: %s PORT [keepalive]\n", argv[0]); return 2; }
  int port = std::atoi(argv[1]);
  bool keepalive = argc > 2 && std::strcmp(argv[2], "keepalive") == 0;
  struct sigaction sa{};
  sa.sa_handler = on_signal;  // no SA_RESTART: accept() returns EINTR and we leave
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  struct soap* soap = keepalive ? soap_new1(SOAP_IO_KEEPALIVE) : soap_new();
  soap->bind_flags = SO_REUSEADDR;
  soap->accept_timeout = 1;  // seconds; lets the loop notice a signal
  soap->recv_timeout = 30;
  soap->send_timeout = 30;
  if (!soap_valid_socket(soap_bind(soap, "127.0.0.1", port, 16))) { soap_print_fault(soap, stderr); return 1; }
  std::fprintf(stderr, "gsoap-echo-server: port %d keepalive=%d\n", port, keepalive ? 1 : 0);
  while (!g_stop) {
    SOAP_SOCKET s = soap_accept(soap);
    if (!soap_valid_socket(s)) {
      if (soap->errnum == 0) continue;  // accept timeout
      if (g_stop) break;
      soap_print_fault(soap, stderr);
      break;
    }
    soap_serve(soap);  // serves every request on this connection while kept alive
    soap_destroy(soap);
    soap_end(soap);
  }
  soap_free(soap);
  return 0;
}
