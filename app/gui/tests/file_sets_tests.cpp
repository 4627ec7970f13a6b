// File sets in the desktop app (issue 24): several files dropped or chosen
// together, or a ring's first file, open as one capture with the one file's
// calls and findings; each evidence frame opens in Wireshark in the file
// that holds it, at its frame there; two unrelated captures dropped at once
// open the Compare window (issue 27).
#include "analyzers/accounting/capture_point_summary.h"
#include "app/gui/calls_page.h"
#include "app/gui/compare/compare_window.h"
#include "app/gui/dropped_files.h"
#include "app/gui/main_window.h"
#include "app/gui/overview_page.h"
#include "app/gui/selection_hub.h"
#include "app/gui/wireshark_link.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QUrl>
#include <QtEndian>

using namespace stallscope;
using namespace stallscope::gui;

namespace {

QString testCapture(const char* name) { return QDir(QStringLiteral(STALLSCOPE_TESTDATA_DIR)).filePath(QString::fromLatin1(name)); }

// The packet records (record header + data) of a little-endian classic pcap.
QList<QByteArray> pcapRecords(const QString& path, QByteArray* header = nullptr) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray d = f.readAll();
    if (header) *header = d.left(24);
    QList<QByteArray> out;
    for (qsizetype off = 24; off + 16 <= d.size();) {
        const quint32 caplen = qFromLittleEndian<quint32>(d.constData() + off + 8);
        out << d.mid(off, 16 + qsizetype(caplen));
        off += 16 + qsizetype(caplen);
    }
    return out;
}

// `path` split as dumpcap -b filesize: splits it: run_00001_20261126093000.pcap, ...
QStringList splitAsRing(const QString& path, const QString& dir, int per_file) {
    QByteArray header;
    const QList<QByteArray> recs = pcapRecords(path, &header);
    QStringList names;
    for (qsizetype i = 0; i < recs.size(); i += per_file) {
        const QString name = QDir(dir).filePath(QStringLiteral("run_%1_20261126093000.pcap").arg(i / per_file + 1, 5, 10, QLatin1Char('0')));
        QFile out(name);
        if (!out.open(QIODevice::WriteOnly)) return {};
        out.write(header);
        for (qsizetype j = i; j < std::min(recs.size(), i + per_file); ++j) out.write(recs[j]);
        names << name;
    }
    return names;
}

bool waitLoaded(MainWindow& w, const std::function<void()>& start) {
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    start();
    return loaded.wait(60000) && loaded.takeFirst().at(0).toBool();
}

void drop(QWidget& w, const QStringList& files) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString& f : files) urls << QUrl::fromLocalFile(f);
    mime.setUrls(urls);
    QDropEvent ev(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    // Straight to the window's event handler: QApplication routes a Drop only
    // to the target of a drag in progress, and there is none offscreen.
    static_cast<QObject&>(w).event(&ev);
}

CompareWindow* findCompareWindow() {
    for (QWidget* t : QApplication::topLevelWidgets())
        if (auto* c = qobject_cast<CompareWindow*>(t)) return c;
    return nullptr;
}

} // namespace

TEST_CASE("A file set dropped, chosen together or named by its first file opens as the one capture it was split from") {
    const QString one = testCapture("refsvc-apache-soap.pcap");
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QStringList ring = splitAsRing(one, dir.path(), 9);
    REQUIRE(ring.size() >= 3);

    MainWindow w(core_backend());
    w.resize(1300, 850);
    w.show();
    REQUIRE(waitLoaded(w, [&] { w.openFile(one); }));
    const ResultPtr single = w.hub()->result();
    REQUIRE(single);
    REQUIRE(single->findingCount() > 0);

    auto sameAsOne = [&](const char* how) {
        INFO(how);
        const ResultPtr r = w.hub()->result();
        REQUIRE(r);
        CHECK(r->capture.files.size() == size_t(ring.size()));
        CHECK(r->capture.packets == single->capture.packets);
        REQUIRE(r->callCount() == single->callCount());
        for (size_t i = 0; i < r->callCount(); ++i) {
            CHECK(r->callKey(i).id == single->callKey(i).id);
            CHECK(r->callKey(i).latency_ms == Approx(single->callKey(i).latency_ms));
        }
        REQUIRE(r->findingCount() == single->findingCount());
        REQUIRE(r->findings.size() == single->findings.size());   // small: in memory
        for (size_t i = 0; i < r->findings.size(); ++i) {
            CHECK(r->findings[i].kind == single->findings[i].kind);
            CHECK(r->findings[i].frames == single->findings[i].frames);
            CHECK(r->findingKey(i).counted_ms == Approx(single->findingKey(i).counted_ms));
        }
        CHECK(w.windowTitle().contains(QStringLiteral("file set of %1 files").arg(ring.size())));
    };
    REQUIRE(waitLoaded(w, [&] { drop(w, ring); }));
    sameAsOne("dropped together");
    REQUIRE(waitLoaded(w, [&] { w.openFiles(ring); }));
    sameAsOne("chosen together (File > Open)");
    REQUIRE(waitLoaded(w, [&] { w.openFile(ring.front()); }));
    sameAsOne("the ring's first file");
    REQUIRE(waitLoaded(w, [&] { drop(w, {ring[0], ring[1]}); }));   // two files of one ring: one capture, not Compare
    CHECK(findCompareWindow() == nullptr);
    CHECK(w.hub()->result()->capture.files.size() == 2);

    // Every evidence frame opens in Wireshark in the file that holds it, at
    // its number there: that record is the packet the one file has at the frame.
    REQUIRE(waitLoaded(w, [&] { w.openFile(ring.front()); }));
    const ResultPtr r = w.hub()->result();
    const QList<QByteArray> whole = pcapRecords(one);
    int located = 0, not_first_file = 0;
    for (const Finding& f : r->findings)
        for (uint64_t frame : f.frames) {
            INFO("frame " << frame);
            const WiresharkTarget t = wiresharkTarget(r->capture, frame);
            REQUIRE(ring.contains(t.file));
            const QList<QByteArray> part = pcapRecords(t.file);
            REQUIRE(t.frame >= 1);
            REQUIRE(t.frame <= quint64(part.size()));
            CHECK(part[qsizetype(t.frame - 1)] == whole[qsizetype(frame - 1)]);
            CHECK(wiresharkArguments(t.file, t.frame) ==
                  QStringList({QStringLiteral("-r"), t.file, QStringLiteral("-g"), QString::number(t.frame)}));
            CHECK(frameLocationText(r->capture, frame).contains(QFileInfo(t.file).fileName()));
            ++located;
            not_first_file += t.file != ring.front();
        }
    CHECK(located > 0);
    CHECK(not_first_file > 0);   // frames past the first file are renumbered
    CHECK(frameLocationText(single->capture, 1).isEmpty());   // one file: Wireshark's numbers are ours
}

TEST_CASE("Two unrelated captures dropped at once open the Compare window, the older one as BEFORE") {
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString before = dir.filePath(QStringLiteral("b-slow.pcap")), after = dir.filePath(QStringLiteral("a-fixed.pcap"));
    REQUIRE(QFile::copy(testCapture("refsvc-apache-soap.pcap"), before));
    REQUIRE(QFile::copy(testCapture("refsvc-apache-soap-fixed.pcap"), after));
    {   // the slow one is older, although its name sorts after the fixed one's
        QFile b(before), a(after);
        REQUIRE(b.open(QIODevice::ReadWrite));
        REQUIRE(a.open(QIODevice::ReadWrite));
        const QDateTime now = QDateTime::currentDateTime();
        REQUIRE(b.setFileTime(now.addSecs(-3600), QFileDevice::FileModificationTime));
        REQUIRE(a.setFileTime(now, QFileDevice::FileModificationTime));
    }
    MainWindow w(core_backend());
    w.show();
    drop(w, {after, before});
    CompareWindow* c = findCompareWindow();
    REQUIRE(c);
    QSignalSpy loaded(c, &CompareWindow::loaded);
    REQUIRE(loaded.wait(60000));
    CHECK(loaded.takeFirst().at(0).toBool());
    CHECK(QFileInfo(QString::fromStdString(c->comparison().before.file)).fileName() == QStringLiteral("b-slow.pcap"));
    CHECK(QFileInfo(QString::fromStdString(c->comparison().after.file)).fileName() == QStringLiteral("a-fixed.pcap"));
    CHECK(w.hub()->result() == nullptr);   // nothing was opened in the main window
    c->close();   // deleted on close
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    CHECK(findCompareWindow() == nullptr);
}

TEST_CASE("Dropped files: one set opens, two captures compare, unbound backend compares") {
    auto ringOf = [](const std::string& p) -> std::vector<std::string> {
        if (p.find("run_") != std::string::npos) return {"/x/run_00001_20261126093000.pcap", "/x/run_00002_20261126093100.pcap"};
        return {p};
    };
    DroppedFilesPlan p = planDroppedFiles({QStringLiteral("/x/run_00002_20261126093100.pcap"),
                                           QStringLiteral("/x/run_00001_20261126093000.pcap")}, ringOf);
    CHECK(p.action == DroppedFilesPlan::Action::Open);
    CHECK(p.files.size() == 2);
    p = planDroppedFiles({QStringLiteral("/x/a.pcap"), QStringLiteral("/x/b.pcap")}, ringOf);
    CHECK(p.action == DroppedFilesPlan::Action::Compare);
    p = planDroppedFiles({QStringLiteral("/x/a.pcap"), QStringLiteral("/x/b.pcap"), QStringLiteral("/x/c.pcap")}, ringOf);
    CHECK(p.action == DroppedFilesPlan::Action::Open);
    CHECK(p.files.size() == 3);
    CHECK(planDroppedFiles({QStringLiteral("/x/a.pcap")}, {}).action == DroppedFilesPlan::Action::Open);
    CHECK(planDroppedFiles({}, ringOf).action == DroppedFilesPlan::Action::Nothing);
}

TEST_CASE("The Overview says where the capture was taken, and the Latency column whose view it is, as the report does") {
    MainWindow w(core_backend());
    w.show();
    struct Point { const char* suffix; const char* where; bool client_view; };
    for (const Point& p : {Point{"client", "near the client", true}, Point{"middle", "in the path", false},
                           Point{"server", "near the server", false}}) {
        const QString path = testCapture("path/path-gsoap-10ms.") + QString::fromLatin1(p.suffix) + QStringLiteral(".pcap");
        INFO(path.toStdString());
        REQUIRE(waitLoaded(w, [&] { w.openFile(path); }));
        const ResultPtr r = w.hub()->result();
        REQUIRE(r);
        const CapturePointSummary s = summarize_capture_point(*r);
        // The report's words (report_text.cpp prints the same place and sentence).
        CHECK(w.overviewPage()->statText(QStringLiteral("captured")).startsWith(QString::fromLatin1(p.where)));
        CHECK(w.overviewPage()->statText(QStringLiteral("captured")).contains(QStringLiteral("round trip")));
        const QString view = w.overviewPage()->statText(QStringLiteral("view"));
        CHECK(QString::fromStdString(s.view).startsWith(view.chopped(QStringLiteral(" view").size())));
        QAbstractItemModel* calls = w.callsPage()->table()->model();
        int latency = -1;
        for (int c = 0; c < calls->columnCount(); ++c)
            if (calls->headerData(c, Qt::Horizontal).toString().startsWith(QStringLiteral("Latency"))) latency = c;
        REQUIRE(latency >= 0);
        const QString header = calls->headerData(latency, Qt::Horizontal).toString();
        CHECK((header == QStringLiteral("Latency")) == p.client_view);
        if (!p.client_view) CHECK(header.contains(view));
        CHECK(calls->headerData(latency, Qt::Horizontal, Qt::ToolTipRole).toString().contains(QString::fromStdString(s.view)));
    }
}
