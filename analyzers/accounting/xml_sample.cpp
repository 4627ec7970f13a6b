#include "analyzers/accounting/xml_sample.h"

#include "analyzers/accounting/summary.h"

namespace stallscope {

bool sample_hash_pick(uint64_t x, uint64_t every) {
    if (every <= 1) return true;
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return (x ^ (x >> 31)) % every == 0;
}

bool XmlCallSelector::selected(const Call& c) {
    if (s_.full || sample_hash_pick(c.request.first_frame, s_.every, c.request.content_bytes)) return true;
    return among_first(operation_key(c));
}

bool XmlCallSelector::selected(uint64_t request_frame, uint64_t request_bytes, std::string_view operation) {
    if (s_.full || sample_hash_pick(request_frame, s_.every, request_bytes)) return true;
    return among_first(operation);
}

bool XmlCallSelector::among_first(std::string_view operation) {
    if (!last_key_ || *last_key_ != operation) {
        auto it = seen_.find(operation);
        if (it == seen_.end()) it = seen_.emplace(std::string(operation), 0).first;
        last_key_ = &it->first;
        last_count_ = &it->second;
    }
    return (*last_count_)++ < s_.first;
}

void XmlSampleSums::add_to(Figures& f, const Entry& e) {
    if (!e.use) return;
    ++f.calls;
    f.weight += e.weight;
    f.elements += e.weight * e.elements;
    f.markup += e.weight * e.markup;
    f.content += e.weight * e.content;
}

void XmlSampleSums::add(const Call& c, bool counted) {
    const bool picked = s_.full || sample_hash_pick(c.request.first_frame, s_.every, c.request.content_bytes);
    Entry e{c.id, counted && whole_xml_measured(c), 1.0, double(c.soap.element_count + c.soap_response.element_count),
            double(c.request.markup_bytes + c.response.markup_bytes),
            double(c.request.content_bytes + c.response.content_bytes)};
    if (picked) {
        if (!s_.full) e.weight = double(sample_weight(c.request.content_bytes));
        return add_to(picked_, e);
    }
    // Past the first ids a higher one would be pushed and popped again
    // straight away (calls mostly come in id order): leave it out.
    if (lowest_.size() >= s_.first && (s_.first == 0 || e.id > lowest_.top().id)) return;
    lowest_.push(e);
    if (lowest_.size() > s_.first) lowest_.pop();
}

XmlSampleSums::Figures XmlSampleSums::figures() const {
    Figures f = picked_;
    for (auto q = lowest_; !q.empty(); q.pop()) add_to(f, q.top());
    return f;
}

} // namespace stallscope
