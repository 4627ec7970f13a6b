#include "app/gui/main_window.h"

#include "app/gui/analysis_runner.h"
#include "app/gui/calls_filter_model.h"
#include "app/gui/calls_model.h"
#include "app/gui/damage_banner.h"
#include "app/gui/display_text.h"
#include "app/gui/dropped_files.h"
#include "app/gui/calls_page.h"
#include "app/gui/compare/compare_window.h"
#include "app/gui/event_trace_painter.h"
#include "app/gui/event_trace_view.h"
#include "app/gui/memory_release.h"
#include "app/gui/findings_panel.h"
#include "app/gui/figure_dialog.h"
#include "app/gui/help_links.h"
#include "app/gui/load_bar.h"
#include "app/gui/live/live_capture_menu.h"
#include "app/gui/over_time_view.h"
#include "app/gui/overview_page.h"
#include "app/gui/selection_hub.h"
#include "app/gui/start_page.h"
#include "app/gui/timeline_widget.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QKeySequence>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPdfWriter>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QTableView>

namespace stallscope::gui {

namespace {
constexpr int kMaxRecent = 10;
QString suffixOf(const QString& path) { return QFileInfo(path).suffix().toLower(); }
}

MainWindow::MainWindow(GuiBackend backend, QWidget* parent)
    : QMainWindow(parent), backend_(std::move(backend)), hub_(new SelectionHub(this)),
      runner_(new AnalysisRunner(backend_.analyze, this)), pages_(new QTabWidget),
      overview_(new OverviewPage(hub_)), calls_(new CallsPage(hub_)), timeline_(new TimelineWidget(hub_)), over_time_(new OverTimeView(hub_)),
      trace_(new EventTracePanel(hub_, &backend_)), findings_(new FindingsPanel(hub_)), warnings_(new QListWidget),
      start_(new StartPage), load_bar_(new LoadBar) {
    setObjectName(QStringLiteral("StallScopeMainWindow"));
    setAcceptDrops(true);
    pages_->setDocumentMode(true);
    pages_->addTab(overview_, tr("&Overview"));
    pages_->addTab(calls_, tr("&Calls"));
    pages_->addTab(timeline_, tr("&Timeline"));
    pages_->addTab(over_time_, tr("O&ver time"));
    // The event trace needs the full width (the layout is ~960 px wide), so it
    // is a page, not a dock; evidence clicks and double-clicks bring it up.
    pages_->addTab(trace_, tr("&Event trace"));
    auto* analysis = analysis_ = new QWidget;   // a damaged capture's banner over the pages
    auto* central_layout = new QVBoxLayout(analysis);
    central_layout->setContentsMargins(0, 0, 0, 0);
    central_layout->setSpacing(0);
    central_layout->addWidget(new DamageBanner(hub_));
    central_layout->addWidget(pages_, 1);
    // The start page until a capture is open (and again if none is).
    stack_ = new QStackedWidget;
    stack_->addWidget(start_);
    stack_->addWidget(analysis);
    setCentralWidget(stack_);
    connect(hub_, &SelectionHub::resultChanged, this, [this, analysis](const ResultPtr& r) {
        stack_->setCurrentWidget(r ? analysis : static_cast<QWidget*>(start_));
        showDocks(r != nullptr);
    });
    // A load's first figures so far show on the Overview, over the start page if no capture is open.
    connect(overview_, &OverviewPage::partialShown, this, [this] {
        if (hub_->result()) return;
        stack_->setCurrentWidget(analysis_);
        pages_->setCurrentWidget(overview_);
    });
    connect(start_, &StartPage::openRequested, this, &MainWindow::openFile);
    connect(start_, &StartPage::openDialogRequested, this, &MainWindow::openDialog);

    auto dock = [this](QDockWidget*& d, const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
        d = new QDockWidget(title, this);
        d->setObjectName(name);   // saveState needs names
        d->setWidget(w);
        addDockWidget(area, d);
    };
    dock(findings_dock_, tr("Findings"), QStringLiteral("findingsDock"), findings_, Qt::BottomDockWidgetArea);
    dock(warnings_dock_, tr("Warnings"), QStringLiteral("warningsDock"), warnings_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(findings_dock_, warnings_dock_);
    findings_dock_->raise();

    // The timeline shows the calls the table's filter lets through.
    connect(calls_, &CallsPage::visibleCallsChanged, this, [this] {
        const bool all = calls_->proxy()->rowCount() == calls_->model()->rowCount();
        timeline_->setVisibleCalls(all ? std::unordered_set<uint64_t>{} : calls_->visibleCallIds(), all);
    });
    auto show_trace = [this] { pages_->setCurrentWidget(trace_); };
    connect(findings_->evidence(), &QListWidget::itemClicked, this, show_trace);
    connect(calls_->table(), &QAbstractItemView::doubleClicked, this, show_trace);
    connect(timeline_, &TimelineWidget::callActivated, this, show_trace);
    connect(over_time_, &OverTimeView::callActivated, this, show_trace);
    connect(runner_, &AnalysisRunner::finished, this, &MainWindow::onLoadFinished);
    connect(runner_, &AnalysisRunner::progress, this, &MainWindow::onProgress);
    connect(warnings_, &QListWidget::itemActivated, this, [this](QListWidgetItem* it) {
        if (quint64 frame = it->data(Qt::UserRole).toULongLong()) hub_->highlightFrame(frame);
    });

    buildMenus();
    statusBar()->showMessage(tr("Open a capture with Ctrl+O, or drop one on the window."));
    statusBar()->addPermanentWidget(load_bar_);
    connect(load_bar_, &LoadBar::cancelRequested, runner_, &AnalysisRunner::cancel);
    auto* esc = new QAction(this);   // Esc cancels a load, as the modal box's Cancel did
    esc->setShortcut(Qt::Key_Escape);
    esc->setShortcutContext(Qt::WindowShortcut);
    connect(esc, &QAction::triggered, this, [this] { if (runner_->busy()) runner_->cancel(); });
    addAction(esc);

    QSettings s;
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
        resize(std::min(1360, avail.width() * 9 / 10), std::min(860, avail.height() * 9 / 10));
        resizeDocks({findings_dock_}, {height() * 2 / 5}, Qt::Vertical);   // room for the fix
    }
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    showDocks(false);   // the start page needs no empty panes
    updateTitle();
    updateActions();
}

MainWindow::~MainWindow() = default;

QWidget* MainWindow::currentCentral() const { return stack_->currentWidget(); }

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addAction(tr("Open &Key Log…"), this, &MainWindow::openKeyLogDialog);
    QAction* reload = file->addAction(tr("Re&load"), this, [this] { if (!current_files_.isEmpty()) openFiles(current_files_); });
    reload->setShortcut(QKeySequence::Refresh);
    need_result_ << reload;
    file->addAction(tr("&Compare Captures…"), this, [this] { openCompareDialog(this, backend_); });
    start_->setCompareAvailable(true);
    connect(start_, &StartPage::compareRequested, this, [this] { openCompareDialog(this, backend_); });
    file->addSeparator();
    QMenu* exp = file->addMenu(tr("&Export"));
    QAction* e1 = exp->addAction(tr("&Event trace (SVG, PDF, PNG)…"), this, [this] { exportDialog(QStringLiteral("trace")); });
    e1->setShortcut(QKeySequence(tr("Ctrl+E")));
    QAction* e2 = exp->addAction(tr("&Timeline (SVG, PNG)…"), this, [this] { exportDialog(QStringLiteral("timeline")); });
    QAction* e3 = exp->addAction(tr("&Report (HTML, JSON, CSV)…"), this, [this] { exportDialog(QStringLiteral("report")); });
    e3->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    need_result_ << e1 << e2 << e3;
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QString names[] = {tr("&Overview"), tr("&Calls"), tr("&Timeline"), tr("O&ver Time"), tr("&Event Trace")};
    for (int i = 0; i < 5; ++i) {
        QAction* a = view->addAction(names[i], this, [this, i] { pages_->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
    }
    QAction* find = view->addAction(tr("&Filter calls…"), this, [this] { pages_->setCurrentWidget(calls_); calls_->focusFilter(); });
    find->setShortcut(QKeySequence::Find);
    view->addSeparator();
    view->addAction(findings_dock_->toggleViewAction());
    view->addAction(warnings_dock_->toggleViewAction());
    QAction* whole = view->addAction(tr("Event Trace of Whole &Connection"), this,
                                     [this] { trace_->setShowConnection(!trace_->showsConnection()); pages_->setCurrentWidget(trace_); });
    whole->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
    findings_dock_->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));
    view->addSeparator();
    // Zoom acts on the page shown if it zooms (timeline, over time, event trace), else on the timeline.
    enum class Zoom { In, Out, Fit };
    auto zoom = [this](Zoom z) {
        QWidget* page = pages_->currentWidget();
        if (page == over_time_) z == Zoom::In ? over_time_->zoomIn() : z == Zoom::Out ? over_time_->zoomOut() : over_time_->fitAll();
        else if (page == trace_) z == Zoom::In ? trace_->view()->zoomIn() : z == Zoom::Out ? trace_->view()->zoomOut() : trace_->view()->setFitWindow(true);
        else {
            pages_->setCurrentWidget(timeline_);
            z == Zoom::In ? timeline_->zoomIn() : z == Zoom::Out ? timeline_->zoomOut() : timeline_->fitAll();
        }
    };
    QAction* zin = view->addAction(tr("Zoom &In"), this, [zoom] { zoom(Zoom::In); });
    zin->setShortcut(QKeySequence::ZoomIn);
    QAction* zout = view->addAction(tr("Zoom O&ut"), this, [zoom] { zoom(Zoom::Out); });
    zout->setShortcut(QKeySequence::ZoomOut);
    QAction* zfit = view->addAction(tr("&Fit to Window"), this, [zoom] { zoom(Zoom::Fit); });
    zfit->setShortcut(QKeySequence(tr("Ctrl+0")));
    view->addSeparator();
    QMenu* theme = view->addMenu(tr("T&heme"));
    theme_group_ = new QActionGroup(this);
    const Theme current = themeFromString(QSettings().value(QStringLiteral("view/theme")).toString());
    for (auto [t, label] : {std::pair{Theme::System, tr("&System")}, std::pair{Theme::Light, tr("&Light")},
                            std::pair{Theme::Dark, tr("&Dark")}}) {
        QAction* a = theme->addAction(label, this, [this, t = t] { setTheme(t); });
        a->setCheckable(true);
        a->setChecked(t == current);
        a->setData(themeToString(t));
        theme_group_->addAction(a);
    }

    // Capture > Start... / Stop (app/gui/live): snapshots go to the views while
    // it runs; the final result is shown like an opened file (the pcapng).
    QMenu* capture = live::installCaptureMenu(this, menuBar(), nullptr,
                                              {[this](const ResultPtr& r) { showSnapshot(r); },
                                               [this](const LoadOutcome& o) { onLoadFinished(o); }});
    if (auto* start = capture->findChild<QAction*>(QStringLiteral("captureStartAction"))) {
        start_->setLiveAvailable(true);
        connect(start_, &StartPage::liveRequested, start, &QAction::trigger);
    }

    fillHelpMenu(menuBar()->addMenu(tr("&Help")), this);
}

bool MainWindow::saveScreenshots(const QString& prefix) {
    static const char* const kNames[] = {"overview", "calls", "timeline", "over-time", "event-trace", "page6", "page7"};
    const int keep = pages_->currentIndex();
    bool ok = true;
    for (int i = 0; i < pages_->count() && i < 7; ++i) {
        pages_->setCurrentIndex(i);
        QApplication::processEvents();
        ok = grab().save(QStringLiteral("%1-%2.png").arg(prefix, QString::fromLatin1(kNames[i]))) && ok;
    }
    pages_->setCurrentIndex(keep);
    return ok;
}

void MainWindow::setTheme(Theme t) {
    applyTheme(t);
    QSettings().setValue(QStringLiteral("view/theme"), themeToString(t));
    for (QAction* a : theme_group_->actions()) a->setChecked(a->data().toString() == themeToString(t));
}

void MainWindow::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange) overview_->refreshColors();
    QMainWindow::changeEvent(e);
}

void MainWindow::updateTitle() {
    // "file.pcap — StallScope", Wireshark's order. Ending in the application
    // display name keeps the platform from appending it a second time.
    // A file set is named by its first file and how many files it has.
    const size_t set_files = hub_->result() ? hub_->result()->capture.files.size() : 0;
    const QString name = set_files > 1 ? tr("%1 (file set of %2 files)").arg(QFileInfo(current_file_).fileName()).arg(set_files)
                                       : QFileInfo(current_file_).fileName();
    setWindowTitle(current_file_.isEmpty() ? QStringLiteral("StallScope") : QStringLiteral("%1 \u2014 StallScope").arg(name));
}

void MainWindow::updateActions() {
    for (QAction* a : need_result_) a->setEnabled(hub_->result() != nullptr);
}

void MainWindow::openDialog() {
    QSettings s;
    const QString dir = s.value(QStringLiteral("open/dir")).toString();
    // Several files chosen together are one file set (the first of a ring brings the rest).
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open capture or file set"), dir,
                                                            tr("Captures (*.pcap *.pcapng *.cap *.dmp *.gz);;All files (*)"));
    if (paths.isEmpty()) return;
    s.setValue(QStringLiteral("open/dir"), QFileInfo(paths.front()).absolutePath());
    openFiles(paths);
}

// TLS secrets in the NSS key log format (SSLKEYLOGFILE): HTTPS in this and
// later captures is decrypted and analysed like plaintext. The capture open
// now is analysed again with it.
void MainWindow::openKeyLogDialog() {
    QSettings s;
    const QString dir = s.value(QStringLiteral("keylog/dir")).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open TLS key log"), dir,
                                                      tr("Key logs (*.keys *.log *.txt);;All files (*)"));
    if (path.isEmpty()) return;
    s.setValue(QStringLiteral("keylog/dir"), QFileInfo(path).absolutePath());
    setKeyLog(path);
}

void MainWindow::setKeyLog(const QString& path) {
    runner_->setKeyLog(path);
    statusBar()->showMessage(tr("TLS key log: %1").arg(QFileInfo(path).fileName()));
    if (!current_files_.isEmpty()) openFiles(current_files_);
}

void MainWindow::openFile(const QString& path) { openFiles(QStringList{path}); }

void MainWindow::openFiles(const QStringList& paths) {
    if (paths.isEmpty()) return;
    const QString path = paths.front();
    loading_file_ = path;
    last_error_.clear();
    runner_->start(paths);
    load_bar_->start(paths.size() > 1 ? tr("%1 and %n more file(s)", nullptr, int(paths.size() - 1)).arg(QFileInfo(path).fileName())
                                      : QFileInfo(path).fileName(),
                     runner_->counters());
    overview_->startPartial(QFileInfo(path).fileName(), runner_->counters());
    statusBar()->clearMessage();   // the load bar says it
}

void MainWindow::onProgress(double fraction, quint64 packets) {
    load_bar_->setProgress(fraction, packets);
    overview_->setLoadProgress(fraction, packets);
}

void MainWindow::showError(const QString& title, const QString& text) {
    last_error_ = text;
    // Non-blocking (open(), not exec()): the event loop keeps running, and
    // offscreen tests are not stuck on a modal box.
    auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::onLoadFinished(const LoadOutcome& out) {
    load_bar_->finish();
    // The figures so far go: replaced by the result, or (cancelled, failed) by what was open before.
    const bool loaded = out.ok && !out.cancelled && out.result;
    overview_->stopPartial(!loaded);
    if (!loaded) stack_->setCurrentWidget(hub_->result() ? analysis_ : static_cast<QWidget*>(start_));
    if (out.cancelled) {
        statusBar()->showMessage(tr("Cancelled loading %1").arg(out.path), 8000);
        releaseFreedMemory();
        emit loadFinished(false);
        return;
    }
    if (!out.ok || !out.result) {
        statusBar()->showMessage(tr("Could not open %1").arg(out.path), 8000);
        showError(tr("Cannot open capture"),
                  tr("StallScope could not analyse this file.\n\n%1").arg(out.error.isEmpty() ? out.path : out.error));
        emit loadFinished(false);
        return;
    }
    current_file_ = out.path;
    current_files_ = out.paths.isEmpty() ? QStringList{out.path} : out.paths;
    addRecentFile(out.path);   // a ring's first file reopens its whole set
    if (QFileInfo::exists(out.path))   // File > Open starts where the last capture came from
        QSettings().setValue(QStringLiteral("open/dir"), QFileInfo(out.path).absolutePath());
    // Opened by the user (not a live capture's final file): the capture log was another file's.
    if (out.path == loading_file_) hideCaptureLog();
    showWarnings(out.result->capture.warnings);
    hub_->setResult(out.result);
    updateTitle();
    updateActions();
    const auto& r = *out.result;
    statusBar()->showMessage(tr("%1: %2, %3 on %4, %5, %6")
                                 .arg(QFileInfo(out.path).fileName(), countNoun(r.capture.packets, tr("packet"), tr("packets")),
                                      countNoun(r.callCount(), tr("call"), tr("calls")),
                                      countNoun(r.connectionCount(), tr("connection"), tr("connections")),
                                      countNoun(r.findingCount(), tr("finding"), tr("findings")),
                                      countNoun(r.capture.warnings.size(), tr("warning"), tr("warnings"))));
    // A damaged file is analysed up to the damage: say so where the CLI says it (its one warning line).
    if (r.capture.truncated && !r.capture.damage.message.empty())
        statusBar()->showMessage(statusBar()->currentMessage() +
                                 tr(" \u2014 damaged: %1").arg(QString::fromStdString(r.capture.damage.message)));
    if (r.findingCount() > 0) {
        size_t best = 0;   // the costliest stall (time lost, not server processing): the first thing worth looking at
        auto rank = [&r](size_t i) { return std::pair(r.isStall(r.findingKey(i)), r.findingKey(i).counted_ms); };
        for (size_t i = 1; i < r.findingCount(); ++i)
            if (rank(i) > rank(best)) best = i;
        hub_->selectFinding(int(best));
    } else if (r.callCount() > 0) {
        hub_->selectCall(r.callKey(0).id);
    }
    releaseFreedMemory();   // the result this one replaced
    emit loadFinished(true);
}

// The panes hide behind the start page and come back as they were.
void MainWindow::showDocks(bool on) {
    if (on == docks_shown_) return;
    QDockWidget* docks[] = {findings_dock_, warnings_dock_};
    for (size_t i = 0; i < 2; ++i) {
        if (!on) dock_was_visible_[i] = !docks[i]->isHidden();   // a tab behind another is not hidden
        docks[i]->setVisible(on && dock_was_visible_[i]);
    }
    if (on) findings_dock_->raise();
    docks_shown_ = on;
}

void MainWindow::showWarnings(const std::vector<Warning>& warnings) {
    warnings_->clear();
    for (const Warning& w : warnings) {
        QString text = QString::fromStdString(w.message);
        if (w.frame && !warning_text_names_frame(w.code)) text = tr("frame %1: %2").arg(w.frame).arg(text);
        auto* item = new QListWidgetItem(text, warnings_);
        item->setData(Qt::UserRole, QVariant::fromValue<quint64>(w.frame));
    }
    warnings_dock_->setWindowTitle(warnings.empty() ? tr("Warnings") : tr("Warnings (%1)").arg(warnings.size()));
}

// A live capture's snapshot replaces whatever file was open: nothing of it
// (title, warnings) may stay beside the capture's numbers.
void MainWindow::showSnapshot(const ResultPtr& r) {
    if (!current_file_.isEmpty()) {
        current_file_.clear();
        updateTitle();
    }
    showWarnings(r ? r->capture.warnings : std::vector<Warning>{});
    hub_->setResult(r);
    updateActions();
}

void MainWindow::hideCaptureLog() {
    auto* dock = findChild<QDockWidget*>(QStringLiteral("captureLogDock"));
    if (!dock || dock->isHidden()) return;
    if (auto* log = qobject_cast<QPlainTextEdit*>(dock->widget())) log->clear();
    dock->hide();
}

QStringList MainWindow::recentFiles() const { return QSettings().value(QStringLiteral("recentFiles")).toStringList(); }

void MainWindow::addRecentFile(const QString& path) {
    QStringList l = recentFiles();
    const QString abs = QFileInfo(path).absoluteFilePath();
    l.removeAll(abs);
    l.prepend(abs);
    while (l.size() > kMaxRecent) l.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), l);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recent_menu_->clear();
    const QStringList l = recentFiles();
    for (int i = 0; i < l.size(); ++i) {
        QAction* a = recent_menu_->addAction(QStringLiteral("&%1 %2").arg((i + 1) % 10).arg(QFileInfo(l[i]).fileName()),
                                             this, [this, p = l[i]] { openFile(p); });
        a->setToolTip(l[i]);
        a->setStatusTip(l[i]);
    }
    if (!l.isEmpty()) {
        recent_menu_->addSeparator();
        recent_menu_->addAction(tr("&Clear list"), this, [this] {
            QSettings().remove(QStringLiteral("recentFiles"));
            rebuildRecentMenu();
        });
    }
    recent_menu_->setEnabled(!l.isEmpty());
    start_->setRecentFiles(l);
}

void MainWindow::cancelLoad() { runner_->cancel(); }
void MainWindow::setSpillAfterCalls(size_t n) { runner_->setSpillAfterCalls(n); }

void MainWindow::closeEvent(QCloseEvent* e) {
    showDocks(true);   // the saved layout is the panes' own, not the start page's
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    runner_->cancel();
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls())
        for (const QUrl& u : e->mimeData()->urls())
            if (u.isLocalFile()) { e->acceptProposedAction(); return; }
}

void MainWindow::dropEvent(QDropEvent* e) {
    QStringList files;
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) files << u.toLocalFile();
    if (files.isEmpty()) return;
    e->acceptProposedAction();
    openDroppedFiles(files);
}

void MainWindow::openDroppedFiles(const QStringList& files) {
    const DroppedFilesPlan plan = planDroppedFiles(files, backend_.file_set_of);
    if (plan.action == DroppedFilesPlan::Action::Compare) {
        auto* w = new CompareWindow(backend_);
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->show();
        w->load(plan.before, plan.after);
        statusBar()->showMessage(tr("Comparing %1 (before) with %2 (after)")
                                     .arg(QFileInfo(plan.before).fileName(), QFileInfo(plan.after).fileName()), 8000);
        return;
    }
    if (plan.action == DroppedFilesPlan::Action::Open) openFiles(plan.files);
}

void MainWindow::exportDialog(const QString& what) {
    QString filter, def;
    const QString base = QFileInfo(current_file_).completeBaseName();
    if (what == QLatin1String("trace")) {
        filter = tr("SVG (*.svg);;PDF (*.pdf);;PNG (*.png)");
        def = base + (hub_->selectedCall() && !trace_->showsConnection() ? QStringLiteral("-call%1.svg").arg(hub_->selectedCall())
                                                                         : QStringLiteral("-conn%1.svg").arg(hub_->selectedConnection()));
    } else if (what == QLatin1String("timeline")) {
        filter = tr("SVG (*.svg);;PNG (*.png)");
        def = base + QStringLiteral("-timeline.svg");
    } else {
        filter = tr("HTML (*.html);;JSON (*.json);;CSV (*.csv)");
        def = base + QStringLiteral("-report.html");
    }
    QSettings s;
    const QString dir = s.value(QStringLiteral("export/dir"), QFileInfo(current_file_).absolutePath()).toString();
    QString selected;
    QString path = QFileDialog::getSaveFileName(this, tr("Export"), dir + QLatin1Char('/') + def, filter, &selected);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) {   // take the suffix from the chosen filter
        const int a = selected.indexOf(QStringLiteral("*.")), b = selected.indexOf(QLatin1Char(')'), a);
        if (a >= 0 && b > a) path += selected.mid(a + 1, b - a - 1);
    }
    s.setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    QString error;
    FigureSettings fig;
    if (what == QLatin1String("trace") && !askFigureSettings(this, fig)) return;
    bool ok = what == QLatin1String("trace") ? exportFigure(path, fig, &error)
            : what == QLatin1String("timeline") ? exportTimeline(path, &error) : exportReport(path, &error);
    if (ok) statusBar()->showMessage(tr("Exported %1").arg(path), 8000);
    else showError(tr("Export failed"), error);
}

// Qt drawing of an event trace, for builds without the cairo exporters.
static bool paintToFile(const QString& path, const QString& fmt, QSize size, const std::function<void(QPainter&)>& draw,
                        QString* error) {
    if (fmt == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setResolution(96);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        QPainter p(&gen);
        p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
        draw(p);
        if (p.end() && QFileInfo(path).size() > 0) return true;
        *error = QObject::tr("cannot write %1").arg(path);
        return false;
    }
    if (fmt == QLatin1String("pdf")) {
        QPdfWriter w(path);
        w.setResolution(96);
        w.setPageSize(QPageSize(QSizeF(size.width() * 25.4 / 96, size.height() * 25.4 / 96), QPageSize::Millimeter));
        w.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter p;
        if (!p.begin(&w)) { *error = QObject::tr("cannot write %1").arg(path); return false; }
        draw(p);
        return p.end();
    }
    QImage img(size * 2, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    {
        QPainter p(&img);
        p.scale(2, 2);
        draw(p);
    }
    if (!img.save(path, "PNG")) { *error = QObject::tr("cannot write %1").arg(path); return false; }
    return true;
}

bool MainWindow::exportEventTrace(const QString& path, QString* error) {
    const QString fmt = suffixOf(path);
    const EventTraceLayout& l = trace_->currentLayout();
    if (fmt != QLatin1String("svg") && fmt != QLatin1String("pdf") && fmt != QLatin1String("png")) {
        *error = tr("Unknown format “%1”: use .svg, .pdf or .png").arg(fmt);
        return false;
    }
    if (l.arrows.empty()) {
        *error = tr("Select a call (or connection) with segments first.");
        return false;
    }
    if (backend_.export_trace) {
        std::string err;
        if (backend_.export_trace(l, path.toStdString(), fmt.toStdString(), err)) return true;
        *error = QString::fromStdString(err);
        return false;
    }
    return paintToFile(path, fmt, QSize(int(l.width), int(l.height)),
                       [&](QPainter& p) { paintEventTrace(p, l, {false, 0}); }, error);
}

bool MainWindow::exportFigure(const QString& path, const FigureSettings& fs, QString* error) {
    const QString fmt = suffixOf(path);
    const ResultPtr& r = hub_->result();
    if (!backend_.figure_trace || !backend_.export_figure || !backend_.figure_scale || !r || !hub_->selectedCall())
        return exportEventTrace(path, error);
    if (fmt != QLatin1String("svg") && fmt != QLatin1String("pdf") && fmt != QLatin1String("png")) {
        *error = tr("Unknown format “%1”: use .svg, .pdf or .png").arg(fmt);
        return false;
    }
    EventTraceOptions o;
    o.linear_time = fs.linear_time;
    o.width = std::clamp(fs.width, 480.0, 4000.0);
    o.highlight_evidence = fs.highlight;
    EventTraceLayout l;
    std::string err;
    const double scale = backend_.figure_scale(o.width, fs.page.toStdString(), fmt.toStdString(), fs.dpi);
    const auto call = hub_->call(hub_->selectedCall());
    const AnalysisResult slice =
        call ? r->slice(call->connection_id, trace_->showsConnection() ? 0 : call->id) : AnalysisResult{};
    if (!backend_.figure_trace(slice, hub_->selectedCall(), trace_->showsConnection(), o, l, err) ||
        !backend_.export_figure(l, path.toStdString(), fmt.toStdString(), scale > 0 ? scale : 1, err)) {
        *error = QString::fromStdString(err);
        return false;
    }
    return true;
}

bool MainWindow::exportTimeline(const QString& path, QString* error) {
    const QString fmt = suffixOf(path);
    if (!hub_->result()) { *error = tr("Open a capture first."); return false; }
    if (fmt != QLatin1String("svg") && fmt != QLatin1String("png")) {
        *error = tr("Unknown format “%1”: use .svg or .png").arg(fmt);
        return false;
    }
    if (backend_.export_timeline && !hub_->result()->spilled()) {   // the exporter reads calls in memory
        std::string err;
        if (backend_.export_timeline(*hub_->result(), path.toStdString(), fmt.toStdString(), err)) return true;
        *error = QString::fromStdString(err);
        return false;
    }
    const QSize size = timeline_->exportSize(1400);
    return paintToFile(path, fmt, size, [&](QPainter& p) { timeline_->renderAll(p, size.width()); }, error);
}

bool MainWindow::exportReport(const QString& path, QString* error) {
    const QString fmt = suffixOf(path);
    if (!hub_->result()) { *error = tr("Open a capture first."); return false; }
    std::function<std::string(const AnalysisResult&)> writer;
    if (fmt == QLatin1String("html") || fmt == QLatin1String("htm")) writer = backend_.report_html;
    else if (fmt == QLatin1String("json")) writer = backend_.report_json;
    else if (fmt == QLatin1String("csv")) writer = backend_.report_csv;
    else { *error = tr("Unknown format “%1”: use .html, .json or .csv").arg(fmt); return false; }
    if (!writer) { *error = tr("This build cannot write %1 reports.").arg(fmt.toUpper()); return false; }
    const std::string text = writer(*hub_->result());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text.data(), qint64(text.size())) != qint64(text.size())) {
        *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

} // namespace stallscope::gui
