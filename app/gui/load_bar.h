#pragma once
// A capture loading, shown in the status bar instead of a modal box: the
// window stays usable (the previous capture can be read on), and the bar
// says what has been found so far and about how long is left. Cancel stops
// the load (AnalysisRunner::cancel).
#include <QElapsedTimer>
#include <QWidget>

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
    void start(const QString& file_name);
    // fraction < 0: unknown (busy bar).
    void setProgress(double fraction, quint64 packets);
    void finish();
    QString text() const;
    QToolButton* cancelButton() const { return cancel_; }

signals:
    void cancelRequested();

private:
    QLabel* label_;
    QProgressBar* bar_;
    QToolButton* cancel_;
    QTimer* show_timer_;
    QElapsedTimer clock_;
    QString file_;
};

} // namespace stallscope::gui
