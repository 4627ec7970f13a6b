#include "app/gui/calls_page.h"

#include <algorithm>

#include "app/gui/calls_filter_model.h"
#include "app/gui/calls_model.h"
#include "app/gui/display_text.h"
#include "app/gui/selection_hub.h"
#include "app/gui/wireshark_link.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QFontMetrics>
#include <QHeaderView>
#include <QMenu>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace stallscope::gui {

CallsPage::CallsPage(SelectionHub* hub, QWidget* parent)
    : QWidget(parent), hub_(hub), model_(new CallsModel(this)), proxy_(new CallsFilterModel(this)), table_(new QTableView),
      operation_(new QLineEdit), connection_(new QSpinBox), status_(new QComboBox), min_latency_(new QDoubleSpinBox),
      max_latency_(new QDoubleSpinBox), kind_(new QComboBox), count_(new QLabel) {
    proxy_->setCallsModel(model_);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(CallsModel::Id, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);
    // Wireshark habits on a call: open it there at its first frame, or copy the plugin's filter.
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex idx = table_->indexAt(pos);
        auto c = idx.isValid() ? hub_->call(idx.data(CallsModel::CallIdRole).toULongLong()) : nullptr;
        if (!c || !hub_->result()) return;
        QMenu menu;
        addWiresharkActions(&menu, hub_->result()->capture, c->request_first_frame, callDisplayFilter(c->id));
        menu.exec(table_->viewport()->mapToGlobal(pos));
    });

    operation_->setPlaceholderText(tr("Operation or URI…"));
    operation_->setClearButtonEnabled(true);
    connection_->setRange(0, 1 << 30);
    connection_->setSpecialValueText(tr("any"));
    connection_->setPrefix(tr("conn "));
    status_->addItem(tr("Any status"), int(StatusFilter::Any));
    status_->addItem(tr("Success"), int(StatusFilter::Success));
    status_->addItem(tr("4xx"), int(StatusFilter::ClientError));
    status_->addItem(tr("5xx"), int(StatusFilter::ServerError));
    status_->addItem(tr("SOAP fault"), int(StatusFilter::Fault));
    status_->addItem(tr("Incomplete"), int(StatusFilter::Incomplete));
    for (QDoubleSpinBox* s : {min_latency_, max_latency_}) {
        s->setRange(0, 1e7);
        s->setDecimals(1);
        s->setSuffix(tr(" ms"));
        s->setSpecialValueText(tr("—"));
        s->setKeyboardTracking(false);
    }
    min_latency_->setToolTip(tr("Minimum latency"));
    max_latency_->setToolTip(tr("Maximum latency"));
    auto* clear = new QPushButton(tr("Clear"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(operation_, 2);
    bar->addWidget(connection_);
    bar->addWidget(status_);
    bar->addWidget(new QLabel(tr("Latency")));
    bar->addWidget(min_latency_);
    bar->addWidget(new QLabel(QStringLiteral("–")));
    bar->addWidget(max_latency_);
    bar->addWidget(kind_, 1);
    bar->addWidget(clear);
    bar->addWidget(count_);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    lay->addLayout(bar);
    lay->addWidget(table_, 1);

    connect(operation_, &QLineEdit::textChanged, this, &CallsPage::applyFilter);
    connect(connection_, &QSpinBox::valueChanged, this, &CallsPage::applyFilter);
    connect(status_, &QComboBox::currentIndexChanged, this, &CallsPage::applyFilter);
    connect(min_latency_, &QDoubleSpinBox::valueChanged, this, &CallsPage::applyFilter);
    connect(max_latency_, &QDoubleSpinBox::valueChanged, this, &CallsPage::applyFilter);
    connect(kind_, &QComboBox::currentIndexChanged, this, &CallsPage::applyFilter);
    connect(clear, &QPushButton::clicked, this, &CallsPage::clearFilters);
    connect(hub_, &SelectionHub::resultChanged, this, &CallsPage::onResult);
    connect(hub_, &SelectionHub::callSelected, this, &CallsPage::onCallSelected);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
        if (cur.isValid()) hub_->selectCall(proxy_->data(cur, CallsModel::CallIdRole).toULongLong());
    });
    onResult(hub_->result());
}

void CallsPage::onResult(const ResultPtr& r) {
    model_->setResult(r);
    {
        QSignalBlocker b(kind_);
        kind_->clear();
        kind_->addItem(tr("Any finding or none"), QString());
        kind_->addItem(tr("With findings"), QStringLiteral("any"));
        kind_->addItem(tr("Without findings"), QStringLiteral("none"));
        for (const QString& k : model_->allFindingKinds()) kind_->addItem(findingKindLabel(k.toStdString()), k);
    }
    table_->resizeColumnsToContents();
    // resizeColumnsToContents samples only the first rows: the last calls
    // have the longest ids and start times, so those columns fit them too.
    if (const int n = model_->rowCount(); n > 0) {
        const QFontMetrics fm(table_->font());
        for (int col : {int(CallsModel::Id), int(CallsModel::Connection), int(CallsModel::Start)}) {
            int w = table_->columnWidth(col);
            for (int row : {0, n / 2, n - 1})
                w = std::max(w, fm.horizontalAdvance(model_->index(row, col).data().toString()) + 24);
            table_->setColumnWidth(col, w);
        }
    }
    applyFilter();
}

void CallsPage::applyFilter() {
    CallFilter f;
    f.operation = operation_->text().trimmed();
    f.connection = quint64(connection_->value());
    f.status = StatusFilter(status_->currentData().toInt());
    if (min_latency_->value() > 0) f.min_latency_ms = min_latency_->value();
    if (max_latency_->value() > 0) f.max_latency_ms = max_latency_->value();
    f.finding_kind = kind_->currentData().toString();
    proxy_->setFilter(f);
    count_->setText(tr("%1 of %2").arg(proxy_->rowCount()).arg(countNoun(uint64_t(model_->rowCount()), tr("call"), tr("calls"))));
    emit visibleCallsChanged();
}

void CallsPage::clearFilters() {
    const QSignalBlocker b1(operation_), b2(connection_), b3(status_), b4(min_latency_), b5(max_latency_), b6(kind_);
    operation_->clear();
    connection_->setValue(0);
    status_->setCurrentIndex(0);
    min_latency_->setValue(0);
    max_latency_->setValue(0);
    kind_->setCurrentIndex(0);
    applyFilter();
}

void CallsPage::focusFilter() {
    operation_->setFocus();
    operation_->selectAll();
}

std::unordered_set<uint64_t> CallsPage::visibleCallIds() const {
    std::unordered_set<uint64_t> ids;
    for (int r = 0; r < proxy_->rowCount(); ++r)
        ids.insert(proxy_->data(proxy_->index(r, 0), CallsModel::CallIdRole).toULongLong());
    return ids;
}

void CallsPage::onCallSelected(quint64 id) {
    const int src = model_->rowOfCall(id);
    const QModelIndex pi = src >= 0 ? proxy_->mapFromSource(model_->index(src, 0)) : QModelIndex();
    if (pi.isValid() && table_->currentIndex().row() == pi.row()) return;
    QSignalBlocker block(table_->selectionModel());
    if (pi.isValid()) {
        table_->setCurrentIndex(pi);
        table_->selectionModel()->select(pi, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        table_->scrollTo(pi);
    } else {
        table_->clearSelection();
    }
    table_->viewport()->update();
}

} // namespace stallscope::gui
