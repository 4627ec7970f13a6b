#pragma once
// The calls table with its filter bar. Selecting a row selects the call in
// the SelectionHub; a selection made elsewhere selects the row here.
#include "app/gui/analysis_snapshot.h"

#include <QWidget>
#include <unordered_set>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;

namespace stallscope::gui {

class CallsFilterModel;
class CallsModel;
class SelectionHub;

class CallsPage : public QWidget {
    Q_OBJECT
public:
    explicit CallsPage(SelectionHub* hub, QWidget* parent = nullptr);

    CallsModel* model() const { return model_; }
    CallsFilterModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLineEdit* operationFilter() const { return operation_; }
    QComboBox* kindFilter() const { return kind_; }
    QComboBox* statusFilter() const { return status_; }
    QSpinBox* connectionFilter() const { return connection_; }
    std::unordered_set<uint64_t> visibleCallIds() const;

signals:
    void visibleCallsChanged();

public slots:
    void clearFilters();
    void focusFilter();

private:
    void onResult(const ResultPtr& r);
    void onCallSelected(quint64 id);
    void applyFilter();

    SelectionHub* hub_;
    CallsModel* model_;
    CallsFilterModel* proxy_;
    QTableView* table_;
    QLineEdit* operation_;
    QSpinBox* connection_;
    QComboBox* status_;
    QDoubleSpinBox* min_latency_;
    QDoubleSpinBox* max_latency_;
    QComboBox* kind_;
    QLabel* count_;
};

} // namespace stallscope::gui
