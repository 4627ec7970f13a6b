#pragma once
// A banner over the pages when the capture is damaged: what was lost and
// where (the reader stopped at a byte offset; every number covers only the
// packets before it), so a partial analysis never passes for a whole one.
// Hidden for a whole capture; follows the hub's result.
#include "app/gui/analysis_snapshot.h"

#include <QLabel>

namespace stallscope::gui {

class SelectionHub;

class DamageBanner : public QLabel {
    Q_OBJECT
public:
    explicit DamageBanner(SelectionHub* hub, QWidget* parent = nullptr);
    // The banner's sentence for a capture ("" when it is whole).
    static QString textFor(const CaptureInfo& capture);

private:
    void onResult(const ResultPtr& r);
};

} // namespace stallscope::gui
