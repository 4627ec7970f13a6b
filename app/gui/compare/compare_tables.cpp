#include "app/gui/compare/compare_tables.h"

#include "analyzers/result/ms_text.h"
#include "app/gui/display_text.h"

#include <QHeaderView>
#include <QStringList>
#include <QTableWidget>

namespace stallscope::gui {

namespace {

QString ms(double v) { return QString::fromStdString(ms_number(v)); }   // as the compare report

// "Nagle / delayed ACK (client + server)", "All stalls"; "What after removed: …" first.
QString predictionLabel(const PredictionCheck& p) {
    QString what;
    if (p.kind == "all_stalls") what = QObject::tr("All stalls");
    else if (p.fixes.empty()) what = findingKindLabel(p.kind) + QStringLiteral(" (%1)").arg(QString::fromStdString(p.side));
    else if (p.kind != "combined")
        what = findingKindLabel(p.kind) + QStringLiteral(" (%1)").arg(QString::fromStdString(p.side).replace('+', QStringLiteral(" + ")));
    else
        for (const auto& [kind, side] : p.fixes)
            what += (what.isEmpty() ? QString() : QStringLiteral(" + ")) + findingKindLabel(kind) +
                    QStringLiteral(" (%1)").arg(QString::fromStdString(side));
    return p.for_after ? QObject::tr("What after removed: %1").arg(what) : what;
}

QColor outcomeColor(bool good, bool dark) {
    return good ? (dark ? QColor(0x2e, 0x6b, 0x3a) : QColor(0xd4, 0xf0, 0xd4))
                : (dark ? QColor(0x7a, 0x2a, 0x2a) : QColor(0xf8, 0xd0, 0xcc));
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
    for (int col = 0; col < cells.size(); ++col) {
        auto* item = new QTableWidgetItem(cells[col]);
        item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
        // Numbers right, words (names, verdicts) left.
        bool words = col == 0 || col == cells.size() - 1;
        item->setTextAlignment((words ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
        t->setItem(row, col, item);
    }
}

void colourRow(QTableWidget* t, int row, const QColor& c) {
    for (int col = 0; col < t->columnCount(); ++col)
        if (auto* item = t->item(row, col)) item->setBackground(c);
}

void prepare(QTableWidget* t, const QStringList& headers, int rows) {
    t->clear();
    t->setColumnCount(int(headers.size()));
    t->setRowCount(rows);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
}

QString kindSide(const KindSide& s) {
    if (s.findings == 0) return QStringLiteral("—");
    return QObject::tr("%1 on %2/%3 calls, %4 ms").arg(s.findings).arg(s.calls_affected).arg(s.calls_total).arg(ms(s.lost_ms));
}

} // namespace

void fillOperationsTable(QTableWidget* t, const Comparison& c, bool dark) {
    prepare(t, {QObject::tr("Operation"), QObject::tr("Calls b/a"), QObject::tr("Median ms b → a"),
                QObject::tr("p90 ms b → a"), QObject::tr("Change"), QObject::tr("Shift [95% CI]"), QObject::tr("p"),
                QObject::tr("Latency")},
            int(c.groups.size()) + 1);
    auto row_of = [&](int row, const GroupComparison& g) {
        bool hb = !g.before.latencies_ms.empty(), ha = !g.after.latencies_ms.empty();
        auto pair = [&](double b, double a) {
            return (hb ? ms(b) : QStringLiteral("—")) + QStringLiteral(" → ") + (ha ? ms(a) : QStringLiteral("—"));
        };
        QString change = QStringLiteral("—"), shift = QStringLiteral("—"), p = QStringLiteral("—");
        if (hb && ha) {
            change = (g.median_change_ms >= 0 ? QStringLiteral("+") : QString()) + ms(g.median_change_ms);
            if (g.before.stats.median_ms > 0) change += QStringLiteral(" (%1%)").arg(g.median_change_ratio * 100, 0, 'f', 0);
            shift = ms(g.shift.estimate) + (g.shift.has_interval
                                                ? QStringLiteral(" [%1, %2]").arg(ms(g.shift.low), ms(g.shift.high))
                                                : QObject::tr(" (too few calls)"));
            p = g.test.p_value < 0.0001 ? QStringLiteral("<0.0001") : QString::number(g.test.p_value, 'f', 4);
            p += g.test.exact ? QObject::tr(" exact") : QObject::tr(" normal");
        }
        setRow(t, row, {QString::fromStdString(g.label),
                        QStringLiteral("%1/%2").arg(g.before.latencies_ms.size()).arg(g.after.latencies_ms.size()),
                        pair(g.before.stats.median_ms, g.after.stats.median_ms),
                        pair(g.before.stats.p90_ms, g.after.stats.p90_ms), change, shift, p,
                        QString::fromLatin1(latency_change_name(g.change))});
        if (g.change == LatencyChange::Faster) colourRow(t, row, outcomeColor(true, dark));
        if (g.change == LatencyChange::Slower) colourRow(t, row, outcomeColor(false, dark));
    };
    row_of(0, c.overall);
    for (size_t i = 0; i < c.groups.size(); ++i) row_of(int(i) + 1, c.groups[i]);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
}

void fillPredictionsTable(QTableWidget* t, const Comparison& c) {
    prepare(t, {QObject::tr("Fix"), QObject::tr("Verdict"), QObject::tr("Before"), QObject::tr("Predicted"),
                QObject::tr("Measured"), QObject::tr("Error")},
            int(c.predictions.size()));
    int i = 0;
    for (const PredictionCheck& p : c.predictions) {
        QString what = predictionLabel(p);
        if (p.client_time) what += QObject::tr(" — client time from SYN");
        setRow(t, i, {what, QString::fromStdString(p.verdict), formatMs(p.before_median_ms), formatMs(p.predicted_median_ms),
                      formatMs(p.measured_median_ms),
                      (p.error_ms >= 0 ? QStringLiteral("+") : QString()) + formatMs(p.error_ms)});
        for (int col = 2; col < 6; ++col) t->item(i, col)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (p.for_after) {   // the one to read: what the after capture removed, predicted and measured
            for (int col = 0; col < 6; ++col) {
                QFont f = t->item(i, col)->font();
                f.setBold(true);
                t->item(i, col)->setFont(f);
            }
            t->item(i, 0)->setToolTip(QObject::tr("The prediction for exactly the fixes the after capture made, together"));
        }
        ++i;
    }
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
}

void fillKindsTable(QTableWidget* t, const Comparison& c, bool dark) {
    // A kind found on both sides gets a row per side below its own.
    int rows = 0;
    for (const KindComparison& k : c.kinds) rows += 1 + (k.split_by_side() ? int(k.sides.size()) : 0);
    prepare(t, {QObject::tr("Kind"), QObject::tr("Before"), QObject::tr("After"), QObject::tr("Verdict")}, rows);
    int i = 0;
    for (const KindComparison& k : c.kinds) {
        QString v = QString::fromLatin1(verdict_name(k.verdict));
        if (k.worse && k.verdict == Verdict::StillPresent) v = worseText(k);
        else if (k.grew && !k.worse && k.has_underlying && !k.underlying.higher)
            v += QObject::tr(" (not a regression: server time %1 → %2 ms)")
                     .arg(ms(k.underlying.median_before_ms), ms(k.underlying.median_after_ms));
        else if (k.grew && !k.worse)
            v += QObject::tr(" (%1 call: not a regression)").arg(k.after.calls_affected);
        setRow(t, i, {findingKindLabel(k.kind), kindSide(k.before), kindSide(k.after), v});
        t->item(i, 0)->setToolTip(QString::fromStdString(k.reason));
        t->item(i, 3)->setToolTip(QString::fromStdString(k.reason));
        if (k.verdict == Verdict::Fixed || k.verdict == Verdict::Reduced) colourRow(t, i, outcomeColor(true, dark));
        else if (k.worse) colourRow(t, i, outcomeColor(false, dark));
        ++i;
        if (!k.split_by_side()) continue;
        for (const SideVerdict& sv : k.sides) {
            setRow(t, i, {QStringLiteral("    ") + QObject::tr("%1 side").arg(QString::fromStdString(sv.side)),
                          kindSide(sv.before), kindSide(sv.after), QString::fromLatin1(verdict_name(sv.verdict))});
            if (!sv.still.empty()) t->item(i, 3)->setToolTip(QString::fromStdString(sv.still));
            if (sv.verdict == Verdict::Fixed || sv.verdict == Verdict::Reduced) colourRow(t, i, outcomeColor(true, dark));
            ++i;
        }
    }
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
}

QString worseText(const KindComparison& k) {
    if (k.has_underlying)
        return QObject::tr("worse: %1 %2 → %3 per call").arg(QString::fromStdString(k.underlying.name) == QLatin1String("server_time_ms")
                                                                   ? QObject::tr("server time") : QString::fromStdString(k.underlying.name),
                                                               formatMs(k.underlying.median_before_ms), formatMs(k.underlying.median_after_ms));
    if (k.measure == "affected_share")
        return QObject::tr("worse: on %1 % → %2 % of calls")
            .arg(100 * k.before.affected_share(), 0, 'f', 1)
            .arg(100 * k.after.affected_share(), 0, 'f', 1);
    return QObject::tr("worse: %1 → %2 lost per call").arg(formatMs(k.before.lost_per_call_ms()), formatMs(k.after.lost_per_call_ms()));
}

QString verdictSummary(const Comparison& c) {
    QStringList fixed, reduced, still, worse, added, faster, slower;
    // A kind, or each side of a kind found on both sides.
    for (const VerdictEntry& e : verdict_entries(c)) {
        QString n = findingKindLabel(e.kind);
        if (e.side) n += QStringLiteral(" (%1)").arg(QString::fromStdString(e.side->side));
        const KindComparison* k = nullptr;
        for (const KindComparison& x : c.kinds)
            if (x.kind == e.kind) k = &x;
        switch (e.verdict) {
        case Verdict::Fixed: fixed << n; break;
        case Verdict::Reduced: reduced << n; break;
        case Verdict::StillPresent: (e.worse ? worse : still) << (e.worse ? n + QStringLiteral(" (") + worseText(*k) + QLatin1Char(')') : n); break;
        case Verdict::New: added << n; break;
        case Verdict::AbsentInBoth: break;
        }
    }
    auto groups = [&](const GroupComparison& g) {
        if (g.change == LatencyChange::Faster) faster << QString::fromStdString(g.label);
        if (g.change == LatencyChange::Slower) slower << QString::fromStdString(g.label);
    };
    groups(c.overall);
    for (const auto& g : c.groups) groups(g);
    auto part = [](const QString& name, const QStringList& l) {
        return QStringLiteral("<b>%1:</b> %2").arg(name, l.isEmpty() ? QObject::tr("none") : l.join(QStringLiteral(", ")).toHtmlEscaped());
    };
    QStringList parts{part(QObject::tr("Fixed"), fixed), part(QObject::tr("Reduced"), reduced),
                       part(QObject::tr("Still present"), still)};
    if (!worse.isEmpty()) parts << part(QObject::tr("Worse"), worse);
    QString text = (parts + QStringList{part(QObject::tr("New"), added),
                       part(QObject::tr("Faster"), faster), part(QObject::tr("Slower"), slower)})
        .join(QStringLiteral(" &nbsp;·&nbsp; "));
    // After a partial fix: which side still stalls, and what it must change.
    QStringList left;
    for (const VerdictEntry& e : still_to_fix(c))
        left << (findingKindLabel(e.kind) + QStringLiteral(" (%1): ").arg(QString::fromStdString(e.side->side)) +
                 QString::fromStdString(e.side->still))
                    .toHtmlEscaped();
    if (!left.isEmpty())
        text += QStringLiteral("<br><b>%1</b> ").arg(QObject::tr("Still to fix:")) + left.join(QStringLiteral(" &nbsp;·&nbsp; "));
    return text;
}

} // namespace stallscope::gui
