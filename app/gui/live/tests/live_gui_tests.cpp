// The GUI's live capture: command lines, the dialog, and the controller
// running a reference scenario (the latter needs root / CAP_NET_RAW and is
// skipped with exit code 77 otherwise).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "app/gui/live/capture_dialog.h"
#include "app/gui/live/live_capture_controller.h"
#include "app/gui/live/scenario_command.h"
#include "capture/pcap/live_capture.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <filesystem>

using namespace stallscope;
using namespace stallscope::gui::live;

namespace {

void skip_unless_can_capture() {
    std::string err;
    LiveCaptureOptions o;
    o.buffer_bytes = 1 << 20;
    if (LiveCapture::open(o, err)) return;
    std::fprintf(stderr, "SKIPPED: live capture on 'lo' is not permitted here (%s); run as root.\n", err.c_str());
    std::fflush(stderr);
    std::_Exit(77);
}

// Runs the event loop until pred() or the bound passes (the bound only
// keeps a broken build from hanging the test run).
template <class Pred>
bool spin_until(Pred pred, int max_ms) {
    QElapsedTimer t;
    t.start();
    while (!pred() && t.elapsed() < max_ms) {
        QEventLoop loop;
        QTimer::singleShot(20, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return pred();
}

// What the controller's finished() said, recorded on the GUI thread.
struct Finished {
    bool done = false, ok = false;
    gui::ResultPtr result;
    QString summary;
};

void record_finished(LiveCaptureController& ctl, Finished& f) {
    QObject::connect(&ctl, &LiveCaptureController::finished, &ctl, [&f](const gui::ResultPtr& r, bool k, const QString& s) {
        f.done = true;
        f.ok = k;
        f.result = r;
        f.summary = s;
    });
}

} // namespace

TEST_CASE("live commands: shell quoting and reference / toolkit command lines", "[gui][live]") {
    CHECK(shell_quote("abc-1.2/x") == "abc-1.2/x");
    CHECK(shell_quote("a b") == "'a b'");
    CHECK(shell_quote("it's") == "'it'\\''s'");
    CHECK(shell_quote("") == "''");
    RefScenario r;
    r.bin_dir = "/opt/my build";
    r.profile = "apache-soap";
    r.op = "getString";
    r.size = 100;
    r.calls = 7;
    r.port = 23456;
    ScenarioCommands c = reference_commands(r);
    CHECK(c.server == "'/opt/my build/stallscope-refserver' --profile apache-soap --port 23456 --bind 127.0.0.1 "
                      "--max-seconds 3600");
    CHECK(c.client == "'/opt/my build/stallscope-refclient' --profile apache-soap --url http://127.0.0.1:23456/soap "
                      "--op getString --size 100 --calls 7 --timeout-s 10");
    CHECK(port_filter(23456) == "tcp port 23456");
    ToolkitScenario t;
    t.script = "/r/toolkit-gsoap.sh";
    t.variant = "--fixed";
    t.calls = 3;
    t.port = 20001;
    c = toolkit_commands(t);
    CHECK(c.server.empty());  // the script runs its own server
    CHECK(c.client == "/r/toolkit-gsoap.sh --fixed --port 20001 --calls 3");
}

TEST_CASE("live commands: toolkit scripts and their variants come from the scripts", "[gui][live]") {
    const std::string dir = STALLSCOPE_SOURCE_DIR "/reference-services/toolkits";
    auto scripts = toolkit_scripts(dir);
    REQUIRE(scripts.size() >= 2);
    bool saw_soaplite = false, saw_gsoap = false;
    for (auto& s : scripts) {
        if (s.find("toolkit-soaplite.sh") != std::string::npos) {
            saw_soaplite = true;
            CHECK(toolkit_variants(s) == std::vector<std::string>{"", "--keepalive", "--fixed"});
        }
        if (s.find("toolkit-gsoap.sh") != std::string::npos) {
            saw_gsoap = true;
            CHECK(toolkit_variants(s) == std::vector<std::string>{"", "--fixed"});
        }
    }
    CHECK(saw_soaplite);
    CHECK(saw_gsoap);
}

TEST_CASE("capture dialog: loopback by default, the filter follows the port until edited", "[gui][live]") {
    QStandardPaths::setTestModeEnabled(true);   // the defaults, not the choices of the user running the tests
    QSettings().remove(QStringLiteral("live"));
    CaptureDialog d("/bins", STALLSCOPE_SOURCE_DIR "/reference-services/toolkits");
    LiveCaptureConfig c = d.config();
    CHECK(c.iface == "lo");
    const int port = d.portBox()->value();
    CHECK(port >= 20000);
    CHECK(c.filter == QStringLiteral("tcp port %1").arg(port));
    CHECK(c.serverCommand.startsWith("/bins/stallscope-refserver --profile xsoap --port " + QString::number(port)));
    CHECK(c.runCommand.contains("--url http://127.0.0.1:" + QString::number(port) + "/soap"));
    CHECK(c.outPath.endsWith(".pcapng"));
    // The commands get a key log beside the capture unless it is unticked.
    CHECK(d.keylogBox()->isChecked());
    CHECK(c.keylogPath == c.outPath.chopped(7) + ".keylog");
    d.keylogBox()->setChecked(false);
    CHECK(d.config().keylogPath.isEmpty());
    d.keylogBox()->setChecked(true);

    d.portBox()->setValue(24680);
    CHECK(d.config().filter == "tcp port 24680");
    CHECK(d.config().serverCommand.contains("--port 24680"));
    d.profileBox()->setCurrentText("gsoap-fixed");
    CHECK(d.config().runCommand.contains("--profile gsoap-fixed"));

    // The user's own filter is kept when the port changes.
    d.filterEdit()->setText("tcp port 24680 and host 127.0.0.1");
    emit d.filterEdit()->textEdited(d.filterEdit()->text());
    d.portBox()->setValue(24681);
    CHECK(d.config().filter == "tcp port 24680 and host 127.0.0.1");

    // Toolkit: the script only, no separate server.
    d.modeTabs()->setCurrentIndex(1);
    c = d.config();
    CHECK(c.serverCommand.isEmpty());
    CHECK(c.runCommand.contains("toolkit-"));
    CHECK(c.runCommand.contains("--port 24681"));

    // Custom commands, as typed.
    d.modeTabs()->setCurrentIndex(2);
    d.customServerEdit()->setText("python3 -m http.server 24681");
    d.customClientEdit()->setText("curl -s http://127.0.0.1:24681/");
    c = d.config();
    CHECK(c.serverCommand == "python3 -m http.server 24681");
    CHECK(c.runCommand == "curl -s http://127.0.0.1:24681/");
}

TEST_CASE("capture dialog: remembers its tab, toolkit and variant, writes under the user's data folder", "[gui][live]") {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(QStringLiteral("live"));
    QString variant;
    {
        CaptureDialog d("/bins", STALLSCOPE_SOURCE_DIR "/reference-services/toolkits");
        CHECK(d.config().outPath.startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)));
        CHECK_FALSE(d.config().outPath.startsWith(QStringLiteral("/tmp/")));
        d.modeTabs()->setCurrentIndex(1);
        QComboBox* toolkit = d.toolkitBox();
        QComboBox* variants = d.variantBox();
        REQUIRE(toolkit->count() > 1);
        toolkit->setCurrentIndex(toolkit->count() - 1);
        REQUIRE(variants->count() > 0);
        variants->setCurrentIndex(variants->count() - 1);
        variant = variants->currentText();
        d.accept();
    }
    CaptureDialog again("/bins", STALLSCOPE_SOURCE_DIR "/reference-services/toolkits");
    CHECK(again.modeTabs()->currentIndex() == 1);
    CHECK(again.toolkitBox()->currentIndex() == again.toolkitBox()->count() - 1);
    CHECK(again.variantBox()->currentText() == variant);
    QSettings().remove(QStringLiteral("live"));
}

TEST_CASE("live controller: a reference scenario is analysed while it runs and at its end", "[gui][live][root]") {
    skip_unless_can_capture();
    QTemporaryDir tmp;
    REQUIRE(tmp.isValid());
    const int port = CaptureDialog::pickFreePort();
    RefScenario r;
    r.bin_dir = STALLSCOPE_REFSVC_DIR;
    r.profile = "xsoap";
    r.calls = 12;
    r.port = port;
    ScenarioCommands cmd = reference_commands(r);
    LiveCaptureConfig cfg;
    cfg.iface = "lo";
    cfg.filter = QString::fromStdString(port_filter(port));
    cfg.outPath = tmp.filePath("gui.pcapng");
    cfg.serverCommand = QString::fromStdString(cmd.server);
    cfg.runCommand = QString::fromStdString(cmd.client);
    cfg.snapshotMs = 100;

    LiveCaptureController ctl;
    // &ctl as context: the lambdas run on this (the GUI) thread, queued, as a window's slots would.
    int snapshots = 0;
    size_t most_calls_live = 0;
    bool done = false, ok = false;
    gui::ResultPtr final_result;
    QStringList out_lines;
    QObject::connect(&ctl, &LiveCaptureController::snapshot, &ctl, [&](const gui::ResultPtr& res, const QString&) {
        ++snapshots;
        most_calls_live = std::max(most_calls_live, res->calls.size());
    });
    QObject::connect(&ctl, &LiveCaptureController::output, &ctl, [&](const QString& l, const QString& line) { out_lines << l + ": " + line; });
    QObject::connect(&ctl, &LiveCaptureController::finished, &ctl, [&](const gui::ResultPtr& res, bool k, const QString&) {
        done = true;
        ok = k;
        final_result = res;
        CHECK_FALSE(ctl.isRunning());
    });
    REQUIRE(ctl.start(cfg));
    CHECK(ctl.isRunning());
    QString err;
    CHECK_FALSE(ctl.start(cfg, &err));  // one at a time
    REQUIRE(spin_until([&] { return done; }, 90000));
    INFO(out_lines.join("\n").toStdString());
    CHECK(ok);
    REQUIRE(final_result);
    CHECK(final_result->calls.size() == 12);
    for (auto& c : final_result->calls) CHECK(c.complete);
    CHECK(snapshots >= 1);
    CHECK(most_calls_live >= 1);  // the views saw calls before the end
    CHECK(std::filesystem::file_size(cfg.outPath.toStdString()) > 1000);
    CHECK(out_lines.join("\n").contains("server: listening"));
}

TEST_CASE("live controller: an HTTPS scenario decrypts live and its capture carries its secrets", "[gui][live][root]") {
    skip_unless_can_capture();
    QTemporaryDir tmp;
    REQUIRE(tmp.isValid());
    const std::string ca = tmp.filePath("ca").toStdString();
    REQUIRE(std::system((STALLSCOPE_SOURCE_DIR "/reference-services/https/make-test-ca.sh " + ca + " >/dev/null 2>&1").c_str()) == 0);
    const int port = CaptureDialog::pickFreePort();
    RefScenario r;
    r.bin_dir = STALLSCOPE_REFSVC_DIR;
    r.calls = 3;
    r.port = port;
    ScenarioCommands cmd = reference_commands(r);
    LiveCaptureConfig cfg;
    cfg.iface = "lo";
    cfg.filter = QString::fromStdString(port_filter(port));
    cfg.outPath = tmp.filePath("gui-tls.pcapng");
    cfg.keylogPath = tmp.filePath("gui-tls.keylog");
    cfg.serverCommand = QString::fromStdString(cmd.server + " --tls 1.3 --cert " + ca + "/server.pem --key " + ca + "/server.key");
    QString client = QString::fromStdString(cmd.client);
    client.replace("http://", "https://");
    cfg.runCommand = client + QString::fromStdString(" --tls 1.3 --cacert " + ca + "/ca.pem");
    cfg.snapshotMs = 100;

    LiveCaptureController ctl;
    Finished fin;
    record_finished(ctl, fin);
    QStringList out_lines;
    QObject::connect(&ctl, &LiveCaptureController::output, &ctl, [&](const QString& l, const QString& line) { out_lines << l + ": " + line; });
    REQUIRE(ctl.start(cfg));
    REQUIRE(spin_until([&] { return fin.done; }, 90000));
    INFO(out_lines.join("\n").toStdString() << "\n" << fin.summary.toStdString());
    CHECK(fin.ok);
    REQUIRE(fin.result);
    REQUIRE(fin.result->calls.size() == 3);
    for (auto& c : fin.result->calls) {
        CHECK(c.complete);
        CHECK_FALSE(c.encrypted);  // decrypted: the HTTP inside was analysed
    }
    CHECK(fin.summary.contains("TLS key log lines kept in " + cfg.keylogPath));
    CHECK(std::filesystem::file_size(cfg.keylogPath.toStdString()) > 100);
}

TEST_CASE("live controller: Stop ends a capture that runs nothing", "[gui][live][root]") {
    skip_unless_can_capture();
    QTemporaryDir tmp;
    LiveCaptureConfig cfg;
    cfg.filter = "udp port 9 and udp port 7";
    cfg.outPath = tmp.filePath("quiet.pcapng");
    LiveCaptureController ctl;
    bool capturing = false, done = false;
    QString summary;
    QObject::connect(&ctl, &LiveCaptureController::capturing, &ctl, [&] { capturing = true; });
    QObject::connect(&ctl, &LiveCaptureController::finished, &ctl, [&](const gui::ResultPtr&, bool, const QString& s) {
        done = true;
        summary = s;
    });
    REQUIRE(ctl.start(cfg));
    REQUIRE(spin_until([&] { return capturing; }, 30000));
    ctl.stop();
    REQUIRE(spin_until([&] { return done; }, 30000));
    CHECK(summary.contains("stopped on request"));
}

TEST_CASE("live controller: a bad filter is reported, nothing runs", "[gui][live][root]") {
    skip_unless_can_capture();
    QTemporaryDir tmp;
    LiveCaptureConfig cfg;
    cfg.filter = "tcp prot 1";
    cfg.outPath = tmp.filePath("bad.pcapng");
    cfg.runCommand = "touch " + tmp.filePath("ran");
    LiveCaptureController ctl;
    bool done = false, ok = true;
    gui::ResultPtr res;
    QString summary;
    QObject::connect(&ctl, &LiveCaptureController::finished, &ctl, [&](const gui::ResultPtr& r, bool k, const QString& s) {
        done = true;
        ok = k;
        res = r;
        summary = s;
    });
    REQUIRE(ctl.start(cfg));
    REQUIRE(spin_until([&] { return done; }, 30000));
    CHECK_FALSE(ok);
    CHECK_FALSE(res);
    CHECK(summary.contains("bad capture filter"));
    CHECK_FALSE(QFile::exists(tmp.filePath("ran")));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    return Catch::Session().run(argc, argv);
}
