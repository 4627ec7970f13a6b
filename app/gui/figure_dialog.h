#pragma once
// The figure options asked before exporting an event trace: time axis,
// layout width, page width, PNG resolution, evidence highlight. The same
// choices as stallscope-cli export (docs/cli.md); remembered in the settings.
class QWidget;

namespace stallscope::gui {

struct FigureSettings;

// Fills `s` (starting from the last choices); false when cancelled.
bool askFigureSettings(QWidget* parent, FigureSettings& s);

} // namespace stallscope::gui
