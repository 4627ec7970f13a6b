#pragma once
// Light and dark palettes, and the colours the views share (phases, stalls).
#include "analyzers/result/model.h"

#include <QColor>
#include <QString>

class QApplication;

namespace stallscope::gui {

enum class Theme { System, Light, Dark };

Theme themeFromString(const QString& s);   // "light" | "dark" | anything else = System
QString themeToString(Theme t);
void applyTheme(Theme t);                  // Fusion style + palette on qApp
bool isDarkPalette();                      // from the current application palette

QColor phaseColor(PhaseKind k, bool dark);
QColor stallColor(bool dark);              // stalls share one loud colour
QColor selectionColor(bool dark);

} // namespace stallscope::gui
