#pragma once
// Qt Charts follow the application palette: background, title, axis labels,
// axis titles and grid lines (ChartTheme alone leaves a white plot and dark
// text on a dark window).
class QChart;
class QColor;

namespace stallscope::gui {

// Colours every bar set and scatter/line series with `series_color` when it is valid.
void themeChart(QChart* chart, const QColor& series_color);

} // namespace stallscope::gui
