// A big capture loading through the real analysis core: the load bar shows
// the calls and findings found so far (the core's LoadCounters, polled),
// they grow while it loads and end at the result's counts; the window is
// not blocked, and Cancel stops a load of the same capture.
#include "app/cli/synthetic_capture.h"
#include "app/gui/gui_backend.h"
#include "app/gui/load_bar.h"
#include "app/gui/main_window.h"
#include "app/gui/selection_hub.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <chrono>
#include <functional>
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

TEST_CASE("A big load shows the calls and findings found so far, growing to the result's; Cancel stops it") {
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
