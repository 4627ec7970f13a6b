#!/usr/bin/python3
"""spyne echo service for the toolkit-zeep-spyne scenario.

usage: server.py PORT [wsgiref|http11|http11-nodelay]
  wsgiref         spyne's WsgiApplication on wsgiref.simple_server, as spyne's examples do
                  (HTTP/1.0 responses, one request per connection)
  http11          the same WSGI app behind http.server with protocol_version HTTP/1.1, so
                  connections stay open (headers and body are written separately)
  http11-nodelay  as http11, plus TCP_NODELAY on each accepted socket
Serves until SIGTERM/SIGINT. The WSDL is at http://127.0.0.1:PORT/?wsdl
"""
import logging
import signal
import socket
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from wsgiref.simple_server import make_server, WSGIRequestHandler

from spyne import Application, ServiceBase, Unicode, rpc
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication


class EchoService(ServiceBase):
    @rpc(Unicode, _returns=Unicode)
    def echoString(ctx, s):
        return s


class QuietWsgiHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def http11_handler(app, nodelay):
    """A minimal WSGI bridge on BaseHTTPRequestHandler that keeps HTTP/1.1 connections open."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            if nodelay:
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args):
            pass

        def _run(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path, _, query = self.path.partition("?")
            import io
            environ = {
                "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
                "SERVER_NAME": "127.0.0.1", "SERVER_PORT": str(self.server.server_port),
                "SERVER_PROTOCOL": self.request_version, "CONTENT_LENGTH": str(length),
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
                "wsgi.url_scheme": "http", "wsgi.multithread": False, "wsgi.multiprocess": False,
                "wsgi.run_once": False}
            for k, v in self.headers.items():
                environ["HTTP_" + k.upper().replace("-", "_")] = v
            status_headers = []

            def start_response(status, headers, exc_info=None):
                status_headers[:] = [status, headers]

            out = b"".join(app(environ, start_response))
            code, _, reason = status_headers[0].partition(" ")
            self.send_response(int(code), reason)
            for k, v in status_headers[1]:
                if k.lower() != "content-length":
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()          # one write: status line + headers
            self.wfile.write(out)       # a second write: the body

        do_GET = do_POST = _run

    return Handler


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    port = int(sys.argv[1])
    mode = sys.argv[2] if len(sys.argv) > 2 else "wsgiref"
    logging.basicConfig(level=logging.WARNING)
    app = WsgiApplication(Application([EchoService], tns="urn:stallscope-echo",
                                      in_protocol=Soap11(validator="lxml"), out_protocol=Soap11()))
    if mode == "wsgiref":
        server = make_server("127.0.0.1", port, app, handler_class=QuietWsgiHandler)
    elif mode in ("http11", "http11-nodelay"):
        HTTPServer.allow_reuse_address = True
        server = HTTPServer(("127.0.0.1", port), http11_handler(app, mode == "http11-nodelay"))
    else:
        sys.exit("server.py: unknown mode " + mode)

    def stop(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    print("spyne server: port %d mode %s" % (port, mode), file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    server.server_close()


if __name__ == "__main__":
    main()
