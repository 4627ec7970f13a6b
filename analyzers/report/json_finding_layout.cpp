#include "analyzers/report/json_finding_layout.h"

#include "analyzers/report/json_details.h"
#include "analyzers/report/json_fixed_runs.h"
#include "analyzers/report/report.h"

#include <iterator>

namespace stallscope {

namespace {

// The runs of a finding's element for one indent and depth. D: the
// element's own line, M: its members, S: the elements of its arrays and the
// members of details, P: the members of an interval.
struct FindingLayout {
    // The members in finding_json's order (frame_locations, of file sets
    // only, is the general path's).
    static constexpr const char* kKey[] = {"kind", "side", "connection_id", "calls", "frames", "cost_ms",
        "cost_method", "start_ms", "end_ms", "explanation", "fix", "toolkit", "toolkit_fix", "details", "counted_ms",
        "intervals"};
    static constexpr const char* kIntervalKey[] = {"start_ms", "end_ms"};

    FindingLayout(int indent, size_t depth) : indent(indent), depth(depth) {
        FixedRunMaker m(indent);
        const size_t D = depth, M = D + 1, S = D + 2, P = D + 3;
        m.members(member, kKey, M);  // member[0] is not used: the element's runs hold it
        elem_first = m.run(m.nl(D) + "{" + m.nl(M) + m.key(kKey[0]));
        elem_next = m.run("," + m.nl(D) + "{" + m.nl(M) + m.key(kKey[0]));
        open_s = m.run("{" + m.nl(S));
        array_s = m.run("[" + m.nl(S));
        next_s = m.run("," + m.nl(S));
        close_object_s = m.close('}', S);
        close_array_s = m.close(']', S);
        m.members(interval, kIntervalKey, P);
        close_p = m.close('}', P);
        close_elem = m.close('}', M);
        key_end = indent < 0 ? ":" : ": ";
        fits = m.fits();
    }

    int indent;
    size_t depth;
    bool fits;
    FixedRun elem_first, elem_next, member[std::size(kKey)], open_s, array_s, next_s, close_object_s, close_array_s,
        interval[std::size(kIntervalKey)], close_p, close_elem;
    std::string_view key_end;
};

consteval size_t key(std::string_view k) { return key_index(FindingLayout::kKey, k); }

} // namespace

bool finding_json_layout(JsonStream& w, const Finding& f, int64_t t0, const CaptureInfo& c) {
    if (w.depth() == 0 || !c.files.empty()) return false;
    const FindingLayout* lp = fixed_layout<FindingLayout>(w.indent(), w.depth());
    if (!lp) return false;
    const FindingLayout& L = *lp;
    FixedOut o(w);
    o.run(w.raw_element() ? L.elem_first : L.elem_next);
    o.str(f.kind);
    o.run(L.member[key("side")]);
    o.str(side_name(f.side));
    o.run(L.member[key("connection_id")]);
    o.num(f.connection_id);
    o.run(L.member[key("calls")]);
    o.numbers(f.calls, L.array_s, L.next_s, L.close_array_s);
    o.run(L.member[key("frames")]);
    o.numbers(f.frames, L.array_s, L.next_s, L.close_array_s);
    o.run(L.member[key("cost_ms")]);
    o.ms(f.cost_ms);
    o.run(L.member[key("cost_method")]);
    o.str(f.cost_method);
    o.run(L.member[key("start_ms")]);
    o.ms(ms_between(f.start_ns, t0));
    o.run(L.member[key("end_ms")]);
    o.ms(ms_between(f.end_ns, t0));
    o.run(L.member[key("explanation")]);
    o.str(f.explanation);
    o.run(L.member[key("fix")]);
    o.str(f.fix);
    o.run(L.member[key("toolkit")]);
    o.str_or_null(f.toolkit);
    o.run(L.member[key("toolkit_fix")]);
    o.str_or_null(f.toolkit_fix);
    o.run(L.member[key("details")]);
    if (f.details.empty()) {
        o.lit("{}");
    } else {
        bool first = true;
        for_each_detail(f.details, [&](const std::string& k, const std::string& v) {
            o.run(first ? L.open_s : L.next_s);
            first = false;
            o.str(k);  // a key is written as a string is
            o.lit(L.key_end);
            o.str(v);
        });
        o.run(L.close_object_s);
    }
    o.run(L.member[key("counted_ms")]);
    o.ms(f.counted_ms);
    o.run(L.member[key("intervals")]);
    if (f.intervals.empty()) {
        o.lit("[]");
    } else {
        for (size_t i = 0; i < f.intervals.size(); ++i) {
            o.run(i ? L.next_s : L.array_s);
            o.run(L.interval[0]);
            o.ms(ms_between(f.intervals[i].start_ns, t0));
            o.run(L.interval[1]);
            o.ms(ms_between(f.intervals[i].end_ns, t0));
            o.run(L.close_p);
        }
        o.run(L.close_array_s);
    }
    o.run(L.close_elem);
    o.end();
    return true;
}

} // namespace stallscope
