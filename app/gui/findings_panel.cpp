#include "app/gui/findings_panel.h"

#include "analyzers/result/finding_kinds.h"
#include "app/gui/display_text.h"
#include "app/gui/findings_groups.h"
#include "app/gui/findings_model.h"
#include "app/gui/fix_prediction.h"
#include "app/gui/help_links.h"
#include "app/gui/selection_hub.h"
#include "app/gui/wireshark_link.h"

#include <QCheckBox>
#include <QDesktopServices>
#include <QMenu>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QScrollBar>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <set>

namespace stallscope::gui {

FindingsPanel::FindingsPanel(SelectionHub* hub, QWidget* parent)
    : QWidget(parent), hub_(hub), model_(new FindingsModel(this)), only_call_(new QCheckBox(tr("Only the selected call"))),
      table_(new QTableView), details_(new QTextBrowser), evidence_(new QListWidget) {
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    // Every header readable (issue 27: "Expla…" at 1360x860): the short
    // columns take their content's or their header's width, the explanation
    // the rest, and the list is never narrower than all of them (fitWidth).
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    only_call_->setChecked(true);

    details_->setOpenLinks(false);
    evidence_->setToolTip(tr("Click a frame to highlight it in the event trace; right-click for Wireshark"));
    evidence_->setContextMenuPolicy(Qt::CustomContextMenu);
    evidence_->setWordWrap(true);
    connect(evidence_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QListWidgetItem* item = evidence_->itemAt(pos);
        if (!item || !hub_->result()) return;
        const quint64 frame = item->data(Qt::UserRole).toULongLong();
        QMenu menu;
        // A file set's frame opens in the file that holds it, filtered by its number there.
        const CaptureInfo& capture = hub_->result()->capture;
        addWiresharkActions(&menu, capture, frame, frameDisplayFilter(wiresharkTarget(capture, frame).frame));
        menu.exec(evidence_->viewport()->mapToGlobal(pos));
    });
    connect(details_, &QTextBrowser::anchorClicked, this, [](const QUrl& u) { QDesktopServices::openUrl(u); });
    auto* ev_box = new QWidget;
    auto* ev_lay = new QVBoxLayout(ev_box);
    ev_lay->setContentsMargins(0, 0, 0, 0);
    ev_lay->addWidget(new QLabel(tr("Evidence frames (Wireshark numbers)")));
    ev_lay->addWidget(evidence_);

    // Side by side: the details get the pane's full height, so the fix (at
    // the top of them) shows without scrolling even in a short dock.
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(table_);
    split->addWidget(details_);
    split->addWidget(ev_box);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 5);
    split->setStretchFactor(2, 2);
    split->setSizes({460, 560, 300});
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
    groups_ = r ? groupFindings(*r) : std::vector<FindingGroup>{};
    model_->setResult(r);
    fitWidth();
    showFinding(-1);
}

void FindingsPanel::fitWidth() {
    QHeaderView* h = table_->horizontalHeader();
    int need = 2 * table_->frameWidth() + table_->verticalScrollBar()->sizeHint().width();
    for (int c = 0; c < FindingsModel::Explanation; ++c) {
        table_->resizeColumnToContents(c);   // its content or its header, the wider
        need += h->sectionSize(c);
    }
    need += h->sectionSizeHint(FindingsModel::Explanation);   // "Explanation" whole
    table_->setMinimumWidth(need);
}

void FindingsPanel::onCallSelected(quint64 id) {
    model_->setCallFilter(only_call_->isChecked() ? id : 0);
    fitWidth();
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
    if (!r || index < 0 || size_t(index) >= r->findingCount()) {
        details_->setHtml(r && r->findingCount() == 0 ? tr("<p>No findings: nothing in this capture looks like a known stall.</p>")
                                                   : tr("<p>Select a finding to see what happened and how to fix it.</p>"));
        return;
    }
    const auto found = r->finding(size_t(index));
    const Finding& f = *found;
    auto esc = [](const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); };
    // What to do first: the kind, what it cost, the fix and the toolkit's own
    // knob, and what fixing it would buy. The why and the facts follow.
    const bool stall = is_stall_kind(f.kind);
    const QString what = !stall && kind_time(f.kind) == KindTime::Server
                             ? tr("%1 of server processing (not a stall: no transport setting removes it)").arg(formatMs(f.counted_ms))
                         : f.counted_ms > 0 ? tr("%1 lost, caused by the %2").arg(formatMs(f.counted_ms), sideLabel(f.side))
                                            : tr("no time lost of its own, caused by the %1").arg(sideLabel(f.side));
    QString html = QStringLiteral("<h3 style='margin:0'>%1 <span style='font-weight:normal'>— %2</span></h3>")
                       .arg(findingKindLabel(f.kind).toHtmlEscaped(), what.toHtmlEscaped());
    if (!f.fix.empty()) html += QStringLiteral("<p style='margin:4px 0'><b>Fix:</b> %1</p>").arg(esc(f.fix));
    if (!f.toolkit_fix.empty())
        html += QStringLiteral("<p style='margin:4px 0'><b>%1:</b> %2</p>").arg(f.toolkit.empty() ? tr("Toolkit") : esc(f.toolkit), esc(f.toolkit_fix));
    for (const FindingGroup& g : groups_)
        if (g.kind == f.kind && g.side == f.side) {
            html += QStringLiteral("<p style='margin:4px 0'><b>If fixed:</b> %1 <span style='color:gray'>(%2 of this kind, %3 in all)</span></p>")
                        .arg(fixPredictionText(*r, g).toHtmlEscaped(),
                             g.findings.size() == 1 ? tr("1 finding") : tr("%1 findings").arg(g.findings.size()),
                             stall ? tr("%1 lost").arg(formatMs(g.lost_ms)) : kindTimeText(g.kind, g.lost_ms));
            break;
        }
    html += QStringLiteral("<p style='margin:4px 0'>%1</p>").arg(esc(f.explanation));
    QStringList calls;
    for (size_t i = 0; i < f.calls.size() && i < 12; ++i) calls << QString::number(f.calls[i]);
    if (f.calls.size() > 12) calls << tr("… (%1 calls)").arg(f.calls.size());
    html += QStringLiteral("<p style='margin:4px 0'><b>Connection:</b> %1 &nbsp; <b>Calls:</b> %2<br>"
                           "<span style='color:gray'>%3</span></p>")
                .arg(f.connection_id)
                .arg(calls.join(QStringLiteral(", ")),
                     f.cost_method.empty() ? QString() : (stall ? tr("Time lost is %1.") : tr("Its time is %1.")).arg(esc(f.cost_method)));
    if (!f.details.empty()) {
        html += QStringLiteral("<table cellspacing=0 cellpadding=2>");
        for (const auto& [k, v] : f.details) {
            const auto [label, value] = detailText(k, v);
            html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(label.toHtmlEscaped(), value.toHtmlEscaped());
        }
        html += QStringLiteral("</table>");
    }
    const QUrl doc = detectorDocUrl(f.kind);
    if (doc.isValid())
        html += (stall ? tr("<p><a href='%1'>About %2 stalls: how they are found and fixed</a></p>")
                       : tr("<p><a href='%1'>About %2: how it is measured</a></p>"))
                    .arg(doc.toString(), findingKindLabel(f.kind).toHtmlEscaped());
    details_->setHtml(html);
    // The segments of the finding's calls, read until every evidence frame
    // is among them (a finding on every call of a big capture is not read whole).
    std::vector<const SegmentInfo*> segs;
    std::vector<std::shared_ptr<const Call>> held;   // the calls the segments belong to
    std::set<uint64_t> missing(f.frames.begin(), f.frames.end());
    for (size_t i = 0; i < f.calls.size() && !missing.empty() && held.size() < 1024; ++i)
        if (auto c = hub_->call(f.calls[i])) {
            for (const SegmentInfo& sg : c->segments) {
                segs.push_back(&sg);
                missing.erase(sg.frame);
            }
            held.push_back(std::move(c));
        }
    for (uint64_t frame : f.frames) {
        QString text = evidenceFrameText(frame, segs);
        const QString where = hub_->result() ? frameLocationText(hub_->result()->capture, frame) : QString();
        if (!where.isEmpty()) text += QStringLiteral(" (%1)").arg(where);
        auto* item = new QListWidgetItem(text, evidence_);
        item->setData(Qt::UserRole, QVariant::fromValue<quint64>(frame));
    }
}

} // namespace stallscope::gui
