#include "app/gui/live/live_capture_menu.h"

#include "app/gui/live/capture_dialog.h"
#include "app/gui/live/live_capture_controller.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStatusBar>

namespace stallscope::gui::live {

namespace {

QString toolkitDir() {
#ifdef STALLSCOPE_SOURCE_DIR
    return QStringLiteral(STALLSCOPE_SOURCE_DIR "/reference-services/toolkits");
#else
    return QString();
#endif
}

} // namespace

QMenu* installCaptureMenu(QMainWindow* w, QMenuBar* bar, QAction* before, CaptureMenuHooks hooks) {
    auto* menu = new QMenu(QObject::tr("&Capture"), w);
    menu->setObjectName(QStringLiteral("captureMenu"));
    if (before) bar->insertMenu(before, menu);
    else bar->addMenu(menu);
    auto* controller = new LiveCaptureController(menu);
    controller->setObjectName(QStringLiteral("liveCaptureController"));
    QAction* start = menu->addAction(QObject::tr("&Start…"));
    start->setObjectName(QStringLiteral("captureStartAction"));
    QAction* stop = menu->addAction(QObject::tr("S&top"));
    stop->setObjectName(QStringLiteral("captureStopAction"));
    stop->setEnabled(false);

    auto* log = new QPlainTextEdit;
    log->setReadOnly(true);
    log->setMaximumBlockCount(5000);
    log->setLineWrapMode(QPlainTextEdit::NoWrap);  // one output line per line
    auto* dock = new QDockWidget(QObject::tr("Capture log"), w);
    dock->setObjectName(QStringLiteral("captureLogDock"));
    dock->setWidget(log);
    w->addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();
    menu->addSeparator();
    menu->addAction(dock->toggleViewAction());

    auto hooksPtr = std::make_shared<CaptureMenuHooks>(std::move(hooks));
    QObject::connect(start, &QAction::triggered, w, [=] {
        CaptureDialog dlg(CaptureDialog::defaultBinDir(), toolkitDir(), w);
        if (dlg.exec() != QDialog::Accepted) return;
        const LiveCaptureConfig cfg = dlg.config();
        log->clear();
        if (dock->isHidden()) {
            dock->show();
            w->resizeDocks({dock}, {w->width() * 2 / 5}, Qt::Horizontal);
        }
        dock->raise();
        log->appendPlainText(QObject::tr("capture on %1, filter '%2', into %3").arg(cfg.iface, cfg.filter, cfg.outPath));
        QString err;
        if (!controller->start(cfg, &err)) {
            QMessageBox::warning(w, QObject::tr("Cannot start capture"), err);
            return;
        }
        start->setEnabled(false);
        stop->setEnabled(true);
        w->statusBar()->showMessage(QObject::tr("Starting capture on %1…").arg(cfg.iface));
    });
    QObject::connect(stop, &QAction::triggered, controller, &LiveCaptureController::stop);
    QObject::connect(controller, &LiveCaptureController::capturing, w, [=] {
        w->statusBar()->showMessage(QObject::tr("Capturing on %1…").arg(controller->config().iface));
    });
    QObject::connect(controller, &LiveCaptureController::snapshot, w, [=](const ResultPtr& r, const QString& status) {
        if (!controller->isRunning()) return;  // a late snapshot after the final result
        if (hooksPtr->showSnapshot) hooksPtr->showSnapshot(r);
        w->statusBar()->showMessage(QObject::tr("Capturing: %1").arg(status));
    });
    QObject::connect(controller, &LiveCaptureController::output, w, [=](const QString& label, const QString& line) {
        log->appendPlainText(QStringLiteral("[%1] %2").arg(label, line));
    });
    QObject::connect(controller, &LiveCaptureController::message, w,
                     [=](const QString& m) { log->appendPlainText(m); });
    QObject::connect(controller, &LiveCaptureController::finished, w, [=](const ResultPtr& r, bool ok, const QString& summary) {
        start->setEnabled(true);
        stop->setEnabled(false);
        log->appendPlainText(summary);
        if (r && hooksPtr->showFinal) {
            LoadOutcome o;
            o.path = controller->config().outPath;
            o.ok = true;
            o.result = r;
            hooksPtr->showFinal(o);
        }
        w->statusBar()->showMessage(summary.section(QLatin1Char('\n'), 0, 0), 15000);
        if (!r) QMessageBox::warning(w, QObject::tr("Cannot capture"), summary);
        else if (!ok) QMessageBox::warning(w, QObject::tr("Capture finished with errors"),
                                           QObject::tr("%1\n\nSee the capture log for details.").arg(summary));
    });
    return menu;
}

LiveCaptureController* captureController(QMenu* menu) {
    return menu ? menu->findChild<LiveCaptureController*>(QStringLiteral("liveCaptureController")) : nullptr;
}

} // namespace stallscope::gui::live
