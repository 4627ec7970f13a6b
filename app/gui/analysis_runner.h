#pragma once
// Runs one analysis at a time on a worker thread and hands the finished,
// immutable result to the UI thread by signal. Cancel is cooperative: the
// core's progress callback returns false.
#include "app/gui/analysis_snapshot.h"
#include "app/gui/gui_backend.h"

#include <QObject>
#include <atomic>
#include <memory>

class QThread;

namespace stallscope::gui {

// More calls than this and the analysis spills them (with their segments)
// to a temp file; the views then fetch rows on demand (loaded_result.h), so
// memory stays bounded on captures of any size.
constexpr size_t kGuiSpillAfterCalls = 5000;
// A live capture's views then show the latest this many calls (and the open
// ones), so a capture left running for hours stays bounded.
constexpr size_t kLiveRecentCalls = 2000;

class AnalysisRunner : public QObject {
    Q_OBJECT
public:
    using AnalyzeFn = decltype(GuiBackend::analyze);
    explicit AnalysisRunner(AnalyzeFn analyze, QObject* parent = nullptr);
    ~AnalysisRunner() override;   // cancels and waits for a running analysis

    bool busy() const { return thread_ != nullptr; }
    // SIZE_MAX keeps every call in memory (what compare_results needs).
    void setSpillAfterCalls(size_t n) { spill_after_calls_ = n; }
    // TLS secrets (NSS key log) for the next analyses; empty: none.
    void setKeyLog(const QString& path) { keylog_ = path; }
    const QString& keyLog() const { return keylog_; }
    // What the running (or last) analysis has found so far; the core
    // updates it from the worker thread (LoadBar polls it).
    std::shared_ptr<const LoadCounters> counters() const { return counters_; }

public slots:
    // Starts analysing path; a running analysis is cancelled and its result dropped.
    void start(const QString& path);
    // The same for several files analysed as one capture (a file set).
    void start(const QStringList& paths);
    void cancel();

signals:
    void started(const QString& path);
    // bytes_total may be 0 (unknown); fraction is then -1.
    void progress(double fraction, quint64 packets);
    void finished(const stallscope::gui::LoadOutcome& outcome);

private:
    void stopAndWait();

    AnalyzeFn analyze_;
    QThread* thread_ = nullptr;
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::shared_ptr<LoadCounters> counters_;
    quint64 generation_ = 0;
    size_t spill_after_calls_ = kGuiSpillAfterCalls;
    QString keylog_;
};

} // namespace stallscope::gui
