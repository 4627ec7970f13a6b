#include "app/gui/chart_theme.h"

#include "app/gui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>

namespace stallscope::gui {

void themeChart(QChart* chart, const QColor& series_color) {
    if (!chart) return;
    const QPalette pal = QApplication::palette();
    const bool dark = isDarkPalette();
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);   // resets the colours below
    const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(dark ? 50 : 40);
    chart->setBackgroundBrush(base);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis* a : chart->axes()) {
        a->setLabelsBrush(text);
        a->setLabelsColor(text);
        a->setTitleBrush(text);
        a->setLinePenColor(pal.color(QPalette::Mid));
        a->setGridLineColor(grid);
    }
    if (!series_color.isValid()) return;
    for (auto* s : chart->series())
        if (auto* bars = qobject_cast<QBarSeries*>(s))
            for (auto* set : bars->barSets()) set->setColor(series_color);
}

} // namespace stallscope::gui
