#include "app/gui/live/live_capture_controller.h"

#include "app/gui/analysis_runner.h"

#include "app/live/live_scenario.h"
#include "app/live/live_status.h"

#include <QThread>

namespace stallscope::gui::live {

LiveCaptureController::LiveCaptureController(QObject* parent) : QObject(parent) {
    qRegisterMetaType<stallscope::gui::ResultPtr>();
    // Connected first, so receivers of finished() already see !isRunning().
    connect(this, &LiveCaptureController::finished, this, [this] { running_ = false; });
}

LiveCaptureController::~LiveCaptureController() {
    if (thread_) {
        stop();
        thread_->wait();  // bounded: the runner stops its commands within seconds
        delete thread_;
    }
}

bool LiveCaptureController::start(const LiveCaptureConfig& c, QString* error) {
    if (running_) {
        if (error) *error = tr("A capture is already running.");
        return false;
    }
    if (thread_) {  // the previous run's thread has ended
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
    config_ = c;
    stallscope::live::ScenarioOptions o;
    o.session.capture.iface = c.iface.toStdString();
    o.session.capture.filter = c.filter.toStdString();
    o.session.out_path = c.outPath.toStdString();
    o.session.keylog_path = c.keylogPath.toStdString();
    o.session.application = "stallscope 0.1.0 (GUI live capture)";
    o.session.analysis.keep_segments = true;  // the event-trace view needs them
    // Bounded however long it runs: past kGuiSpillAfterCalls finished calls go
    // to disk (the final result reads them back on demand, like a big file),
    // and the live views show the latest kLiveRecentCalls and the open ones.
    o.session.analysis.spill_after_calls = kGuiSpillAfterCalls;
    o.session.analysis.snapshot_recent_calls = kLiveRecentCalls;
    o.server_cmd = c.serverCommand.toStdString();
    o.run_cmd = c.runCommand.toStdString();
    o.duration_s = c.durationS;
    o.status_interval_ms = c.snapshotMs;
    auto runner = std::make_shared<stallscope::live::ScenarioRunner>(o);
    runner_ = runner;

    // The runner's callbacks run on the worker thread; signals cross to the
    // GUI thread queued (receivers live there).
    runner->on_output = [this](const std::string& label, const std::string& line) {
        emit output(QString::fromStdString(label), QString::fromStdString(line));
    };
    runner->on_message = [this](const std::string& m) { emit message(QString::fromStdString(m)); };
    runner->on_capturing = [this] { emit capturing(); };
    runner->on_status = [this](const stallscope::live::SessionStatus& st, const AnalysisResult& snap) {
        QString line = QString::fromStdString(stallscope::live::status_line(st, snap));
        if (snap.calls.size() >= kLiveRecentCalls) line += tr("  (views: the latest %1 calls)").arg(kLiveRecentCalls);
        emit snapshot(std::make_shared<const LoadedResult>(snap), line);
    };
    thread_ = QThread::create([this, runner, c] {
        stallscope::live::ScenarioOutcome out = runner->run();
        QString summary;
        bool ok = out.opened && out.captured && !out.failed;
        if (!out.opened) {
            summary = QString::fromStdString(out.error);
            if (out.open_error == LiveCapture::OpenError::Permission)
                summary += tr("\n\nLive capture needs CAP_NET_RAW and CAP_NET_ADMIN: run StallScope as root, or "
                              "grant them once with\n  sudo setcap cap_net_raw,cap_net_admin=eip <path of stallscope>");
        } else {
            summary = tr("Captured %1 packets in %2 s into %3; %4")
                          .arg(out.status.packets)
                          .arg(out.status.elapsed_s, 0, 'f', 1)
                          .arg(c.outPath)
                          .arg(QString::fromStdString(out.stop_reason));
            if (out.status.keylog_lines > 0)
                summary += tr("; %1 TLS key log lines kept in %2 and embedded in the capture")
                               .arg(out.status.keylog_lines)
                               .arg(c.keylogPath);
        }
        ResultPtr result = out.opened ? std::make_shared<const LoadedResult>(std::move(out.result)) : nullptr;
        emit finished(result, ok, summary);
    });
    connect(thread_, &QThread::finished, this, &LiveCaptureController::onThreadDone);
    running_ = true;
    thread_->start();
    return true;
}

void LiveCaptureController::stop() {
    if (runner_) runner_->request_stop(0);
}

void LiveCaptureController::onThreadDone() {
    running_ = false;
    runner_.reset();
}

} // namespace stallscope::gui::live
