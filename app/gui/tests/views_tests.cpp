// Models, selection and the main window on a hand-made result, offscreen.
#include "app/gui/analysis_runner.h"
#include "app/gui/calls_filter_model.h"
#include "app/gui/calls_model.h"
#include "app/gui/calls_page.h"
#include "app/gui/event_trace_view.h"
#include "app/gui/findings_model.h"
#include "app/gui/findings_panel.h"
#include "app/gui/load_bar.h"
#include "app/gui/main_window.h"
#include "app/gui/overview_page.h"
#include "app/gui/selection_hub.h"
#include "app/gui/tests/fake_result.h"
#include "app/gui/timeline_widget.h"
#include "app/gui/zoom_gestures.h"

#include <catch2/catch.hpp>

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QTest>
#include <QToolButton>
#include <QWheelEvent>
#include <algorithm>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>

using namespace stallscope;
using namespace stallscope::gui;

static ResultPtr fakeResult() { return std::make_shared<const LoadedResult>(test::makeResult()); }

static std::vector<quint64> proxyIds(const CallsFilterModel& p) {
    std::vector<quint64> ids;
    for (int r = 0; r < p.rowCount(); ++r) ids.push_back(p.data(p.index(r, 0), CallsModel::CallIdRole).toULongLong());
    std::sort(ids.begin(), ids.end());
    return ids;
}

TEST_CASE("CallsModel has one row per call and sortable raw values") {
    CallsModel m;
    CHECK(m.rowCount() == 0);
    const ResultPtr r = fakeResult();
    m.setResult(r);
    REQUIRE(m.rowCount() == int(r->calls.size()));
    CHECK(m.columnCount() == CallsModel::ColumnCount);
    CHECK(m.data(m.index(1, CallsModel::Operation), Qt::DisplayRole).toString() == "GetQuote");
    CHECK(m.data(m.index(1, CallsModel::Latency), CallsModel::SortRole).toDouble() == Approx(45));
    CHECK(m.data(m.index(2, CallsModel::Latency), Qt::DisplayRole).toString() == "incomplete");
    CHECK(m.data(m.index(5, CallsModel::Status), Qt::DisplayRole).toString() == "500 fault");
    CHECK(m.data(m.index(1, CallsModel::Findings), Qt::DisplayRole).toString().contains("Nagle"));
    // Time lost is the call ledger's stall part of each call's partition,
    // not a sum of finding costs: without a partition, nothing.
    CHECK(m.timeLostMs(1) == 0.0);
    AnalysisResult ledger = test::makeResult();
    ledger.calls[1].attribution = {{"request_transfer", 1}, {"server", 4}, {"nagle_delayed_ack", 40}};
    ledger.calls[4].attribution = {{"server", 3}, {"expect_100_wait", 0.5}, {"nagle_delayed_ack", 0.5}};
    m.setResult(std::make_shared<const LoadedResult>(ledger));
    CHECK(m.timeLostMs(4) == Approx(1.0));
    CHECK(m.timeLostMs(1) == Approx(40.0));
    CHECK(m.rowOfCall(4) == 3);
    CHECK(m.rowOfCall(99) == -1);
    CHECK(m.allFindingKinds().size() == 3);
}

TEST_CASE("CallsFilterModel filters by operation, connection, status, latency and kind") {
    CallsModel m;
    m.setResult(fakeResult());
    CallsFilterModel p;
    p.setCallsModel(&m);
    CHECK(p.rowCount() == 6);

    CallFilter f;
    f.operation = "quote";
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{1, 2});
    f = {};
    f.connection = 3;
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{5, 6});
    f = {};
    f.status = StatusFilter::Fault;
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{6});
    f.status = StatusFilter::Incomplete;
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{3});
    f = {};
    f.min_latency_ms = 4;
    f.max_latency_ms = 10;
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{4, 5, 6});
    f = {};
    f.finding_kind = "split_write";
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{4});
    f.finding_kind = "none";
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{1, 3});
    f.finding_kind = "any";
    f.connection = 3;   // criteria combine
    p.setFilter(f);
    CHECK(proxyIds(p) == std::vector<quint64>{5, 6});

    p.setFilter({});
    p.sort(CallsModel::Latency, Qt::DescendingOrder);
    CHECK(p.data(p.index(0, 0), CallsModel::CallIdRole).toULongLong() == 2);   // 45 ms is the slowest
}

TEST_CASE("FindingsModel ranks by time lost and filters by call") {
    FindingsModel m;
    m.setResult(fakeResult());
    REQUIRE(m.rowCount() == 3);
    CHECK(m.data(m.index(0, FindingsModel::Kind), Qt::DisplayRole).toString().contains("Nagle"));
    CHECK(m.findingIndex(0) == 1);   // Nagle, 40 ms lost
    CHECK(m.findingIndex(1) == 2);   // a stall of 2 ms ranks before ...
    CHECK(m.findingIndex(2) == 0);   // ... a split write (a note, not time lost)
    m.setCallFilter(6);
    REQUIRE(m.rowCount() == 1);
    CHECK(m.findingIndex(0) == 2);
    m.setCallFilter(1);
    CHECK(m.rowCount() == 0);
    CHECK(m.rowOfFinding(1) == -1);
}

TEST_CASE("SelectionHub keeps call, connection and finding consistent") {
    SelectionHub hub;
    QSignalSpy calls(&hub, &SelectionHub::callSelected), conns(&hub, &SelectionHub::connectionSelected);
    hub.setResult(fakeResult());
    calls.clear();
    conns.clear();
    hub.selectCall(4);
    CHECK(hub.selectedCall() == 4);
    CHECK(hub.selectedConnection() == 2);
    CHECK(calls.count() == 1);
    CHECK(conns.count() == 1);
    hub.selectCall(4);   // no change, no signal
    CHECK(calls.count() == 1);
    hub.selectCall(3);   // same connection
    CHECK(conns.count() == 1);
    hub.selectFinding(2);   // connection_per_call on calls 5, 6
    CHECK(hub.selectedCall() == 5);
    CHECK(hub.selectedConnection() == 3);
    hub.selectCall(6);      // still one of the finding's calls
    CHECK(hub.selectedFinding() == 2);
    hub.selectCall(1);      // not: the finding is deselected
    CHECK(hub.selectedFinding() == -1);
    hub.selectConnection(2);
    CHECK(hub.selectedCall() == 0);
    hub.selectCall(12345);
    CHECK(hub.selectedCall() == 0);
}

TEST_CASE("AnalysisRunner delivers results, errors and cancellation by signal") {
    AnalysisRunner runner(test::fakeBackend().analyze);
    QSignalSpy done(&runner, &AnalysisRunner::finished);

    runner.start("fake:ok");
    REQUIRE(done.wait(10000));
    auto out = done.takeFirst().at(0).value<LoadOutcome>();
    CHECK(out.ok);
    REQUIRE(out.result);
    CHECK(out.result->calls.size() == 6);
    CHECK_FALSE(out.result->calls[0].segments.empty());   // asked for keep_segments
    CHECK_FALSE(runner.busy());

    runner.start("fake:broken");
    REQUIRE(done.wait(10000));
    out = done.takeFirst().at(0).value<LoadOutcome>();
    CHECK_FALSE(out.ok);
    CHECK(out.error.contains("not a capture"));

    QSignalSpy progress(&runner, &AnalysisRunner::progress);
    runner.start("fake:slow");
    REQUIRE(progress.wait(10000));   // it is running and reporting
    runner.cancel();
    REQUIRE(done.wait(10000));
    out = done.takeFirst().at(0).value<LoadOutcome>();
    CHECK(out.cancelled);
}

TEST_CASE("Main window shows a loaded result in every view") {
    MainWindow w(test::fakeBackend());
    w.resize(1300, 850);
    w.show();
    CHECK(w.windowTitle().contains("StallScope"));
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openFile("fake:ok");
    REQUIRE(loaded.wait(10000));
    REQUIRE(loaded.takeFirst().at(0).toBool());
    const ResultPtr r = w.hub()->result();
    REQUIRE(r);
    CHECK(w.windowTitle().contains("StallScope"));
    CHECK(w.windowTitle().contains("fake:ok"));

    // Overview numbers, losses and histogram.
    CHECK(w.overviewPage()->statText("calls") == "6");
    CHECK(w.overviewPage()->statText("connections") == "3");
    CHECK(w.overviewPage()->statText("median") == "4.00 ms");
    CHECK(w.overviewPage()->lossTable()->rowCount() == 3);
    CHECK(w.overviewPage()->findingsTree()->model()->rowCount() == 3);   // three kinds, one finding each
    CHECK(w.windowTitle().count("StallScope") == 1);
    auto series = w.overviewPage()->chart()->series();
    REQUIRE(series.size() == 1);
    auto* bars = qobject_cast<QBarSeries*>(series[0]);
    REQUIRE(bars);
    double counted = 0;
    for (int i = 0; i < bars->barSets()[0]->count(); ++i) counted += bars->barSets()[0]->at(i);
    CHECK(counted == 5);   // the complete calls

    // Calls table and timeline hold every call; warnings are listed.
    CHECK(w.callsPage()->table()->model()->rowCount() == 6);
    CHECK(w.timeline()->rows().rows.size() == 6);
    CHECK(w.warningsList()->count() == 1);
    CHECK(w.warningsList()->item(0)->text().contains("frame 17"));

    // After loading, the costliest finding (Nagle on call 2) is selected everywhere.
    CHECK(w.hub()->selectedFinding() == 1);
    CHECK(w.hub()->selectedCall() == 2);
    const QModelIndex cur = w.callsPage()->table()->currentIndex();
    REQUIRE(cur.isValid());
    CHECK(cur.data(CallsModel::CallIdRole).toULongLong() == 2);
    CHECK(w.findingsPanel()->details()->toPlainText().contains("nagle_delayed_ack explained"));
    CHECK(w.findingsPanel()->details()->toPlainText().contains("kit.setting=1"));
    CHECK(w.tracePanel()->currentLayout().arrows.size() == 6);

    // Selecting a row in the table selects the call in the hub and the trace.
    QTableView* t = w.callsPage()->table();
    const int src = w.callsPage()->model()->rowOfCall(4);
    t->setCurrentIndex(w.callsPage()->proxy()->mapFromSource(w.callsPage()->model()->index(src, 0)));
    CHECK(w.hub()->selectedCall() == 4);
    CHECK(w.tracePanel()->currentLayout().arrows.front().frame == 41);
    // Its finding is listed; clicking an evidence frame highlights that arrow.
    REQUIRE(w.findingsPanel()->model()->rowCount() == 1);
    QListWidget* ev = w.findingsPanel()->evidence();
    REQUIRE(ev->count() == 2);
    ev->setCurrentRow(1);
    CHECK(w.hub()->highlightedFrame() == 42);
    CHECK(w.tracePanel()->view()->canvas()->highlightedFrame() == 42);

    // Filtering the table narrows the timeline too.
    w.callsPage()->operationFilter()->setText("Ping");
    CHECK(w.callsPage()->table()->model()->rowCount() == 2);
    CHECK(w.timeline()->rows().rows.size() == 2);
    w.callsPage()->clearFilters();
    CHECK(w.timeline()->rows().rows.size() == 6);

    // Whole connection.
    w.tracePanel()->setShowConnection(true);
    CHECK(w.tracePanel()->currentLayout().arrows.size() == 12);

    // Recent files remember the capture.
    CHECK(w.recentFiles().size() >= 1);
}

TEST_CASE("Event trace: fit to window, zoom by keys, buttons and Ctrl+wheel, a mark at each call of a connection") {
    MainWindow w(test::fakeBackend());
    w.resize(1360, 860);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openFile("fake:ok");
    REQUIRE(loaded.wait(10000));
    w.pages()->setCurrentWidget(w.tracePanel());
    QApplication::processEvents();
    EventTraceView* v = w.tracePanel()->view();
    EventTraceCanvas* c = v->canvas();
    // Fit to window by default: a 6-segment call is shown whole, at no more than 100 %.
    CHECK(v->fitsWindow());
    CHECK(c->zoom() <= 1.0);
    CHECK(c->zoom() >= EventTraceView::kFitMinZoom);
    CHECK(c->height() <= v->viewport()->height());
    auto* label = w.tracePanel()->findChild<QLabel*>("traceZoomLabel");
    REQUIRE(label);
    CHECK(label->text().endsWith("(fit)"));
    // + zooms in by the step the timeline uses, and leaves fit; 0 fits again.
    const double fit = c->zoom();
    v->setFocus();
    QTest::keyClick(v, Qt::Key_Plus);
    CHECK(c->zoom() == Approx(std::min(4.0, fit * zoom_gestures::kKeyStep)));
    CHECK_FALSE(v->fitsWindow());
    CHECK_FALSE(label->text().contains("fit"));
    QTest::keyClick(v, Qt::Key_Minus);
    QTest::keyClick(v, Qt::Key_Minus);
    CHECK(c->zoom() == Approx(fit / zoom_gestures::kKeyStep));
    QTest::keyClick(v, Qt::Key_0);
    CHECK(v->fitsWindow());
    CHECK(c->zoom() == Approx(fit));
    // The buttons and View > Zoom In do the same.
    w.tracePanel()->findChild<QToolButton*>("traceZoomIn")->click();
    CHECK(c->zoom() > fit);
    w.tracePanel()->findChild<QToolButton*>("traceActualSize")->click();
    CHECK(c->zoom() == Approx(1.0));
    w.tracePanel()->findChild<QToolButton*>("traceFit")->click();
    CHECK(v->fitsWindow());
    // Ctrl+wheel zooms (one notch: the timeline's wheel step); the wheel alone scrolls.
    const QPointF at(v->viewport()->width() / 2.0, 20);
    QWheelEvent ctrl(at, v->viewport()->mapToGlobal(at), {}, {0, 120}, Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(v->viewport(), &ctrl);
    CHECK(c->zoom() == Approx(fit * zoom_gestures::kWheelStep));
    const double zoomed = c->zoom();
    QWheelEvent plain(at, v->viewport()->mapToGlobal(at), {}, {0, -120}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(v->viewport(), &plain);
    CHECK(c->zoom() == zoomed);

    // A call's own trace has no marks; its whole connection (calls 1 and 2) has one per call, in order.
    CHECK(c->callMarks().empty());
    w.hub()->selectCall(1);
    w.tracePanel()->setShowConnection(true);
    REQUIRE(c->callMarks().size() == 2);
    CHECK(c->callMarks()[0].label.startsWith("Call 1"));
    CHECK(c->callMarks()[1].label.startsWith("Call 2"));
    CHECK(c->callMarks()[1].label.contains("GetQuote"));
    // Each mark lies just above its call's first request segment, below the segment before it.
    const auto& arrows = w.tracePanel()->currentLayout().arrows;
    for (const CallMark& m : c->callMarks()) {
        const uint64_t id = m.label.section(' ', 1, 1).toULongLong();
        const auto first = std::find_if(arrows.begin(), arrows.end(), [&](const TraceArrow& a) { return a.frame == 10 * id + 1; });
        REQUIRE(first != arrows.end());
        CHECK(m.y < first->y_from);
        if (first != arrows.begin()) CHECK(m.y > std::prev(first)->y_from);
    }
    QImage img(c->size(), QImage::Format_ARGB32);
    c->render(&img);   // paints with the marks
}

TEST_CASE("A load shows its progress in the status bar, not a modal box, Cancel stops it") {
    CHECK(timeLeftText(0.5, 0.5).isEmpty());    // too early to tell
    CHECK(timeLeftText(10, 0.01).isEmpty());
    CHECK(timeLeftText(4, 0.5) == "about 4 s left");
    CHECK(timeLeftText(60, 0.25) == "about 3 min left");
    MainWindow w(test::fakeBackend());
    w.resize(1360, 860);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openFile("fake:slow");
    LoadBar* bar = w.loadBar();
    QElapsedTimer t;
    t.start();
    while (!bar->isVisible() && t.elapsed() < 5000) QTest::qWait(20);
    REQUIRE(bar->isVisible());
    CHECK(QApplication::activeModalWidget() == nullptr);   // the window stays usable
    while (!bar->text().contains("packets") && t.elapsed() < 5000) QTest::qWait(20);
    CHECK(bar->text().contains("packets"));
    CHECK(bar->text().contains(" %"));
    bar->cancelButton()->click();
    REQUIRE(loaded.wait(10000));
    CHECK_FALSE(loaded.takeFirst().at(0).toBool());
    CHECK_FALSE(bar->isVisible());
}

TEST_CASE("Main window reports a file it cannot analyse") {
    MainWindow w(test::fakeBackend());
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openFile("fake:broken");
    REQUIRE(loaded.wait(10000));
    CHECK_FALSE(loaded.takeFirst().at(0).toBool());
    CHECK(w.lastError().contains("not a capture"));
    CHECK(w.hub()->result() == nullptr);
    CHECK(w.windowTitle() == "StallScope");
}

TEST_CASE("Main window exports the trace and timeline with Qt when no exporter is bound") {
    MainWindow w(test::fakeBackend());
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openFile("fake:ok");
    REQUIRE(loaded.wait(10000));
    QTemporaryDir dir;
    QString err;
    for (const char* name : {"t.svg", "t.pdf", "t.png"}) {
        const QString path = dir.filePath(name);
        CHECK(w.exportEventTrace(path, &err));
        CHECK(QFileInfo(path).size() > 100);
    }
    CHECK(w.exportTimeline(dir.filePath("tl.png"), &err));
    CHECK(QFileInfo(dir.filePath("tl.png")).size() > 100);
    CHECK_FALSE(w.exportTimeline(dir.filePath("tl.pdf"), &err));
    CHECK(w.exportReport(dir.filePath("r.json"), &err));
    QFile f(dir.filePath("r.json"));
    REQUIRE(f.open(QIODevice::ReadOnly));
    CHECK(f.readAll().contains("\"calls\": 6"));
    CHECK_FALSE(w.exportReport(dir.filePath("r.csv"), &err));   // the fake has no CSV writer
    CHECK(err.contains("CSV"));
}
