#pragma once
// A capture loading, shown in the status bar instead of a modal box: the
// window stays usable (the previous capture can be read on), and the bar
// says what has been found so far and about how long is left. Cancel stops
// the load (AnalysisRunner::cancel). The calls and findings found so far
// come from the analysis's LoadCounters, read on a timer (the core updates
// them as calls complete; the packets and per cent come by signal).
#include "analyzers/pipeline/analyze_capture.h"

#include <QElapsedTimer>
#include <QWidget>
#include <memory>

class QLabel;
class QProgressBar;
class QToolButton;
class QTimer;

namespace stallscope::gui {

// "about 8 s left", "about 3 min left"; "" until the estimate means something
// (a second in and 2 % done), so it never opens with a wild guess.
QString timeLeftText(double elapsed_s, double fraction);

class LoadBar : public QWidget {
    Q_OBJECT
public:
    explicit LoadBar(QWidget* parent = nullptr);
    // A new load: hidden for the first 400 ms (quick loads never flash it).
    // counters: what the analysis has found so far (null: not shown).
    void start(const QString& file_name, std::shared_ptr<const LoadCounters> counters = {});
    // fraction < 0: unknown (busy bar).
    void setProgress(double fraction, quint64 packets);
    void finish();
    QString text() const;
    // The calls and findings the bar shows now (what the test reads).
    quint64 callsShown() const { return calls_; }
    quint64 findingsShown() const { return findings_; }
    double fractionShown() const { return have_progress_ ? fraction_ : -1; }   // -1: not known yet
    QToolButton* cancelButton() const { return cancel_; }

signals:
    void cancelRequested();

private:
    void refresh();   // the label from the numbers below

    QLabel* label_;
    QProgressBar* bar_;
    QToolButton* cancel_;
    QTimer* show_timer_;
    QTimer* poll_timer_;   // reads counters_ while loading
    QElapsedTimer clock_;
    QString file_;
    std::shared_ptr<const LoadCounters> counters_;
    double fraction_ = 0;
    bool have_progress_ = false;
    quint64 packets_ = 0, calls_ = 0, findings_ = 0;
};

} // namespace stallscope::gui
