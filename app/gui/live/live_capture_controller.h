#pragma once
// Runs one live capture (capture + server/client commands + analysis) on a
// worker thread and reports to the GUI thread: analysis snapshots a few
// times a second while it runs, the commands' output, and the final result.
// Stop (or the client's end) stops everything it started.
#include "app/gui/analysis_snapshot.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

class QThread;

namespace stallscope::live {
class ScenarioRunner;
}

namespace stallscope::gui::live {

struct LiveCaptureConfig {
    QString iface = QStringLiteral("lo");
    QString filter;
    QString outPath;          // the pcapng written as packets come
    QString serverCommand;    // /bin/sh -c lines; empty = none
    QString runCommand;
    QString keylogPath;       // the commands' SSLKEYLOGFILE, embedded in the capture ("" = none)
    double durationS = 0;     // 0 = until Stop or the run command's end
    int snapshotMs = 300;     // how often the views are refreshed
};

class LiveCaptureController : public QObject {
    Q_OBJECT
public:
    explicit LiveCaptureController(QObject* parent = nullptr);
    ~LiveCaptureController() override;  // stops and waits

    // False (and error set) when a capture is already running.
    bool start(const LiveCaptureConfig& config, QString* error = nullptr);
    bool isRunning() const { return running_; }
    const LiveCaptureConfig& config() const { return config_; }

public slots:
    void stop();  // returns at once; finished() follows

signals:
    void capturing();                                              // packets are being captured
    void snapshot(const stallscope::gui::ResultPtr& result, const QString& status);
    void output(const QString& label, const QString& line);        // a command's output line
    void message(const QString& text);                             // errors and notes
    // ok=false: the capture could not start (error) or a command failed.
    void finished(const stallscope::gui::ResultPtr& result, bool ok, const QString& summary);

private:
    void onThreadDone();

    LiveCaptureConfig config_;
    QThread* thread_ = nullptr;
    std::shared_ptr<stallscope::live::ScenarioRunner> runner_;
    bool running_ = false;
};

} // namespace stallscope::gui::live
