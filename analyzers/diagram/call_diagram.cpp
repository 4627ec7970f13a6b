// The CLI's and GUI's way to one diagram: find the call or connection, gather
// its segments and the findings that touch them, title it, lay it out.
#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/diagram_text.h"

#include "analyzers/result/result_spill.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace stallscope {
namespace {

// Items are looked up wherever the result keeps them (memory, or the spill
// file of a big analysis), so a diagram never needs every call in memory.
template <class T>
std::optional<T> find_item(const AnalysisResult& r, uint64_t id, const std::vector<T>& in_memory,
                           bool (ResultSpill::*on_disk)(uint64_t, T&) const) {
    if (r.spill) {
        T item;
        if ((r.spill.get()->*on_disk)(id, item)) return item;
        return std::nullopt;
    }
    for (const T& k : in_memory)
        if (k.id == id) return k;
    return std::nullopt;
}
std::optional<Connection> find_connection(const AnalysisResult& r, uint64_t id) {
    return find_item(r, id, r.connections, &ResultSpill::find_connection);
}
std::optional<Call> find_call(const AnalysisResult& r, uint64_t id) {
    return find_item(r, id, r.calls, &ResultSpill::find_call);
}

// Findings about these calls, or whose evidence is among these frames.
std::vector<Finding> findings_for(const AnalysisResult& r, const std::unordered_set<uint64_t>& call_ids,
                                  const std::vector<SegmentInfo>& segs) {
    std::unordered_set<uint64_t> frames;
    for (const auto& s : segs) frames.insert(s.frame);
    std::vector<Finding> out;
    for_each_finding(r, [&](const Finding& f) {
        bool hit = std::any_of(f.calls.begin(), f.calls.end(), [&](uint64_t id) { return call_ids.count(id) > 0; }) ||
                   std::any_of(f.frames.begin(), f.frames.end(), [&](uint64_t fr) { return frames.count(fr) > 0; });
        if (hit) out.push_back(f);
        return true;
    });
    return out;
}

std::string call_title(const Call& c) {
    std::string t = "Call " + std::to_string(c.id) + ":";
    if (!c.method.empty()) t += " " + c.method;
    if (!c.uri.empty()) t += " " + c.uri;
    if (!c.soap.operation.empty()) t += " " + c.soap.operation;
    if (c.encrypted) t += " TLS (encrypted)";
    t += " \u2014 " + (c.complete ? format_ms(c.latency_ms) : std::string("incomplete"));
    return clean_text(t);
}

// " — file.pcap": the capture's name, not its path (docs/cli.md: figures go
// into papers and slides).
std::string capture_suffix(const AnalysisResult& r) {
    const std::string& f = r.capture.file;
    return f.empty() ? std::string() : clean_text(" \u2014 " + f.substr(f.find_last_of('/') + 1));
}

} // namespace

bool call_event_trace(const AnalysisResult& r, uint64_t call_id, EventTraceLayout& out, std::string& error,
                      const EventTraceOptions& options) {
    const std::optional<Call> c = find_call(r, call_id);
    if (!c) {
        error = "no call " + std::to_string(call_id) + " (the capture has " + std::to_string(call_count(r)) + " calls)";
        return false;
    }
    if (c->segments.empty()) {
        error = "call " + std::to_string(call_id) + " has no segments (were segments kept by the analysis?)";
        return false;
    }
    std::string client, server;
    if (const std::optional<Connection> k = find_connection(r, c->connection_id)) {
        client = k->client.to_string();
        server = k->server.to_string();
    }
    out = layout_event_trace(c->segments, findings_for(r, {call_id}, c->segments), call_title(*c) + capture_suffix(r), client, server,
                             options);
    return true;
}

bool connection_event_trace(const AnalysisResult& r, uint64_t connection_id, EventTraceLayout& out,
                            std::string& error, const EventTraceOptions& options) {
    const std::optional<Connection> k = find_connection(r, connection_id);
    if (!k) {
        error = "no connection " + std::to_string(connection_id) + " (the capture has " +
                std::to_string(connection_count(r)) + " connections)";
        return false;
    }
    std::vector<SegmentInfo> segs;
    std::unordered_set<uint64_t> ids;
    for_each_call(r, [&](const Call& c) {
        if (c.connection_id != connection_id) return true;
        ids.insert(c.id);
        segs.insert(segs.end(), c.segments.begin(), c.segments.end());   // the layout drops repeated frames
        return true;
    });
    if (segs.empty()) {
        error = "connection " + std::to_string(connection_id) +
                (ids.empty() ? " carried no calls" : " has no segments (were segments kept by the analysis?)");
        return false;
    }
    std::string title = "Connection " + std::to_string(connection_id) + ": " + std::to_string(ids.size()) +
                        (ids.size() == 1 ? " call" : " calls") + capture_suffix(r);
    out = layout_event_trace(segs, findings_for(r, ids, segs), title, k->client.to_string(), k->server.to_string(),
                             options);
    return true;
}

bool export_call_diagram(const AnalysisResult& r, uint64_t call_id, const std::string& format,
                         const std::string& path, std::string& error) {
    EventTraceLayout L;
    return call_event_trace(r, call_id, L, error) && export_event_trace(L, path, format, error);
}

bool export_connection_diagram(const AnalysisResult& r, uint64_t connection_id, const std::string& format,
                               const std::string& path, std::string& error) {
    EventTraceLayout L;
    return connection_event_trace(r, connection_id, L, error) && export_event_trace(L, path, format, error);
}

} // namespace stallscope
