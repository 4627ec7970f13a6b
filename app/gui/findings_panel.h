#pragma once
// Findings of the selected call (or all of them): the ranked list, and for
// the chosen finding its explanation, cost, fix and evidence frames.
// Clicking an evidence frame highlights that arrow in the event trace.
#include "app/gui/analysis_snapshot.h"
#include "app/gui/findings_groups.h"

#include <QWidget>

class QCheckBox;
class QListWidget;
class QTableView;
class QTextBrowser;

namespace stallscope::gui {

class FindingsModel;
class SelectionHub;

class FindingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit FindingsPanel(SelectionHub* hub, QWidget* parent = nullptr);
    QTableView* table() const { return table_; }
    QListWidget* evidence() const { return evidence_; }
    QTextBrowser* details() const { return details_; }
    FindingsModel* model() const { return model_; }

private:
    void onResult(const ResultPtr& r);
    void onCallSelected(quint64 id);
    void onFindingSelected(int index);
    void showFinding(int index);
    void fitWidth();   // the list's minimum width: every column header whole
    void fillFinding(int index);

    SelectionHub* hub_;
    FindingsModel* model_;
    QCheckBox* only_call_;
    QTableView* table_;
    QTextBrowser* details_;
    QListWidget* evidence_;
    std::vector<FindingGroup> groups_;
};

} // namespace stallscope::gui
