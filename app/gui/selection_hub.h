#pragma once
// The one place that knows what is selected: the current result snapshot,
// the selected call / connection / finding and the highlighted frame. Views
// listen to it and tell it what the user picked; they never talk to each
// other. Owned by the main window (no singleton). Signals fire only on change.
#include "app/gui/analysis_snapshot.h"

#include <QObject>
#include <memory>

namespace stallscope::gui {

class SelectionHub : public QObject {
    Q_OBJECT
public:
    explicit SelectionHub(QObject* parent = nullptr);

    const ResultPtr& result() const { return result_; }
    // Fetched on demand (a spilled result reads it from disk): nullptr when unknown.
    std::shared_ptr<const Call> call(uint64_t id) const;
    std::shared_ptr<const Connection> connection(uint64_t id) const;

    uint64_t selectedCall() const { return call_; }
    uint64_t selectedConnection() const { return connection_; }
    int selectedFinding() const { return finding_; }   // index into findings, -1 none
    uint64_t highlightedFrame() const { return frame_; }

public slots:
    void setResult(stallscope::gui::ResultPtr result);
    void selectCall(quint64 id);          // also selects its connection
    void selectConnection(quint64 id);    // clears the call when it is on another connection
    void selectFinding(int index);        // also selects the finding's first call
    void highlightFrame(quint64 frame);

signals:
    void resultChanged(const stallscope::gui::ResultPtr& result);
    void callSelected(quint64 id);
    void connectionSelected(quint64 id);
    void findingSelected(int index);
    void frameHighlighted(quint64 frame);

private:
    ResultPtr result_;
    uint64_t call_ = 0, connection_ = 0, frame_ = 0;
    int finding_ = -1;
};

} // namespace stallscope::gui
