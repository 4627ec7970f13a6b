#include "app/gui/selection_hub.h"

#include <algorithm>

namespace stallscope::gui {

SelectionHub::SelectionHub(QObject* parent) : QObject(parent) {}

std::shared_ptr<const Call> SelectionHub::call(uint64_t id) const {
    return result_ ? result_->callById(id) : nullptr;
}

std::shared_ptr<const Connection> SelectionHub::connection(uint64_t id) const {
    return result_ ? result_->connection(id) : nullptr;
}

void SelectionHub::setResult(ResultPtr result) {
    result_ = std::move(result);
    call_ = connection_ = frame_ = 0;
    finding_ = -1;
    emit resultChanged(result_);
    emit callSelected(0);
    emit connectionSelected(0);
    emit findingSelected(-1);
    emit frameHighlighted(0);
}

void SelectionHub::selectCall(quint64 id) {
    auto c = call(id);
    if (!c) id = 0;
    if (id == call_) return;
    call_ = id;
    if (finding_ >= 0) {  // a finding stays selected only while it concerns this call
        const auto f = result_->finding(size_t(finding_));
        const auto& calls = f->calls;
        if (std::find(calls.begin(), calls.end(), id) == calls.end()) {
            finding_ = -1;
            emit findingSelected(-1);
        }
    }
    if (c && c->connection_id != connection_) {
        connection_ = c->connection_id;
        emit connectionSelected(connection_);
    }
    emit callSelected(call_);
}

void SelectionHub::selectConnection(quint64 id) {
    if (!connection(id)) id = 0;
    if (id == connection_) return;
    connection_ = id;
    if (auto c = call(call_); c && c->connection_id != id) {
        call_ = 0;
        emit callSelected(0);
    }
    emit connectionSelected(connection_);
}

void SelectionHub::selectFinding(int index) {
    if (!result_ || index < 0 || size_t(index) >= result_->findingCount()) index = -1;
    if (index == finding_) return;
    finding_ = index;
    if (index >= 0) {
        const auto found = result_->finding(size_t(index));
        const Finding& f = *found;
        const bool keeps_call = std::find(f.calls.begin(), f.calls.end(), call_) != f.calls.end();
        if (!keeps_call && !f.calls.empty()) selectCall(f.calls.front());
        else if (f.calls.empty()) selectConnection(f.connection_id);
    }
    emit findingSelected(finding_);
}

void SelectionHub::highlightFrame(quint64 frame) {
    if (frame == frame_) return;
    frame_ = frame;
    emit frameHighlighted(frame_);
}

} // namespace stallscope::gui
