#include "app/gui/findings_panel.h"

#include "app/gui/display_text.h"
#include "app/gui/findings_model.h"
#include "app/gui/selection_hub.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace stallscope::gui {

FindingsPanel::FindingsPanel(SelectionHub* hub, QWidget* parent)
    : QWidget(parent), hub_(hub), model_(new FindingsModel(this)), only_call_(new QCheckBox(tr("Only the selected call"))),
      table_(new QTableView), details_(new QTextBrowser), evidence_(new QListWidget) {
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    only_call_->setChecked(true);

    details_->setOpenLinks(false);
    evidence_->setToolTip(tr("Click a frame to highlight it in the event trace"));
    auto* ev_box = new QWidget;
    auto* ev_lay = new QVBoxLayout(ev_box);
    ev_lay->setContentsMargins(0, 0, 0, 0);
    ev_lay->addWidget(new QLabel(tr("Evidence frames")));
    ev_lay->addWidget(evidence_);

    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(details_);
    lower->addWidget(ev_box);
    lower->setStretchFactor(0, 4);
    lower->setStretchFactor(1, 1);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    split->addWidget(lower);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);

    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    lay->addWidget(only_call_);
    lay->addWidget(split, 1);

    connect(hub_, &SelectionHub::resultChanged, this, &FindingsPanel::onResult);
    connect(hub_, &SelectionHub::callSelected, this, &FindingsPanel::onCallSelected);
    connect(hub_, &SelectionHub::findingSelected, this, &FindingsPanel::onFindingSelected);
    connect(only_call_, &QCheckBox::toggled, this, [this] { onCallSelected(hub_->selectedCall()); });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
        if (cur.isValid()) hub_->selectFinding(model_->findingIndex(cur.row()));
    });
    connect(evidence_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        if (item) hub_->highlightFrame(item->data(Qt::UserRole).toULongLong());
    });
    connect(evidence_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        // Clicking the current item again re-highlights (the user may have scrolled away).
        hub_->highlightFrame(0);
        hub_->highlightFrame(item->data(Qt::UserRole).toULongLong());
    });
    onResult(hub_->result());
}

void FindingsPanel::onResult(const ResultPtr& r) {
    model_->setResult(r);
    table_->resizeColumnsToContents();
    showFinding(-1);
}

void FindingsPanel::onCallSelected(quint64 id) {
    model_->setCallFilter(only_call_->isChecked() ? id : 0);
    onFindingSelected(hub_->selectedFinding());
    if (hub_->selectedFinding() < 0 && model_->rowCount() > 0 && only_call_->isChecked() && id)
        table_->setCurrentIndex(model_->index(0, 0));   // the costliest finding of this call
}

void FindingsPanel::onFindingSelected(int index) {
    const int row = model_->rowOfFinding(index);
    {
        QSignalBlocker block(table_->selectionModel());
        if (row >= 0) table_->setCurrentIndex(model_->index(row, 0));
        else table_->clearSelection();
    }
    if (row >= 0) table_->selectRow(row);
    showFinding(index);
}

void FindingsPanel::showFinding(int index) {
    fillFinding(index);
    // Point at the first evidence frame straight away (the trace scrolls to it).
    if (evidence_->count() > 0 && evidence_->currentRow() < 0) evidence_->setCurrentRow(0);
}

void FindingsPanel::fillFinding(int index) {
    QSignalBlocker block(evidence_);
    evidence_->clear();
    const ResultPtr& r = hub_->result();
    if (!r || index < 0 || size_t(index) >= r->findings.size()) {
        details_->setHtml(r && r->findings.empty() ? tr("<p>No findings: nothing in this capture looks like a known stall.</p>")
                                                   : tr("<p>Select a finding to see what happened and how to fix it.</p>"));
        return;
    }
    const Finding& f = r->findings[size_t(index)];
    auto esc = [](const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); };
    QString html = QStringLiteral("<h3>%1</h3>").arg(findingKindLabel(f.kind).toHtmlEscaped());
    html += QStringLiteral("<p>%1</p>").arg(esc(f.explanation));
    QStringList calls;
    for (uint64_t c : f.calls) calls << QString::number(c);
    html += QStringLiteral("<p><b>Time lost:</b> %1 <span style='color:gray'>(%2)</span><br><b>Caused by:</b> %3"
                           "<br><b>Connection:</b> %4 &nbsp; <b>Calls:</b> %5</p>")
                .arg(formatMs(f.cost_ms), esc(f.cost_method), sideLabel(f.side))
                .arg(f.connection_id)
                .arg(calls.join(QStringLiteral(", ")));
    if (!f.fix.empty()) html += QStringLiteral("<p><b>Fix:</b> %1</p>").arg(esc(f.fix));
    if (!f.toolkit.empty() || !f.toolkit_fix.empty())
        html += QStringLiteral("<p><b>%1:</b> %2</p>").arg(f.toolkit.empty() ? tr("Toolkit") : esc(f.toolkit), esc(f.toolkit_fix));
    if (!f.details.empty()) {
        html += QStringLiteral("<table cellspacing=0 cellpadding=2>");
        for (const auto& [k, v] : f.details)
            html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(esc(k), esc(v));
        html += QStringLiteral("</table>");
    }
    details_->setHtml(html);
    for (uint64_t frame : f.frames) {
        auto* item = new QListWidgetItem(tr("Frame %1").arg(frame), evidence_);
        item->setData(Qt::UserRole, QVariant::fromValue<quint64>(frame));
    }
}

} // namespace stallscope::gui
