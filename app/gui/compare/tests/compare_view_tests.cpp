// The Compare view on real captures through the real core (offscreen): the
// tables hold the comparison, the charts bin both sides, and the traces show
// the matched calls of the selected operation.
#include "analyzers/compare/compare_report.h"
#include "app/gui/compare/compare_charts.h"
#include "app/gui/compare/compare_tables.h"
#include "app/gui/compare/compare_window.h"
#include "app/gui/display_text.h"
#include "app/gui/event_trace_view.h"
#include "app/gui/main_window.h"
#include "app/gui/theme.h"
#include "app/gui/timeline_widget.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QTemporaryDir>
#include <QHeaderView>
#include <QTableWidget>
#include <QTest>
#include <QtCharts/QChart>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QChartView>
#include <QtCharts/QBarSet>
#include <QtCharts/QBarSeries>
#include <memory>
#include <QMenuBar>
#include <QPointer>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>

using namespace stallscope;
using namespace stallscope::gui;

namespace {
QString testdata(const char* name) { return QStringLiteral(STALLSCOPE_TESTDATA_DIR "/") + QLatin1String(name); }

// Shows the window at `size` and compares two test captures; true once both are analysed.
bool showPair(CompareWindow& w, QSize size, const char* before, const char* after) {
    w.resize(size);
    w.show();
    QSignalSpy loaded(&w, &CompareWindow::loaded);
    w.load(testdata(before), testdata(after));
    return loaded.wait(30000) && loaded.first().first().toBool();
}

} // namespace

TEST_CASE("shared log bins cover both sides and count every call") {
    SharedLogBins b = sharedLogBins({45, 47, 44}, {0.08, 0.1, 0.12, 2000});
    REQUIRE(b.edges.size() >= 2);
    CHECK(b.edges.front() <= 0.08);
    CHECK(b.edges.back() > 2000);
    uint64_t nb = 0, na = 0;
    for (auto x : b.before) nb += x;
    for (auto x : b.after) na += x;
    CHECK(nb == 3);
    CHECK(na == 4);
    for (size_t i = 0; i + 1 < b.edges.size(); ++i) CHECK(b.edges[i] < b.edges[i + 1]);
    // 4 bins per decade: 0.08 .. 2000 spans about 4.4 decades.
    CHECK(b.before.size() >= 17);
    CHECK(b.before.size() <= 20);
    SharedLogBins empty = sharedLogBins({}, {});
    CHECK(empty.before.size() == 1);
    CHECK(empty.before[0] == 0);
}

TEST_CASE("the Compare view shows a Nagle fix: tables, charts, timelines, matched traces") {
    GuiBackend backend = core_backend();
    CompareWindow w(backend);
    REQUIRE(showPair(w, QSize(1400, 900), "refsvc-apache-soap.pcap", "refsvc-apache-soap-fixed.pcap"));

    const Comparison& c = w.comparison();
    // The answer first: the verdict sentence, whole and visible at 1400x900.
    auto* answer = w.findChild<QLabel*>(QStringLiteral("compareAnswer"));
    REQUIRE(answer);
    CHECK(answer->text() == QString::fromStdString(compare_verdict_sentence(c)));
    CHECK(answer->text().startsWith(QStringLiteral("Faster: median ")));
    CHECK(answer->isVisible());
    CHECK(answer->geometry().top() < 40);
    CHECK(answer->height() >= answer->heightForWidth(answer->width()));
    // Markdown export, its first line the same sentence.
    QTemporaryDir md_dir;
    QString md_error;
    REQUIRE(w.exportTo(md_dir.filePath(QStringLiteral("c.md")), &md_error));
    QFile md(md_dir.filePath(QStringLiteral("c.md")));
    REQUIRE(md.open(QIODevice::ReadOnly));
    CHECK(QString::fromUtf8(md.readLine()).trimmed() == QStringLiteral("**%1**").arg(answer->text()));
    CHECK(w.operationsTable()->rowCount() == int(c.groups.size()) + 1);
    CHECK(w.operationsTable()->item(0, 0)->text() == QStringLiteral("(all calls)"));
    CHECK(w.kindsTable()->rowCount() == int(c.kinds.size()));
    bool nagle_fixed = false;
    for (int r = 0; r < w.kindsTable()->rowCount(); ++r)
        if (w.kindsTable()->item(r, 0)->text() == QStringLiteral("Nagle / delayed ACK"))   // the name used elsewhere
            nagle_fixed = w.kindsTable()->item(r, 3)->text() == QStringLiteral("fixed");
    CHECK(nagle_fixed);
    // Each fix made, in columns: predicted, measured and their error, as the CLI's prediction lines.
    REQUIRE_FALSE(c.predictions.empty());
    QTableWidget* preds = w.predictionsTable();
    REQUIRE(preds->rowCount() == int(c.predictions.size()));
    REQUIRE(preds->columnCount() == 6);
    CHECK(preds->horizontalHeaderItem(3)->text() == QStringLiteral("Predicted"));
    CHECK(preds->horizontalHeaderItem(4)->text() == QStringLiteral("Measured"));
    CHECK(preds->horizontalHeaderItem(5)->text() == QStringLiteral("Error"));
    for (int r = 0; r < preds->rowCount(); ++r) {
        const PredictionCheck& p = c.predictions[size_t(r)];
        CHECK(preds->item(r, 3)->text() == formatMs(p.predicted_median_ms));
        CHECK(preds->item(r, 4)->text() == formatMs(p.measured_median_ms));
        CHECK(preds->item(r, 5)->text().endsWith(formatMs(std::abs(p.error_ms))));
    }

    // The selected group's matched pair is in both traces, and both timelines hold their capture.
    auto [b, a] = w.shownPair();
    CHECK(b != 0);
    CHECK(a != 0);
    CHECK_FALSE(w.trace(0)->canvas()->trace().arrows.empty());
    CHECK_FALSE(w.trace(1)->canvas()->trace().arrows.empty());
    CHECK(w.timeline(0)->rows().rows.size() == size_t(c.before.calls));
    CHECK(w.timeline(1)->rows().rows.size() == size_t(c.after.calls));

    // Another pair of the same group replaces the traces.
    const GroupComparison& g = w.selectedGroup() == 0 ? c.overall : c.groups[size_t(w.selectedGroup()) - 1];
    REQUIRE(g.pairs.size() >= 2);
    w.selectPair(0);
    CHECK(w.shownPair() == g.pairs[0]);
    w.selectPair(1);
    CHECK(w.shownPair() == g.pairs[1]);

    // Selecting "all calls" keeps working.
    w.selectGroup(0);
    CHECK(w.selectedGroup() == 0);
    w.tabs()->setCurrentIndex(1);
    QImage shot = w.grab().toImage();
    CHECK(shot.width() > 0);

    // Side by side: one time axis for both timelines; both traces fit their width.
    QApplication::processEvents();
    CHECK(w.timeline(0)->axis().dataSpan() == Approx(w.timeline(1)->axis().dataSpan()));
    CHECK(w.timeline(0)->axis().viewSpan() == Approx(w.timeline(1)->axis().viewSpan()).epsilon(0.02));
    for (int s = 0; s < 2; ++s) {
        const EventTraceCanvas* cv = w.trace(s)->canvas();
        CHECK(cv->trace().width * cv->zoom() <= w.trace(s)->viewport()->width() + 1);
    }

    // Export: the view as PNG and SVG, the report as text and JSON.
    QTemporaryDir dir;
    QString err;
    for (const char* name : {"v.png", "v.svg", "r.txt", "r.json"}) {
        CHECK(w.exportTo(dir.filePath(name), &err));
        CHECK(QFileInfo(dir.filePath(name)).size() > 100);
    }
    CHECK_FALSE(w.exportTo(dir.filePath("v.bmp"), &err));
    CHECK(err.contains("png"));
    QFile json(dir.filePath("r.json"));
    REQUIRE(json.open(QIODevice::ReadOnly));
    CHECK(json.readAll().contains("nagle_delayed_ack"));

    // Esc closes the window.
    w.activateWindow();
    QTest::keyClick(&w, Qt::Key_Escape);
    CHECK_FALSE(w.isVisible());
}

TEST_CASE("Compare: chart titles are plain text, a worse kind says so with numbers") {
    GroupComparison g;
    g.label = "echoString [<1 KiB]";
    g.before.latencies_ms = {1, 2, 3};
    g.after.latencies_ms = {1, 2};
    std::unique_ptr<QChart> chart(makeDistributionChart(g, false));
    CHECK(chart->title().contains("&lt;1 KiB]"));   // escaped: shown as typed, not parsed as a tag

    KindComparison k;
    k.kind = "server_time";
    k.verdict = Verdict::StillPresent;
    k.worse = true;
    k.has_underlying = true;
    k.underlying.name = "server_time_ms";
    k.underlying.median_before_ms = 10.0;
    k.underlying.median_after_ms = 19.9;
    CHECK(worseText(k) == "worse: server time 10.0 ms → 19.9 ms per call");
    k.has_underlying = false;
    k.measure = "lost_per_call_ms";
    k.before = {4, 4, 10, 40};
    k.after = {8, 8, 10, 90};
    CHECK(worseText(k) == "worse: 4.00 ms → 9.00 ms lost per call");
    Comparison c;
    c.kinds.push_back(k);
    CHECK(verdictSummary(c).contains("Worse:</b> Server time (worse: 4.00 ms"));
}

TEST_CASE("the Compare view reports a capture that cannot be read") {
    CompareWindow w(core_backend());
    QSignalSpy loaded(&w, &CompareWindow::loaded);
    w.load(testdata("no-such-file.pcap"), testdata("refsvc-gsoap.pcap"));
    REQUIRE(loaded.wait(30000));
    CHECK_FALSE(loaded.first().first().toBool());
    CHECK(w.lastError().contains(QStringLiteral("no-such-file.pcap")));
}

TEST_CASE("the main window offers File > Compare Captures") {
    MainWindow w(core_backend());
    QAction* found = nullptr;
    for (QAction* menu : w.menuBar()->actions()) {
        if (!menu->menu()) continue;
        for (QAction* a : menu->menu()->actions())
            if (a->text().remove(QLatin1Char('&')).startsWith(QStringLiteral("Compare Captures"))) found = a;
    }
    REQUIRE(found != nullptr);
    CHECK(found->isEnabled());  // no capture needs to be open first
}

TEST_CASE("the Compare view names the side a partial fix left stalling") {
    GuiBackend backend = core_backend();
    CompareWindow w(backend);
    QSignalSpy loaded(&w, &CompareWindow::loaded);
    // TCP_NODELAY on the client only: the server's Nagle holds remain.
    w.load(testdata("refsvc-xsoap.pcap"), testdata("refsvc-xsoap-client-nodelay.pcap"));
    REQUIRE(loaded.wait(30000));
    REQUIRE(loaded.first().first().toBool());
    const Comparison& c = w.comparison();
    QTableWidget* t = w.kindsTable();
    CHECK(t->rowCount() > int(c.kinds.size()));  // side rows below the split kind
    int nagle = -1;
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == QStringLiteral("Nagle / delayed ACK")) nagle = r;
    REQUIRE(nagle >= 0);
    REQUIRE(nagle + 2 < t->rowCount());
    CHECK(t->item(nagle + 1, 0)->text().trimmed() == QStringLiteral("client side"));
    CHECK(t->item(nagle + 1, 3)->text() == QStringLiteral("fixed"));
    CHECK(t->item(nagle + 2, 0)->text().trimmed() == QStringLiteral("server side"));
    CHECK(t->item(nagle + 2, 3)->text() == QStringLiteral("still present"));
    CHECK(t->item(nagle + 2, 3)->toolTip().contains(QStringLiteral("TCP_NODELAY on the server")));
    QString v = verdictSummary(c);
    CHECK(v.contains(QStringLiteral("<b>Fixed:</b> Nagle / delayed ACK (client)")));
    CHECK(v.contains(QStringLiteral("Still to fix:")));
    CHECK(v.contains(QStringLiteral("the server still holds its response")));
}

TEST_CASE("Compare: Ctrl+W and Esc close it, its title names the app once") {
    for (auto key : {QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence(Qt::Key_Escape)}) {
        auto* w = new CompareWindow(core_backend());
        QPointer<CompareWindow> alive(w);
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->show();
        QApplication::setActiveWindow(w);
        QTest::qWaitForWindowActive(w);
        CHECK(w->windowTitle().count(QStringLiteral("StallScope")) == 0);   // Qt adds the display name once
        QTest::keySequence(w, key);
        for (int i = 0; i < 50 && alive && alive->isVisible(); ++i) QTest::qWait(20);
        CHECK((alive.isNull() || !alive->isVisible()));
        delete alive.data();
    }
}

TEST_CASE("Compare: one colour per capture in every chart, dark theme too") {
    applyTheme(Theme::Dark);
    REQUIRE(isDarkPalette());
    CompareWindow w(core_backend());
    w.resize(1400, 900);
    w.show();
    QSignalSpy loaded(&w, &CompareWindow::loaded);
    w.load(testdata("refsvc-apache-soap.pcap"), testdata("refsvc-apache-soap-fixed.pcap"));
    REQUIRE(loaded.wait(30000));
    int series = 0;
    for (QChartView* v : w.findChildren<QChartView*>())
        for (QAbstractSeries* s : v->chart()->series()) {
            if (auto* bars = qobject_cast<QBarSeries*>(s)) {
                REQUIRE(bars->barSets().size() == 2);
                CHECK(bars->barSets()[0]->color() == captureColor(0, true));
                CHECK(bars->barSets()[1]->color() == captureColor(1, true));
                ++series;
            } else if (auto* dots = qobject_cast<QScatterSeries*>(s)) {
                CHECK(dots->color() == captureColor(s->name().contains(QStringLiteral("after")) ? 1 : 0, true));
                ++series;
            }
        }
    CHECK(series == 3);   // the histogram's bars and both captures' dots
    applyTheme(Theme::Light);
}

TEST_CASE("the Compare view leads its predictions with what after removed: Nagle fixed on both sides, together") {
    GuiBackend backend = core_backend();
    CompareWindow w(backend);
    REQUIRE(showPair(w, QSize(1360, 860), "refsvc-xsoap.pcap", "refsvc-xsoap-nodelay.pcap"));
    const Comparison& c = w.comparison();
    REQUIRE_FALSE(c.predictions.empty());
    REQUIRE(c.predictions.front().for_after);
    QTableWidget* preds = w.predictionsTable();
    REQUIRE(preds->rowCount() == int(c.predictions.size()));
    CHECK(preds->item(0, 0)->text() == QStringLiteral("What after removed: Nagle / delayed ACK (client + server)"));
    CHECK(preds->item(0, 0)->font().bold());
    CHECK(preds->item(0, 3)->text() == formatMs(c.predictions.front().predicted_median_ms));
    CHECK(preds->item(0, 4)->text() == formatMs(c.predictions.front().measured_median_ms));
    CHECK_FALSE(preds->item(1, 0)->font().bold());
    CHECK(preds->isVisible());
    // At 1360x860 every table header is whole (the operations table's Latency column was cut).
    for (QHeaderView* h : w.findChildren<QHeaderView*>()) {
        if (h->orientation() != Qt::Horizontal || !h->isVisible()) continue;
        for (int col = 0; col < h->count(); ++col) {
            INFO("column '" << h->model()->headerData(col, Qt::Horizontal).toString().toStdString() << "'");
            CHECK(h->sectionSize(col) >= h->sectionSizeHint(col));
            CHECK(h->sectionViewportPosition(col) + h->sectionSizeHint(col) <= h->viewport()->width());
        }
    }
}
