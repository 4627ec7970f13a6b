#include "analyzers/report/json_connection_layout.h"

#include "analyzers/report/json_fixed_runs.h"
#include "analyzers/report/report.h"
#include "analyzers/result/capture_point.h"

#include <iterator>

namespace stallscope {

namespace {

// The runs of a connection's element for one indent and depth (the open
// containers around it). D: the element's own line, M: its members, S: the
// members of capture_point and tls.
struct ConnectionLayout {
    // The members in connection_json's order.
    static constexpr const char* kKey[] = {"id", "client", "server", "saw_handshake", "handshake_ms",
        "syn_retransmissions", "client_mss", "server_mss", "client_wscale", "server_wscale", "first_frame",
        "last_frame", "packets", "client_bytes", "server_bytes", "retransmissions", "gap_bytes", "fin_client",
        "fin_server", "rst", "http", "calls", "capture_point", "tls"};
    static constexpr const char* kPointKey[] = {"where", "client_side_ms", "server_side_ms", "from_handshake",
                                                "data_ack_pairs", "client_hops", "server_hops"};
    static constexpr const char* kTlsKey[] = {"version", "cipher_suite", "sni", "alpn", "resumed",
        "resumption_offered", "decrypted", "reason", "handshake_first_frame", "handshake_last_frame", "handshake_ms",
        "certificate_bytes", "server_flight_bytes", "server_flight_segments", "session_tickets", "record_overhead",
        "sizes_exact"};

    ConnectionLayout(int indent, size_t depth) : indent(indent), depth(depth) {
        FixedRunMaker m(indent);
        const size_t D = depth, M = D + 1, S = D + 2;
        m.members(member, kKey, M);  // member[0] ("{" and "id") is not used: the element's runs hold it
        elem_first = m.run(m.nl(D) + "{" + m.nl(M) + m.key(kKey[0]));
        elem_next = m.run("," + m.nl(D) + "{" + m.nl(M) + m.key(kKey[0]));
        m.members(point, kPointKey, S);
        m.members(tls, kTlsKey, S);
        close_s = m.close('}', S);
        close_elem = m.close('}', M);
        fits = m.fits();
    }

    int indent;
    size_t depth;
    bool fits;
    FixedRun elem_first, elem_next, member[std::size(kKey)], point[std::size(kPointKey)], tls[std::size(kTlsKey)],
        close_s, close_elem;
};

consteval size_t key(std::string_view k) { return key_index(ConnectionLayout::kKey, k); }
consteval size_t point_key(std::string_view k) { return key_index(ConnectionLayout::kPointKey, k); }
consteval size_t tls_key(std::string_view k) { return key_index(ConnectionLayout::kTlsKey, k); }

// What Endpoint::to_string writes, as a JSON string; an IPv4 endpoint
// (nearly all) without making the string. The run before left room for it
// (at most 23 bytes).
void endpoint(FixedOut& o, const Endpoint& e) {
    if (e.addr.family != 4) return o.str(e.to_string());
    *o.p++ = '"';
    for (int i = 0; i < 4; ++i) {
        if (i) *o.p++ = '.';
        o.num(e.addr.bytes[size_t(i)]);
    }
    *o.p++ = ':';
    o.num(e.port);
    *o.p++ = '"';
}

template <class T> void num_or_null(FixedOut& o, const std::optional<T>& v) {
    if (v) o.num(*v);
    else o.null();
}

} // namespace

bool connection_json_layout(JsonStream& w, const Connection& k) {
    if (w.depth() == 0) return false;  // not inside an array
    const ConnectionLayout* lp = fixed_layout<ConnectionLayout>(w.indent(), w.depth());
    if (!lp) return false;
    const ConnectionLayout& L = *lp;
    FixedOut o(w);
    o.run(w.raw_element() ? L.elem_first : L.elem_next);
    o.num(k.id);
    o.run(L.member[key("client")]);
    endpoint(o, k.client);
    o.run(L.member[key("server")]);
    endpoint(o, k.server);
    o.run(L.member[key("saw_handshake")]);
    o.boolean(k.saw_syn);
    o.run(L.member[key("handshake_ms")]);
    o.ms_or_null(k.handshake_ms.has_value(), k.handshake_ms.value_or(0));
    o.run(L.member[key("syn_retransmissions")]);
    o.num(k.syn_retransmissions);
    o.run(L.member[key("client_mss")]);
    num_or_null(o, k.client_mss);
    o.run(L.member[key("server_mss")]);
    num_or_null(o, k.server_mss);
    o.run(L.member[key("client_wscale")]);
    num_or_null(o, k.client_wscale);
    o.run(L.member[key("server_wscale")]);
    num_or_null(o, k.server_wscale);
    o.run(L.member[key("first_frame")]);
    o.num(k.first_frame);
    o.run(L.member[key("last_frame")]);
    o.num(k.last_frame);
    o.run(L.member[key("packets")]);
    o.num(k.packets);
    o.run(L.member[key("client_bytes")]);
    o.num(k.client_bytes);
    o.run(L.member[key("server_bytes")]);
    o.num(k.server_bytes);
    o.run(L.member[key("retransmissions")]);
    o.num(k.retransmissions);
    o.run(L.member[key("gap_bytes")]);
    o.num(k.gap_bytes);
    o.run(L.member[key("fin_client")]);
    o.boolean(k.fin_client);
    o.run(L.member[key("fin_server")]);
    o.boolean(k.fin_server);
    o.run(L.member[key("rst")]);
    o.boolean(k.rst);
    o.run(L.member[key("http")]);
    o.boolean(k.http);
    o.run(L.member[key("calls")]);
    o.num(k.calls);

    const PathPosition pos = path_position(k);
    o.run(L.member[key("capture_point")]);
    o.run(L.point[point_key("where")]);
    o.str(place_name(place_of(pos)));
    o.run(L.point[point_key("client_side_ms")]);
    o.ms_or_null(pos.known, ns_to_ms(pos.client_ns));
    o.run(L.point[point_key("server_side_ms")]);
    o.ms_or_null(pos.known, ns_to_ms(pos.server_ns));
    o.run(L.point[point_key("from_handshake")]);
    o.boolean(pos.from_handshake);
    o.run(L.point[point_key("data_ack_pairs")]);
    o.num(pos.data_ack_pairs);
    o.run(L.point[point_key("client_hops")]);
    if (pos.client_hops >= 0) o.num(pos.client_hops);
    else o.null();
    o.run(L.point[point_key("server_hops")]);
    if (pos.server_hops >= 0) o.num(pos.server_hops);
    else o.null();
    o.run(L.close_s);

    if (k.tls) {  // only on TLS connections: plaintext reports keep their bytes
        const ConnectionTls& t = *k.tls;
        o.run(L.member[key("tls")]);
        o.run(L.tls[tls_key("version")]);
        o.str(t.version);
        o.run(L.tls[tls_key("cipher_suite")]);
        o.str(t.cipher_suite);
        o.run(L.tls[tls_key("sni")]);
        o.str(t.sni);
        o.run(L.tls[tls_key("alpn")]);
        o.str(t.alpn);
        o.run(L.tls[tls_key("resumed")]);
        o.boolean(t.resumed);
        o.run(L.tls[tls_key("resumption_offered")]);
        o.boolean(t.resumption_offered);
        o.run(L.tls[tls_key("decrypted")]);
        o.boolean(t.decrypted);
        o.run(L.tls[tls_key("reason")]);
        o.str(t.reason);
        o.run(L.tls[tls_key("handshake_first_frame")]);
        o.num(t.handshake_first_frame);
        o.run(L.tls[tls_key("handshake_last_frame")]);
        o.num(t.handshake_last_frame);
        o.run(L.tls[tls_key("handshake_ms")]);
        if (t.handshake_last_frame) o.ms(ns_to_ms(t.handshake_end_ns - t.handshake_start_ns));
        else o.null();
        o.run(L.tls[tls_key("certificate_bytes")]);
        o.num(t.certificate_bytes);
        o.run(L.tls[tls_key("server_flight_bytes")]);
        o.num(t.server_flight_bytes);
        o.run(L.tls[tls_key("server_flight_segments")]);
        o.num(t.server_flight_segments);
        o.run(L.tls[tls_key("session_tickets")]);
        o.num(t.session_tickets);
        o.run(L.tls[tls_key("record_overhead")]);
        o.num(t.record_overhead);
        o.run(L.tls[tls_key("sizes_exact")]);
        o.boolean(t.sizes_exact);
        o.run(L.close_s);
    }
    o.run(L.close_elem);
    o.end();
    return true;
}

} // namespace stallscope
