// The `stallscope` postdissector: runs StallScope's analysis (the same
// Analyzer and detectors as stallscope-cli) over the frames Wireshark reads
// and shows the result on each frame: call, SOAP operation, phase, and on
// evidence frames the findings, as filterable fields and expert warnings.
//
// Findings need the whole capture, so they appear only when frames are
// dissected a second time: in Wireshark always (the packet list is filled
// after the file is read), in tshark only with -2 (two-pass analysis).
//
// Wireshark's exceptions are longjmp()s: no object with a destructor may be
// alive in a frame that calls into epan. The C++ work happens in
// PluginSession (noexcept); this file only reads its results through
// pointers.
#define WS_LOG_DOMAIN "stallscope"
#include <wireshark.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/prefs-int.h>
#include <epan/proto.h>
#include <wiretap/wtap.h>

#include "analyzers/result/finding_kinds.h"
#include "app/wireshark/linktype_map.h"
#include "app/wireshark/packet-stallscope.h"
#include "app/wireshark/plugin_session.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

using stallscope::Call;
using stallscope::Finding;
using stallscope::ws::FrameMark;
using stallscope::ws::PluginSession;

int proto_stallscope = -1;
int hf_call = -1;
int hf_connection = -1;
int hf_operation = -1;
int hf_method = -1;
int hf_uri = -1;
int hf_status = -1;
int hf_latency_ms = -1;
int hf_phase = -1;
int hf_finding = -1;
int hf_finding_id = -1;
int hf_side = -1;
int hf_cost_ms = -1;
int hf_counted_ms = -1;
int hf_explanation = -1;
int hf_fix = -1;
int hf_toolkit = -1;
int hf_toolkit_fix = -1;
gint ett_stallscope = -1;
gint ett_finding = -1;
// One expert field per finding kind (analyzers/result/finding_kinds.h), so
// Analyze > Expert Information groups warnings by kind ("Group by
// summary"); ei_finding for kinds added later. Built once at registration
// and never freed: Wireshark keeps the names and fields until exit.
struct KindExpert {
    std::string kind;
    std::string name;     // expert field abbreviation
    std::string summary;
    expert_field ei = EI_INIT;
};
std::vector<KindExpert>* kind_experts;
expert_field ei_finding = EI_INIT;

expert_field* expert_for(const std::string& kind) {
    for (KindExpert& k : *kind_experts)
        if (kind == k.kind) return &k.ei;
    return &ei_finding;
}
dissector_handle_t stallscope_handle;

// Allocated once at registration and never freed: Wireshark keeps plugins
// loaded until exit, and a static destructor could run after epan is gone.
PluginSession* session;

// The key log Wireshark's own TLS dissector uses (Preferences > Protocols >
// TLS > (Pre)-Master-Secret log filename, or -o tls.keylog_file:FILE), read
// at the start of each file: "" when unset. Secrets embedded in a pcapng
// (Decryption Secrets Blocks) go to Wireshark's TLS dissector only (one
// consumer per secrets type), so the plugin cannot see them.
const char* wireshark_tls_keylog() {
    module_t* tls = prefs_find_module("tls");
    pref_t* pref = tls ? prefs_find_preference(tls, "keylog_file") : nullptr;
    const char* path = pref ? prefs_get_string_value(pref, pref_current) : nullptr;
    return path ? path : "";
}

void init_routine() {
    session->reset(wireshark_tls_keylog());
    if (!session->keylog_error().empty())
        ws_warning("StallScope: %s; TLS connections are analysed without keys", session->keylog_error().c_str());
}
void cleanup_routine() { session->reset(); }

void feed_first_pass(tvbuff_t* tvb, packet_info* pinfo) {
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET) return;
    int linktype = stallscope::ws::linktype_for_wtap_encap(pinfo->rec->rec_header.packet_header.pkt_encap);
    if (linktype < 0) return;  // not an encapsulation the analysis decodes
    guint len = tvb_captured_length(tvb);
    const guint8* bytes = len ? tvb_get_ptr(tvb, 0, len) : nullptr;
    stallscope::Frame f;
    f.number = pinfo->num;
    f.ts_ns = gint64(pinfo->abs_ts.secs) * 1000000000 + pinfo->abs_ts.nsecs;
    f.linktype = linktype;
    f.interface_id = pinfo->rec->rec_header.packet_header.interface_id;
    f.origlen = tvb_reported_length(tvb);
    f.data = std::span<const uint8_t>(bytes, len);
    session->on_first_pass_frame(f);
}

proto_item* add_generated(proto_item* it) {
    proto_item_set_generated(it);
    return it;
}

// A finding on one of its evidence frames: a subtree with its facts.
void add_finding(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const Finding& f, uint32_t index) {
    const char* side = stallscope::side_name(f.side);
    proto_item* fi = add_generated(proto_tree_add_string(tree, hf_finding, tvb, 0, 0, f.kind.c_str()));
    proto_item_append_text(fi, " (%s side, %.3f ms)", side, f.cost_ms);
    proto_tree* ft = proto_item_add_subtree(fi, ett_finding);
    add_generated(proto_tree_add_uint(ft, hf_finding_id, tvb, 0, 0, index + 1));
    add_generated(proto_tree_add_string(ft, hf_side, tvb, 0, 0, side));
    add_generated(proto_tree_add_double_format_value(ft, hf_cost_ms, tvb, 0, 0, f.cost_ms, "%.3f ms", f.cost_ms));
    // The ledger's part: what the report's totals add up (an overlap once).
    add_generated(proto_tree_add_double_format_value(ft, hf_counted_ms, tvb, 0, 0, f.counted_ms, "%.3f ms",
                                                     f.counted_ms));
    if (!f.explanation.empty())
        add_generated(proto_tree_add_string(ft, hf_explanation, tvb, 0, 0, f.explanation.c_str()));
    if (!f.fix.empty()) add_generated(proto_tree_add_string(ft, hf_fix, tvb, 0, 0, f.fix.c_str()));
    if (!f.toolkit.empty()) add_generated(proto_tree_add_string(ft, hf_toolkit, tvb, 0, 0, f.toolkit.c_str()));
    if (!f.toolkit_fix.empty())
        add_generated(proto_tree_add_string(ft, hf_toolkit_fix, tvb, 0, 0, f.toolkit_fix.c_str()));
    // One warning per finding, on its first evidence frame, with a text that
    // is the same for every finding of a kind and side: Expert Information
    // and `tshark -z expert` then count findings and group them by kind.
    if (!f.frames.empty() && *std::min_element(f.frames.begin(), f.frames.end()) == pinfo->num)
        expert_add_info_format(pinfo, fi, expert_for(f.kind), "StallScope %s (%s side)%s%s", f.kind.c_str(), side,
                               f.fix.empty() ? "" : ": ", f.fix.c_str());
    col_append_fstr(pinfo->cinfo, COL_INFO, " [StallScope: %s %.0f ms]", f.kind.c_str(), f.cost_ms);
}

int dissect_stallscope(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void*) {
    if (!PINFO_FD_VISITED(pinfo)) {
        feed_first_pass(tvb, pinfo);
        return 0;  // nothing is known about a frame until the whole capture was read
    }
    const FrameMark* m = session->mark(pinfo->num);
    if (!m) return 0;
    const stallscope::ws::FrameMarks* marks = session->marks();
    const Call* call = m->call ? marks->call(m->call) : nullptr;

    proto_item* ti = add_generated(proto_tree_add_item(tree, proto_stallscope, tvb, 0, 0, ENC_NA));
    proto_tree* st = proto_item_add_subtree(ti, ett_stallscope);
    if (call) {
        proto_item_append_text(ti, ", call %" PRIu64, call->id);
        add_generated(proto_tree_add_uint(st, hf_call, tvb, 0, 0, guint32(call->id)));
        if (!call->soap.operation.empty()) {
            proto_item_append_text(ti, " %s", call->soap.operation.c_str());
            add_generated(proto_tree_add_string(st, hf_operation, tvb, 0, 0, call->soap.operation.c_str()));
        }
        if (!call->method.empty()) add_generated(proto_tree_add_string(st, hf_method, tvb, 0, 0, call->method.c_str()));
        if (!call->uri.empty()) add_generated(proto_tree_add_string(st, hf_uri, tvb, 0, 0, call->uri.c_str()));
        if (call->status) add_generated(proto_tree_add_uint(st, hf_status, tvb, 0, 0, guint32(call->status)));
        if (call->complete)
            add_generated(proto_tree_add_double_format_value(st, hf_latency_ms, tvb, 0, 0, call->latency_ms,
                                                             "%.3f ms", call->latency_ms));
    }
    if (m->connection) add_generated(proto_tree_add_uint(st, hf_connection, tvb, 0, 0, guint32(m->connection)));
    if (m->phase) {
        proto_item_append_text(ti, ", %s", m->phase);
        add_generated(proto_tree_add_string(st, hf_phase, tvb, 0, 0, m->phase));
    }
    const auto& findings = marks->result().findings;
    for (uint32_t idx : m->findings) add_finding(tvb, pinfo, st, findings[idx], idx);
    return 0;
}

} // namespace

void proto_register_stallscope(void) {
    static hf_register_info hf[] = {
        {&hf_call, {"Call", "stallscope.call", FT_UINT32, BASE_DEC, NULL, 0x0,
                    "StallScope call id (1-based, in order of request start)", HFILL}},
        {&hf_connection, {"Connection", "stallscope.connection", FT_UINT32, BASE_DEC, NULL, 0x0,
                          "StallScope connection id (1-based, in order of first packet)", HFILL}},
        {&hf_operation, {"SOAP operation", "stallscope.operation", FT_STRING, BASE_NONE, NULL, 0x0,
                         "First element of the request's SOAP Body", HFILL}},
        {&hf_method, {"HTTP method", "stallscope.method", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL}},
        {&hf_uri, {"Request URI", "stallscope.uri", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL}},
        {&hf_status, {"HTTP status", "stallscope.status", FT_UINT32, BASE_DEC, NULL, 0x0,
                      "Final status code of the call's response", HFILL}},
        {&hf_latency_ms, {"Call latency", "stallscope.latency_ms", FT_DOUBLE, BASE_NONE, NULL, 0x0,
                          "First request byte to last response byte, in milliseconds", HFILL}},
        {&hf_phase, {"Phase", "stallscope.phase", FT_STRING, BASE_NONE, NULL, 0x0,
                     "Phase of the call this frame falls in (connect, request_headers, continue_wait, "
                     "request_body, server_time, response_headers, response_body, close)", HFILL}},
        {&hf_finding, {"Finding", "stallscope.finding", FT_STRING, BASE_NONE, NULL, 0x0,
                       "Kind of stall this frame is evidence of (nagle_delayed_ack, split_write, ...)", HFILL}},
        {&hf_finding_id, {"Finding number", "stallscope.finding_id", FT_UINT32, BASE_DEC, NULL, 0x0,
                          "1-based index of the finding in the StallScope report", HFILL}},
        {&hf_side, {"Caused by", "stallscope.side", FT_STRING, BASE_NONE, NULL, 0x0, "client or server", HFILL}},
        {&hf_cost_ms, {"Cost", "stallscope.cost_ms", FT_DOUBLE, BASE_NONE, NULL, 0x0,
                       "Time the stall added to the call, in milliseconds", HFILL}},
        {&hf_counted_ms, {"Counted", "stallscope.counted_ms", FT_DOUBLE, BASE_NONE, NULL, 0x0,
                          "The part of the cost the report's totals count under this finding (where two findings "
                          "cover the same time, it is counted once, under the one that started the chain), in "
                          "milliseconds", HFILL}},
        {&hf_explanation, {"Explanation", "stallscope.explanation", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL}},
        {&hf_fix, {"Fix", "stallscope.fix", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL}},
        {&hf_toolkit, {"Toolkit", "stallscope.toolkit", FT_STRING, BASE_NONE, NULL, 0x0,
                       "SOAP toolkit recognised from User-Agent/Server", HFILL}},
        {&hf_toolkit_fix, {"Toolkit fix", "stallscope.toolkit_fix", FT_STRING, BASE_NONE, NULL, 0x0,
                           "The recognised toolkit's own setting", HFILL}},
    };
    static gint* ett[] = {&ett_stallscope, &ett_finding};
    // PI_SEQUENCE: like TCP's retransmission and zero-window warnings, these
    // are about how segments and their timing followed each other.
    kind_experts = new std::vector<KindExpert>();
    for (const stallscope::FindingKindInfo& k : stallscope::finding_kinds())
        kind_experts->push_back({std::string(k.id), "stallscope.expert." + std::string(k.id), std::string(k.expert_summary)});
    auto* ei = new std::vector<ei_register_info>();
    ei->push_back({&ei_finding, {"stallscope.expert.other", PI_SEQUENCE, PI_WARN, "StallScope finding", EXPFILL}});
    for (KindExpert& k : *kind_experts)
        ei->push_back({&k.ei, {k.name.c_str(), PI_SEQUENCE, PI_WARN, k.summary.c_str(), EXPFILL}});

    session = new PluginSession();
    proto_stallscope = proto_register_protocol("StallScope SOAP/HTTP stall analysis", "StallScope", "stallscope");
    proto_register_field_array(proto_stallscope, hf, G_N_ELEMENTS(hf));
    proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
    expert_module_t* expert = expert_register_protocol(proto_stallscope);
    expert_register_field_array(expert, ei->data(), int(ei->size()));
    register_init_routine(init_routine);
    register_cleanup_routine(cleanup_routine);
}

void proto_reg_handoff_stallscope(void) {
    stallscope_handle = register_dissector("stallscope", dissect_stallscope, proto_stallscope);
    register_postdissector(stallscope_handle);
}
