#include "app/gui/analysis_runner.h"

#include "app/gui/memory_release.h"

#include <QFileInfo>
#include <QPointer>
#include <QThread>
#include <exception>

namespace stallscope::gui {

AnalysisRunner::AnalysisRunner(AnalyzeFn analyze, QObject* parent)
    : QObject(parent), analyze_(std::move(analyze)) {
    qRegisterMetaType<stallscope::gui::LoadOutcome>();
    qRegisterMetaType<stallscope::gui::ResultPtr>();
}

AnalysisRunner::~AnalysisRunner() { stopAndWait(); }

void AnalysisRunner::stopAndWait() {
    if (!thread_) return;
    cancel_->store(true);
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
}

void AnalysisRunner::cancel() {
    if (cancel_) cancel_->store(true);
}

void AnalysisRunner::start(const QString& path) { start(QStringList{path}); }

void AnalysisRunner::start(const QStringList& paths) {
    if (paths.isEmpty()) return;
    const QString path = paths.front();
    stopAndWait();
    const quint64 gen = ++generation_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    auto cancel = cancel_;
    counters_ = std::make_shared<LoadCounters>();
    auto counters = counters_;
    auto analyze = analyze_;
    QPointer<AnalysisRunner> self(this);
    std::vector<std::string> files;
    for (const QString& p : paths) files.push_back(QFileInfo(p).filePath().toStdString());
    const size_t spill_after = spill_after_calls_;
    const std::string keylog = keylog_.toStdString();

    thread_ = QThread::create([=]() {
        LoadOutcome out;
        out.path = path;
        out.paths = paths;
        // Progress reaches the UI thread queued; at most one update per call of the callback.
        ProgressFn on_progress = [=](const Progress& p) {
            const double fraction = p.bytes_total ? double(p.bytes_read) / double(p.bytes_total) : -1.0;
            const quint64 packets = p.packets;
            QMetaObject::invokeMethod(self, [self, gen, fraction, packets] {
                if (self && self->generation_ == gen) emit self->progress(fraction, packets);
            }, Qt::QueuedConnection);
            return !cancel->load();
        };
        try {
            if (!analyze) throw std::runtime_error("this build has no analysis core");
            AnalysisOptions options;
            options.keep_segments = true;       // the event trace of any call, at once
            options.spill_after_calls = spill_after;   // big captures stay on disk
            options.threads = default_analysis_threads();  // as `analyze`: the same result for any N
            options.keylog_path = keylog;       // HTTPS decrypted with it (docs/https.md)
            options.counters = counters;        // found so far: the load bar's counts, the Overview's figures
            AnalyzeOutcome r = analyze(files, options, on_progress);
            out.ok = r.ok;
            out.cancelled = r.cancelled || cancel->load();
            out.error = QString::fromStdString(r.error);
            // The keys are built here, off the UI thread; a cancelled load is dropped at once.
            if (r.ok && !out.cancelled) out.result = std::make_shared<const LoadedResult>(std::move(r.result));
        } catch (const std::exception& e) {
            out.ok = false;
            out.error = QStringLiteral("%1: internal error: %2").arg(path, QString::fromUtf8(e.what()));
        }
        releaseFreedMemory();   // the open connections were freed in this thread's arena
        QMetaObject::invokeMethod(self, [self, gen, out] {
            if (!self || self->generation_ != gen) return;
            if (self->thread_) {           // the thread is about to end; reap it
                self->thread_->wait();
                delete self->thread_;
                self->thread_ = nullptr;
            }
            emit self->finished(out);
        }, Qt::QueuedConnection);
    });
    thread_->start();
    emit started(path);
}

} // namespace stallscope::gui
