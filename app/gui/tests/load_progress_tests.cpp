// A big capture loading through the real analysis core: the load bar shows
// the calls and findings found so far (the core's LoadCounters, polled),
// they grow while it loads and end at the result's counts; the window is
// not blocked, and Cancel stops a load of the same capture.
#include "app/cli/synthetic_capture.h"
#include "app/gui/gui_backend.h"
#include "app/gui/load_bar.h"
#include "app/gui/main_window.h"
#include "app/gui/overview_page.h"
#include "app/gui/selection_hub.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QGroupBox>
#include <QLabel>
#include <QTableWidget>
#include <QTreeView>
#include <QtCharts/QChart>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>
#include <vector>

using namespace stallscope;
using namespace stallscope::gui;

namespace {
constexpr uint64_t kPackets = 400000;   // ~6 progress callbacks (one per 64k packets)
constexpr int kPauseMs = 300;           // longer than the bar's 200 ms poll: each pause is seen

// The real core, paused at each progress callback, so the counts at each
// pause are read by the bar's timer however fast this machine is.
GuiBackend pausedCore() {
    GuiBackend b = core_backend();
    auto real = b.analyze;
    b.analyze = [real](const std::vector<std::string>& paths, const AnalysisOptions& o, const ProgressFn& p) {
        return real(paths, o, [p](const Progress& x) {
            std::this_thread::sleep_for(std::chrono::milliseconds(kPauseMs));
            return p(x);
        });
    };
    return b;
}

struct Seen {
    std::vector<quint64> calls, findings;   // each value the bar showed, in order, no repeats
    bool visible = false, modal = false;
    QString text_while_loading;
};

// Watches the bar until the load ends (bounded: 120 s).
bool watch(MainWindow& w, Seen& seen, std::function<void()> on_first_counts = {}) {
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    LoadBar* bar = w.loadBar();
    QElapsedTimer t;
    t.start();
    while (loaded.isEmpty() && t.elapsed() < 120000) {
        QTest::qWait(25);
        if (!loaded.isEmpty()) break;
        if (seen.calls.empty() || seen.calls.back() != bar->callsShown()) seen.calls.push_back(bar->callsShown());
        if (seen.findings.empty() || seen.findings.back() != bar->findingsShown())
            seen.findings.push_back(bar->findingsShown());
        if (bar->isVisible()) {
            seen.visible = true;
            if (bar->callsShown() > 0) seen.text_while_loading = bar->text();
        }
        seen.modal = seen.modal || QApplication::activeModalWidget() != nullptr;
        if (on_first_counts && bar->callsShown() > 0) {
            on_first_counts();
            on_first_counts = {};
        }
    }
    return !loaded.isEmpty() && loaded.takeFirst().at(0).toBool();
}
} // namespace

TEST_CASE("A big load shows the calls and findings found so far, growing to the result's, and Cancel stops it") {
    QTemporaryDir dir;
    const std::string path = dir.filePath("big.pcap").toStdString();
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, kPackets, st, error));
    MainWindow w(pausedCore());
    w.resize(1360, 860);
    w.show();

    w.openFile(QString::fromStdString(path));
    Seen seen;
    REQUIRE(watch(w, seen));
    const auto r = w.hub()->result();
    REQUIRE(r != nullptr);
    INFO("calls shown: " << seen.calls.size() << " values; text: " << seen.text_while_loading.toStdString());
    CHECK(r->callCount() == st.calls);
    // Shown while loading: at least two counts between none and the end, never going down.
    CHECK(std::is_sorted(seen.calls.begin(), seen.calls.end()));
    CHECK(std::is_sorted(seen.findings.begin(), seen.findings.end()));
    const auto between = std::count_if(seen.calls.begin(), seen.calls.end(),
                                       [&](quint64 n) { return n > 0 && n < r->callCount(); });
    CHECK(between >= 2);
    // And at the end, the result's.
    CHECK(w.loadBar()->callsShown() == r->callCount());
    CHECK(w.loadBar()->findingsShown() == r->findingCount());
    CHECK(r->findingCount() > 0);
    CHECK(seen.visible);
    CHECK_FALSE(seen.modal);   // the window is not blocked
    CHECK(seen.text_while_loading.contains(" calls, "));
    CHECK(seen.text_while_loading.contains(" so far"));

    // Cancel as soon as counts show: the load ends, not analysed, the previous capture stays.
    w.openFile(QString::fromStdString(path));
    Seen again;
    CHECK_FALSE(watch(w, again, [&w] { w.loadBar()->cancelButton()->click(); }));
    CHECK(again.calls.back() < r->callCount());
    CHECK(w.hub()->result() == r);
    CHECK_FALSE(w.loadBar()->isVisible());
}

namespace {
// What the Overview shows of a capture: the numbers a test compares.
struct OverviewShown {
    bool partial = false, banner = false;
    quint64 histogram = 0;                       // calls in the histogram's bars
    std::map<std::string, double> lost_ms;       // time per kind (the table's)
    std::map<std::string, quint64> findings;     // findings per kind (the table's)
    QStringList texts;                           // every stat, title and table cell as shown
};

OverviewShown shown(OverviewPage* p) {
    OverviewShown s;
    s.partial = p->showsPartial();
    s.banner = p->partialBanner()->isVisible();
    for (quint64 n : p->histogramCounts()) s.histogram += n;
    QTableWidget* t = p->lossTable();
    for (int i = 0; i < t->rowCount(); ++i) {
        const std::string kind = t->item(i, 0)->data(Qt::UserRole).toString().toStdString();
        s.lost_ms[kind] = t->item(i, 3)->data(Qt::UserRole).toDouble();
        s.findings[kind] = t->item(i, 1)->text().toULongLong();
        for (int c = 0; c < t->columnCount(); ++c) s.texts << t->item(i, c)->text();
    }
    for (const char* key : {"file", "packets", "calls", "connections", "captured", "view", "median", "p90", "max", "lost",
                            "setup", "rest", "predicted", "warnings"})
        s.texts << p->statText(QString::fromLatin1(key));
    s.texts << p->chart()->title();
    for (QGroupBox* box : p->findChildren<QGroupBox*>()) s.texts << box->title();
    s.texts << QString::number(p->findingsTree()->model()->rowCount());
    return s;
}
// The bench's million packets in `dir`: its stalls (HTTP/1.0 calls) finish from
// half-way through on, when their connections' linger (1 s of capture time) runs out.
std::string write_big_capture(const QTemporaryDir& dir) {
    const std::string path = dir.filePath("big.pcap").toStdString();
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 1000000, st, error));
    return path;
}
} // namespace

TEST_CASE("A big load fills the Overview in as it goes, then shows the result exactly, and a cancel leaves nothing of it") {
    QTemporaryDir dir;
    const std::string path = write_big_capture(dir);
    MainWindow w(pausedCore());
    w.resize(1360, 860);
    w.show();
    OverviewPage* page = w.overviewPage();

    // Watched every 25 ms until the load ends (bounded: 120 s); each change kept.
    auto load = [&](std::vector<OverviewShown>& seen, bool cancel_when_shown) {
        w.openFile(QString::fromStdString(path));
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        QElapsedTimer t;
        t.start();
        bool cancelled = false;
        while (loaded.isEmpty() && t.elapsed() < 120000) {
            QTest::qWait(25);
            if (!loaded.isEmpty()) break;
            OverviewShown s = shown(page);
            if (!s.partial) continue;
            CHECK(page->isVisible());   // over the start page when nothing was open
            if (seen.empty() || seen.back().texts != s.texts) seen.push_back(std::move(s));
            if (cancel_when_shown && !cancelled) {
                w.loadBar()->cancelButton()->click();
                cancelled = true;
            }
        }
        return !loaded.isEmpty() && loaded.takeFirst().at(0).toBool();
    };

    // Cancelled while the figures so far show, with nothing open before: the start page again.
    std::vector<OverviewShown> cancelled;
    CHECK_FALSE(load(cancelled, true));
    CHECK_FALSE(cancelled.empty());
    CHECK(w.hub()->result() == nullptr);
    CHECK_FALSE(page->isVisible());
    CHECK_FALSE(page->showsPartial());

    std::vector<OverviewShown> seen;
    REQUIRE(load(seen, false));
    const auto r = w.hub()->result();
    REQUIRE(r != nullptr);
    const OverviewShown end = shown(page);
    // The result's view, exactly as a page that never saw the load shows it.
    OverviewPage fresh(w.hub());
    CHECK(shown(&fresh).texts == end.texts);
    CHECK(page->chart()->axes().size() == 2);   // one x and one y axis: none of the partial ones left
    CHECK(page->chart()->series().size() == 1);
    CHECK_FALSE(end.partial);
    CHECK_FALSE(end.banner);
    uint64_t complete = 0;
    for (const CallKey& c : r->callKeys()) complete += c.complete();
    CHECK(end.histogram == complete);
    CHECK(end.lost_ms.size() == r->summary.overall.losses.size());
    for (const KindLoss& k : r->summary.overall.losses) CHECK(end.lost_ms.at(k.kind) == k.lost_ms);

    // While loading: marked as partial, several states between none and the end, each grown from the one before.
    INFO("states seen: " << seen.size());
    size_t between = 0;
    for (const OverviewShown& s : seen) {
        CHECK(s.banner);
        CHECK(s.texts.join('\n').contains(QStringLiteral("so far")));
        between += s.histogram > 0 && s.histogram < end.histogram;
    }
    CHECK(between >= 2);
    bool lost_so_far = false;
    for (size_t i = 0; i < seen.size(); ++i) {
        const OverviewShown& later = i + 1 < seen.size() ? seen[i + 1] : end;
        CHECK(seen[i].histogram <= later.histogram);
        for (auto& [kind, ms] : seen[i].lost_ms) {
            INFO(kind);
            REQUIRE(later.lost_ms.count(kind));
            CHECK(ms <= later.lost_ms.at(kind) + 1e-6);   // never more than the result says
            CHECK(seen[i].findings.at(kind) <= later.findings.at(kind));
            lost_so_far = lost_so_far || ms > 0;
        }
    }
    CHECK(lost_so_far);

    // Cancelled with a capture open: the Overview is that capture's again, exactly.
    std::vector<OverviewShown> again;
    CHECK_FALSE(load(again, true));
    CHECK_FALSE(again.empty());
    CHECK(w.hub()->result() == r);
    CHECK(shown(page).texts == end.texts);
    CHECK_FALSE(page->partialBanner()->isVisible());
}

TEST_CASE("A capture opened while another loads replaces it: nothing of the dropped load stays on the Overview") {
    QTemporaryDir dir;
    const std::string big = write_big_capture(dir);
    MainWindow w(pausedCore());
    w.resize(1360, 860);
    w.show();
    OverviewPage* page = w.overviewPage();

    // The big load shows its figures so far (bounded: 120 s) ...
    w.openFile(QString::fromStdString(big));
    QElapsedTimer t;
    t.start();
    while (!shown(page).partial && t.elapsed() < 120000) QTest::qWait(25);
    REQUIRE(shown(page).partial);

    // ... then a small capture is opened over it: its own result, shown as a fresh page shows it.
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openFile(QStringLiteral(STALLSCOPE_TESTDATA_DIR "/refsvc-xsoap.pcap"));
    bool ok = false;
    t.restart();
    while (!ok && t.elapsed() < 120000) {
        QTest::qWait(25);
        for (; !loaded.isEmpty(); loaded.removeFirst()) ok = ok || loaded.first().at(0).toBool();
    }
    REQUIRE(ok);
    QTest::qWait(600);  // past two of the overview's refreshes: none may bring the dropped load back
    REQUIRE(w.hub()->result() != nullptr);
    CHECK(w.hub()->result()->capture.file.find("refsvc-xsoap.pcap") != std::string::npos);
    const OverviewShown end = shown(page);
    OverviewPage fresh(w.hub());
    CHECK(shown(&fresh).texts == end.texts);
    CHECK_FALSE(end.partial);
    CHECK_FALSE(end.banner);
    CHECK(page->chart()->series().size() == 1);
}
