#pragma once
// Capture > Start... / Stop for the main window: the dialog, a controller
// running the capture on a worker thread, a "Capture log" dock with the
// commands' output, and status-bar updates. The window only says how to
// show a snapshot and the final result (so this needs nothing private).
#include "app/gui/analysis_snapshot.h"

#include <functional>

class QMainWindow;
class QMenu;
class QMenuBar;
class QAction;

namespace stallscope::gui::live {

class LiveCaptureController;

struct CaptureMenuHooks {
    std::function<void(const ResultPtr&)> showSnapshot;  // a few times a second while capturing
    std::function<void(const LoadOutcome&)> showFinal;   // once, with the written pcapng as path
};

// Inserts the Capture menu before `before` (nullptr: at the end). The
// returned menu and everything it owns are children of window.
QMenu* installCaptureMenu(QMainWindow* window, QMenuBar* bar, QAction* before, CaptureMenuHooks hooks);
// The controller behind a menu made by installCaptureMenu (for tests).
LiveCaptureController* captureController(QMenu* captureMenu);

} // namespace stallscope::gui::live
