// The Overview's grouped findings, the details pane at the default window
// size, words instead of keys, evidence descriptions, log-binned histogram
// and the dark theme of charts and traces. Offscreen.
#include "app/gui/calls_model.h"
#include "app/gui/calls_page.h"
#include "app/gui/display_text.h"
#include "app/gui/help_links.h"
#include "app/gui/event_trace_painter.h"
#include "app/gui/findings_groups.h"
#include "app/gui/findings_panel.h"
#include "app/gui/findings_tree_model.h"
#include "app/gui/fix_prediction.h"
#include "app/gui/latency_histogram.h"
#include "app/gui/main_window.h"
#include "app/gui/over_time_view.h"
#include "app/gui/overview_page.h"
#include "app/gui/selection_hub.h"
#include "app/gui/tests/fake_result.h"
#include "app/gui/theme.h"
#include "app/gui/wireshark_link.h"

#include <catch2/catch.hpp>

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QImage>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QTableView>
#include <QPainter>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTextBrowser>
#include <QTabWidget>
#include <QTest>
#include <QTextBlock>
#include <QTreeView>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>

using namespace stallscope;
using namespace stallscope::gui;

namespace {
// The fake result plus 40 server_time findings (one per extra call) and a
// message_size finding on every call: the shape of a big capture.
AnalysisResult crowdedResult() {
    AnalysisResult r = test::makeResult();
    const size_t base = r.calls.size();
    for (uint64_t i = 0; i < 40; ++i) {
        Call c = r.calls[0];
        c.id = base + 1 + i;
        c.latency_ms = 12;
        r.calls.push_back(c);
        Finding f;
        f.kind = "server_time";
        f.side = Side::Server;
        f.calls = {c.id};
        f.cost_ms = 2 + double(i % 3);
        f.counted_ms = f.cost_ms;
        f.fix = "make the server faster";
        r.findings.push_back(f);
    }
    for (const Call& c : r.calls) {
        Finding f;
        f.kind = "message_size";
        f.side = Side::Client;
        f.calls = {c.id};
        r.findings.push_back(f);
    }
    return r;
}
} // namespace

TEST_CASE("Findings group by kind and side, ranked by time lost, every-call kinds said once") {
    const LoadedResult r(crowdedResult());
    const auto groups = groupFindings(r);
    REQUIRE(groups.size() == 5);
    // Stalls (time lost) first, by time lost; then server processing and
    // notes, never a Warning: server_time's 119 ms is where the time went,
    // not time lost, and ranks after Nagle's 40 ms (issue 27).
    CHECK(groups[0].kind == "nagle_delayed_ack");
    CHECK(groups[0].stall);
    CHECK(groups[2].kind == "server_time");
    CHECK_FALSE(groups[2].stall);
    CHECK(groups[2].severity == Severity::Info);
    CHECK(groups[2].findings.size() == 40);
    CHECK(groups[2].lost_ms == Approx(14 * 2 + 13 * 3 + 13 * 4));
    CHECK(r.findings[groups[2].findings.front()].counted_ms == 4);   // most time first inside a group
    CHECK(groups.back().kind == "message_size");
    CHECK(groups.back().every_call);
    CHECK(groups.back().severity == Severity::Info);
    CHECK_FALSE(groups[2].every_call);
    for (size_t i = 1; i < groups.size(); ++i) {
        CHECK((groups[i - 1].stall || !groups[i].stall));   // no stall after a non-stall
        if (groups[i - 1].stall == groups[i].stall) CHECK(groups[i - 1].lost_ms >= groups[i].lost_ms);
    }

    FindingsTreeModel m;
    m.setResult(std::make_shared<const LoadedResult>(crowdedResult()));
    REQUIRE(m.rowCount() == 5);
    const QModelIndex top = m.index(2, 0);
    CHECK(m.rowCount(top) == 40);
    CHECK(m.data(m.index(2, FindingsTreeModel::Count), Qt::DisplayRole).toString() == "40");
    CHECK(m.data(m.index(2, FindingsTreeModel::Kind), Qt::DisplayRole).toString() == "Server time (server)");
    CHECK(m.data(m.index(2, FindingsTreeModel::Severity), Qt::DisplayRole).toString() == "Info");
    CHECK(m.data(m.index(2, FindingsTreeModel::Lost), Qt::DisplayRole).toString() == "119 ms server processing");
    CHECK(m.data(m.index(0, FindingsTreeModel::Lost), Qt::DisplayRole).toString() == "40.0 ms");
    CHECK(m.data(m.index(4, FindingsTreeModel::Calls), Qt::DisplayRole).toString().startsWith("every call"));
    CHECK(m.data(m.index(2, FindingsTreeModel::Fix), Qt::DisplayRole).toString() == "make the server faster");
    const QModelIndex child = m.index(3, FindingsTreeModel::Lost, top);
    REQUIRE(child.isValid());
    CHECK(m.parent(child) == top);
    CHECK(m.rowCount(child) == 0);
    const int fi = child.data(FindingsTreeModel::FindingIndexRole).toInt();
    CHECK(m.indexOfFinding(fi).row() == 3);
    CHECK(m.indexOfFinding(fi).parent() == top);
}

TEST_CASE("Finding details read as words, evidence frames say what they are") {
    CHECK(detailText("held_segment", "312 B body").first == "Held segment");
    CHECK(detailText("ack_delay_ms", "40.1") == std::pair<QString, QString>("ACK delay", "40.1 ms"));
    CHECK(detailText("some_new_key", "x").first == "Some new key");
    CHECK(detailText("tls_handshake_ms", "69.6") == std::pair<QString, QString>("TLS handshake", "69.6 ms"));
    CHECK(detailText("wait_ms", "n/a") == std::pair<QString, QString>("Wait", "n/a"));

    SegmentInfo data, ack;
    data.frame = 24;
    data.ts_ns = 1'000'000'000;
    data.from = Side::Server;
    data.len = 312;
    data.carries = carries::kResponseBody;
    data.acked_frame = 25;
    data.acked_ns = data.ts_ns + 46'000'000;
    ack.frame = 25;
    ack.ts_ns = data.acked_ns;
    ack.from = Side::Client;
    const std::vector<const SegmentInfo*> segs{&data, &ack};
    CHECK(evidenceFrameText(25, segs) == "#25 ACK from client, 46.0 ms after #24");
    CHECK(evidenceFrameText(24, segs) == "#24 response body (312 B) from server, ACKed 46.0 ms later by #25");
    CHECK(evidenceFrameText(99, segs) == "#99");
}

// The main window at the default size with the fake result loaded.
static void loadFake(MainWindow& w) {
    w.resize(1360, 860);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openFile("fake:ok");
    REQUIRE(loaded.wait(10000));
    QApplication::processEvents();
}

TEST_CASE("The fix is visible without scrolling at 1360x860") {
    MainWindow w(test::fakeBackend());
    loadFake(w);
    QTextBrowser* d = w.findingsPanel()->details();
    REQUIRE(d->isVisible());
    const QString text = d->toPlainText();
    REQUIRE(text.contains("Fix: fix it"));
    REQUIRE(text.contains("kit.setting=1"));
    CHECK(text.contains("If fixed:"));
    CHECK(text.indexOf("Fix:") < text.indexOf("nagle_delayed_ack explained"));   // the fix comes first
    CHECK(text.contains("40.0 ms lost"));                                         // beside its cost
    // The toolkit line (after the fix) lies inside the visible part of the pane.
    QTextDocument* doc = d->document();
    const QTextBlock kit = doc->find(QStringLiteral("kit.setting=1")).block();
    REQUIRE(kit.isValid());
    const QRectF box = doc->documentLayout()->blockBoundingRect(kit);
    CHECK(d->verticalScrollBar()->value() == 0);
    CHECK(box.bottom() <= d->viewport()->height());
    CHECK(d->viewport()->height() >= 120);
    // Evidence frames are described, not "Frame 21".
    QListWidget* ev = w.findingsPanel()->evidence();
    REQUIRE(ev->count() == 2);
    CHECK(ev->item(0)->text().startsWith("#21 data (100 B) from client"));
    CHECK(ev->item(0)->text().contains("#21"));
}

TEST_CASE("Overview histogram uses log bins") {
    const auto bins = logLatencyHistogram({0.2, 0.3, 1.0, 45, 200, 1000}, 4);
    REQUIRE(!bins.empty());
    uint64_t n = 0;
    for (size_t i = 0; i < bins.size(); ++i) {
        n += bins[i].count;
        CHECK(bins[i].hi_ms / bins[i].lo_ms == Approx(std::pow(10.0, 0.25)));
        if (i) CHECK(bins[i].lo_ms == Approx(bins[i - 1].hi_ms));
    }
    CHECK(n == 6);
    CHECK(bins.front().lo_ms <= 0.2);
    CHECK(bins.back().hi_ms > 1000);
    CHECK(bins.size() <= 4 * 4 + 1);   // 0.2 .. 1000 ms: under four decades
    CHECK(logLatencyHistogram({}, 4).empty());
    // Ticks: the decade edges only (a small chart elides a label per bin to "…").
    const auto ticks = logHistogramTickLabels(bins, 4);
    REQUIRE(ticks.size() == bins.size());
    std::vector<std::string> shown;
    for (const auto& t : ticks)
        if (!t.empty()) shown.push_back(t);
    CHECK(shown == std::vector<std::string>{"0.18", "1", "10", "100", "1000"});  // 0.18: the first edge, 3 bins before 1
    // Within one decade: the first bin says where the axis starts.
    const auto narrow = logHistogramTickLabels(logLatencyHistogram({0.25, 0.3, 0.9}, 4), 4);
    REQUIRE(!narrow.empty());
    CHECK(narrow.front() == "0.18");
    // One bin (every call as fast as the others): it is labelled too.
    CHECK(logHistogramTickLabels(logLatencyHistogram({0.32, 0.32}, 4), 4) == std::vector<std::string>{"0.32"});
}

TEST_CASE("Dark theme: the histogram and the event trace follow the palette") {
    MainWindow w(test::fakeBackend());
    loadFake(w);
    w.setTheme(Theme::Dark);
    QApplication::processEvents();
    REQUIRE(isDarkPalette());
    QChart* chart = w.overviewPage()->chart();
    CHECK(chart->backgroundBrush().color().lightness() < 100);
    CHECK(chart->titleBrush().color().lightness() > 150);
    REQUIRE(!chart->axes().isEmpty());
    for (QAbstractAxis* a : chart->axes()) {
        CHECK(a->labelsBrush().color().lightness() > 150);
        CHECK(a->titleBrush().color().lightness() > 150);
    }
    // The trace: dark paper, light ink.
    EventTraceLayout l;
    l.width = 200;
    l.height = 100;
    l.client_x = 40;
    l.server_x = 160;
    l.top = 30;
    QImage img(200, 100, QImage::Format_ARGB32);
    {
        QPainter p(&img);
        paintEventTrace(p, l, {true, 0});
    }
    CHECK(QColor(img.pixel(190, 95)).lightness() < 60);
    {
        QPainter p(&img);
        paintEventTrace(p, l, {false, 0});
    }
    CHECK(QColor(img.pixel(190, 95)).lightness() > 240);
    w.setTheme(Theme::Light);
    QApplication::processEvents();
    CHECK(chart->backgroundBrush().color().lightness() > 200);
}

TEST_CASE("Wireshark display filters and the Open action") {
    CHECK(callDisplayFilter(12) == "stallscope.call == 12");
    CHECK(frameDisplayFilter(25) == "frame.number == 25");
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", "/nonexistent");
    CHECK(wiresharkExecutable().isEmpty());
    CHECK_FALSE(openInWireshark("/tmp/x.pcap", 3));
    qputenv("PATH", path);
}

TEST_CASE("Over time: latencies at capture time, per-interval stalls, zoom, hover and click") {
    const LoadedResult r(test::makeResult());
    const OverTimeSeries s = OverTimeSeries::build(r);
    REQUIRE(s.points.size() == 5);   // complete calls only
    CHECK(s.points.front().call_id == 1);
    CHECK(s.points[1].stalled);      // call 2: Nagle
    CHECK_FALSE(s.points[0].stalled);
    CHECK(s.min_ms == Approx(1));
    CHECK(s.max_ms == Approx(45));
    // One bucket over everything: 6 calls, 2 stalls, 42 ms lost (the split
    // write is a note: no time lost of its own, whatever the fixture says).
    const auto all = s.buckets(0, double(s.end_ns - s.origin_ns) + 1, double(s.end_ns - s.origin_ns) + 1);
    REQUIRE(all.size() == 1);
    CHECK(all[0].calls == 6);
    CHECK(all[0].stalls == 2);
    CHECK(all[0].lost_ms == Approx(42));
    // 100 ms buckets: one call starts in each of the first six.
    const auto per100 = s.buckets(0, 700e6, 100e6);
    REQUIRE(per100.size() == 7);
    for (int i = 0; i < 6; ++i) CHECK(per100[size_t(i)].calls == 1);
    CHECK(per100[1].stalls == 1);
    CHECK(per100[1].lost_ms == Approx(40));

    MainWindow w(test::fakeBackend());
    loadFake(w);
    w.pages()->setCurrentWidget(w.overTime());
    QApplication::processEvents();
    OverTimeView* v = w.overTime();
    REQUIRE(v->series().points.size() == 5);
    const auto p2 = v->pointOf(2), p1 = v->pointOf(1);
    REQUIRE(p2);
    REQUIRE(p1);
    CHECK(p2->y() < p1->y());   // 45 ms is higher than 1 ms on the log axis
    CHECK(v->scatterRect().contains(*p2));
    // Call 1 takes exactly 1 ms, a decade line: its dot is inside the plot, not on its border.
    CHECK(p1->y() < v->scatterRect().bottom() - 3);
    CHECK(p2->y() > v->scatterRect().top() + 3);
    CHECK(v->callAt(*p2) == std::optional<uint64_t>(2));
    CHECK_FALSE(v->callAt(*p2 + QPointF(0, 40)).has_value());
    // Clicking a dot selects the call; double-clicking opens it, as on the timeline (zoom_gestures.h).
    QSignalSpy opened(v, &OverTimeView::callActivated);
    QTest::mouseClick(v, Qt::LeftButton, {}, p1->toPoint());
    CHECK(w.hub()->selectedCall() == 1);
    CHECK(opened.count() == 0);
    w.hub()->selectCall(2);
    QTest::mouseDClick(v, Qt::LeftButton, {}, p1->toPoint());
    REQUIRE(opened.count() == 1);
    CHECK(w.hub()->selectedCall() == 1);
    // Zooming in narrows the span and the interval.
    const double span = v->axis().viewSpan(), interval = v->intervalNs();
    v->zoomIn();
    v->zoomIn();
    CHECK(v->axis().viewSpan() < span / 2);
    CHECK(v->intervalNs() <= interval);
    v->fitAll();
    CHECK(v->axis().viewSpan() == Approx(span));
    QImage img(v->size(), QImage::Format_ARGB32);
    v->render(&img);   // paints without crashing, at any zoom
}

TEST_CASE("Calls table fits long ids and start times, Help reaches the docs") {
    AnalysisResult r = test::makeResult();
    Call last = r.calls.back();
    for (uint64_t i = 0; i < 3000; ++i) {   // more rows than resizeColumnsToContents samples
        last.id = 7 + i;
        r.calls.push_back(last);
    }
    last.id = 1323456;
    last.start_ns = r.capture.first_ns + 160'480'123'000;
    last.end_ns = last.start_ns + 5'000'000;
    r.calls.push_back(last);
    SelectionHub hub;
    CallsPage page(&hub);
    page.resize(1300, 500);
    hub.setResult(std::make_shared<const LoadedResult>(r));
    const QTableView* t = page.table();
    const QFontMetrics fm(t->font());
    for (int col : {int(CallsModel::Id), int(CallsModel::Start)}) {
        const QString widest = page.model()->index(page.model()->rowCount() - 1, col).data().toString();
        INFO(widest.toStdString());
        CHECK(t->columnWidth(col) >= fm.horizontalAdvance(widest) + 8);
    }

    // Detector pages and the docs are found from the source tree.
    CHECK_FALSE(docsDir().isEmpty());
    CHECK(detectorDocUrl("nagle_delayed_ack").isValid());
    CHECK(detectorDocUrl("connection_per_call").isValid());   // an older name of connection_setup
    CHECK_FALSE(detectorDocUrl("no_such_kind").isValid());
    CHECK(shortcutsHtml().contains("Ctrl+O"));
    MainWindow w(test::fakeBackend());
    QMenu* help = nullptr;
    for (QAction* a : w.menuBar()->actions())
        if (a->text().remove('&') == "Help") help = a->menu();
    REQUIRE(help);
    QStringList names;
    for (QAction* a : help->actions()) names << a->text().remove('&');
    CHECK(names.contains("Documentation"));
    CHECK(docUrl(QStringLiteral("gui.md")).isValid());   // what F1 opens: the app's page, not cli.md
    for (QAction* a : help->actions())
        if (a->text().remove('&') == "Documentation") CHECK(a->shortcut() == QKeySequence(QKeySequence::HelpContents));
    CHECK(names.contains("Detectors"));
    CHECK(names.contains("Keyboard Shortcuts"));
    CHECK(names.contains("About StallScope"));
}

namespace {
void addWhatIf(SummaryGroup& g, const char* kind, const char* side, double median, double p90) {
    g.what_if.emplace_back();
    g.what_if.back().kind = kind;
    g.what_if.back().side = side;
    g.what_if.back().predicted_median_ms = median;
    g.what_if.back().predicted_p90_ms = p90;
    g.what_if.back().calls = 1;
}
} // namespace

TEST_CASE("If fixed: the summary's per-fix prediction beside the fix, or a dash when there is none") {
    AnalysisResult r = test::makeResult();
    addWhatIf(r.summary.overall, "nagle_delayed_ack", "client", 4.5, 6);
    const auto groups = groupFindings(LoadedResult(r));
    REQUIRE(groups.front().kind == "nagle_delayed_ack");
    CHECK(fixPredictionText(r, groups.front()) == "median 4.00 ms → 4.50 ms");
    CHECK(fixPredictionToolTip(r, groups.front()).contains("p90 45.0 ms → 6.00 ms"));
    // A fix the summary has no entry for says so.
    CHECK(fixPredictionText(r, groups.back()) == "—");
    CHECK(fixPredictionToolTip(r, groups.back()).contains("no prediction"));
}
