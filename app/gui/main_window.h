#pragma once
// The main window: menus, pages (overview, calls, timeline), docks (event
// trace, findings, warnings), opening captures, exports, settings.
#include "app/gui/analysis_snapshot.h"
#include "app/gui/gui_backend.h"
#include "app/gui/theme.h"

#include <QMainWindow>

class QAction;
class QActionGroup;
class QDockWidget;
class QListWidget;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace stallscope::gui {

class AnalysisRunner;
class CallsPage;
class LoadBar;
class EventTracePanel;
class FindingsPanel;
class OverTimeView;
class OverviewPage;
class SelectionHub;
class StartPage;
class TimelineWidget;

// The figure options of File > Export > Event trace (as stallscope-cli export's).
struct FigureSettings {
    bool linear_time = false;   // --time-axis linear
    double width = 960;         // --width
    QString page;               // "", "one-column", "two-column"
    double dpi = 0;             // PNG; 0 = 96 (300 with a page)
    bool highlight = true;      // false: --no-highlight
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(GuiBackend backend, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Cancels a running load (it ends with loadFinished(false)).
    void cancelLoad();
    // More calls than this and a load spills to disk (kGuiSpillAfterCalls; tests use 1).
    void setSpillAfterCalls(size_t n);
    // Starts loading a capture (asynchronously); loadFinished reports the outcome.
    void openFile(const QString& path);
    // Several files analysed as one capture (a file set: a dumpcap ring, tcpdump -C files...).
    void openFiles(const QStringList& paths);
    // Files given at once (dropped, or chosen together): one file set opens as
    // one capture, two unrelated captures open the Compare window (dropped_files.h).
    void openDroppedFiles(const QStringList& paths);
    // Decrypt HTTPS with this NSS key log from now on (File > Open Key Log…); reloads the capture.
    void setKeyLog(const QString& path);
    // Exports; the format comes from the file suffix. False with *error set on failure.
    bool exportEventTrace(const QString& path, QString* error);
    // The selected call (or its connection, as shown) as a figure with options;
    // falls back to exportEventTrace when the build has no figure exporter.
    bool exportFigure(const QString& path, const FigureSettings& settings, QString* error);
    bool exportTimeline(const QString& path, QString* error);
    bool exportReport(const QString& path, QString* error);

    // Parts, for tests and screenshots.
    SelectionHub* hub() const { return hub_; }
    OverviewPage* overviewPage() const { return overview_; }
    CallsPage* callsPage() const { return calls_; }
    TimelineWidget* timeline() const { return timeline_; }
    OverTimeView* overTime() const { return over_time_; }
    EventTracePanel* tracePanel() const { return trace_; }
    FindingsPanel* findingsPanel() const { return findings_; }
    QListWidget* warningsList() const { return warnings_; }
    QTabWidget* pages() const { return pages_; }
    StartPage* startPage() const { return start_; }
    LoadBar* loadBar() const { return load_bar_; }
    // The start page while no capture is open, else the pages.
    QWidget* currentCentral() const;
    QString currentFile() const { return current_file_; }
    QString lastError() const { return last_error_; }
    QStringList recentFiles() const;
    void setTheme(Theme t);
    // PREFIX-overview.png, -calls.png, ... one per page, of the whole window.
    bool saveScreenshots(const QString& prefix);

signals:
    void loadFinished(bool ok);

protected:
    void closeEvent(QCloseEvent*) override;
    void dragEnterEvent(QDragEnterEvent*) override;
    void dropEvent(QDropEvent*) override;
    void changeEvent(QEvent*) override;

private:
    void buildMenus();
    void openDialog();
    void openKeyLogDialog();
    void onLoadFinished(const LoadOutcome& outcome);
    void onProgress(double fraction, quint64 packets);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void exportDialog(const QString& what);
    void updateTitle();
    void updateActions();
    void showError(const QString& title, const QString& text);
    void showWarnings(const std::vector<Warning>& warnings);
    void showSnapshot(const ResultPtr& r);
    void hideCaptureLog();
    void showDocks(bool on);

    GuiBackend backend_;
    SelectionHub* hub_;
    AnalysisRunner* runner_;
    QTabWidget* pages_;
    OverviewPage* overview_;
    CallsPage* calls_;
    TimelineWidget* timeline_;
    OverTimeView* over_time_;
    EventTracePanel* trace_;
    FindingsPanel* findings_;
    QListWidget* warnings_;
    StartPage* start_;
    QStackedWidget* stack_ = nullptr;
    QWidget* analysis_ = nullptr;   // the pages under the damage banner (the stack's other page)
    bool docks_shown_ = true;
    bool dock_was_visible_[2] = {true, true};
    QDockWidget *findings_dock_, *warnings_dock_;
    LoadBar* load_bar_;
    QMenu* recent_menu_ = nullptr;
    QActionGroup* theme_group_ = nullptr;
    QList<QAction*> need_result_;
    QString current_file_, loading_file_, last_error_;
    QStringList current_files_;   // what is open: one file, or a file set's files
};

} // namespace stallscope::gui
