// The CLI's and GUI's way to one diagram: find the call or connection, gather
// its segments and the findings that touch them, title it, lay it out.
#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/diagram_text.h"

#include <algorithm>
#include <unordered_set>

namespace stallscope {
namespace {

const Connection* find_connection(const AnalysisResult& r, uint64_t id) {
    for (const auto& c : r.connections)
        if (c.id == id) return &c;
    return nullptr;
}

// Findings about these calls, or whose evidence is among these frames.
std::vector<Finding> findings_for(const AnalysisResult& r, const std::unordered_set<uint64_t>& call_ids,
                                  const std::vector<SegmentInfo>& segs) {
    std::unordered_set<uint64_t> frames;
    for (const auto& s : segs) frames.insert(s.frame);
    std::vector<Finding> out;
    for (const auto& f : r.findings) {
        bool hit = std::any_of(f.calls.begin(), f.calls.end(), [&](uint64_t id) { return call_ids.count(id) > 0; }) ||
                   std::any_of(f.frames.begin(), f.frames.end(), [&](uint64_t fr) { return frames.count(fr) > 0; });
        if (hit) out.push_back(f);
    }
    return out;
}

std::string call_title(const Call& c) {
    std::string t = "Call " + std::to_string(c.id) + ":";
    if (!c.method.empty()) t += " " + c.method;
    if (!c.uri.empty()) t += " " + c.uri;
    if (!c.soap.operation.empty()) t += " " + c.soap.operation;
    t += " \u2014 " + (c.complete ? format_ms(c.latency_ms) : std::string("incomplete"));
    return clean_text(t);
}

} // namespace

bool call_event_trace(const AnalysisResult& r, uint64_t call_id, EventTraceLayout& out, std::string& error,
                      const EventTraceOptions& options) {
    auto it = std::find_if(r.calls.begin(), r.calls.end(), [&](const Call& c) { return c.id == call_id; });
    if (it == r.calls.end()) {
        error = "no call " + std::to_string(call_id) + " (the capture has " + std::to_string(r.calls.size()) +
                " calls)";
        return false;
    }
    if (it->segments.empty()) {
        error = "call " + std::to_string(call_id) + " has no segments (were segments kept by the analysis?)";
        return false;
    }
    std::string client, server;
    if (const Connection* k = find_connection(r, it->connection_id)) {
        client = k->client.to_string();
        server = k->server.to_string();
    }
    out = layout_event_trace(it->segments, findings_for(r, {call_id}, it->segments), call_title(*it), client,
                             server, options);
    return true;
}

bool connection_event_trace(const AnalysisResult& r, uint64_t connection_id, EventTraceLayout& out,
                            std::string& error, const EventTraceOptions& options) {
    const Connection* k = find_connection(r, connection_id);
    if (!k) {
        error = "no connection " + std::to_string(connection_id) + " (the capture has " +
                std::to_string(r.connections.size()) + " connections)";
        return false;
    }
    std::vector<SegmentInfo> segs;
    std::unordered_set<uint64_t> ids;
    for (const auto& c : r.calls) {
        if (c.connection_id != connection_id) continue;
        ids.insert(c.id);
        segs.insert(segs.end(), c.segments.begin(), c.segments.end());   // the layout drops repeated frames
    }
    if (segs.empty()) {
        error = "connection " + std::to_string(connection_id) +
                (ids.empty() ? " carried no calls" : " has no segments (were segments kept by the analysis?)");
        return false;
    }
    std::string title = "Connection " + std::to_string(connection_id) + ": " + std::to_string(ids.size()) +
                        (ids.size() == 1 ? " call" : " calls");
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
