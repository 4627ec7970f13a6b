#pragma once
// What the window shows before any capture is open: open, compare and live
// capture buttons, the bundled sample, and the recent files (a missing one
// says so). Opening is the window's business: this only asks for it.
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace stallscope::gui {

class StartPage : public QWidget {
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);

    // Most recent first (absolute paths, as the Open Recent menu keeps them).
    void setRecentFiles(const QStringList& paths);
    // Buttons for features this build may lack; hidden until given.
    void setCompareAvailable(bool on);
    void setLiveAvailable(bool on);

    // The capture shipped with the app: $STALLSCOPE_SAMPLE, share/stallscope/sample.pcap next to an
    // installed app, else the source tree's testdata/toolkit-soaplite-keepalive.pcap. "" if none.
    static QString samplePath();

    QListWidget* recentList() const { return recent_; }
    QPushButton* sampleButton() const { return sample_; }

signals:
    void openRequested(const QString& path);
    void openDialogRequested();
    void compareRequested();
    void liveRequested();

private:
    QListWidget* recent_;
    QLabel* no_recent_;
    QPushButton *sample_, *compare_, *live_;
};

} // namespace stallscope::gui
