#include "app/gui/theme.h"

#include "analyzers/diagram/diagram_style.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace stallscope::gui {

Theme themeFromString(const QString& s) {
    if (s == QLatin1String("light")) return Theme::Light;
    if (s == QLatin1String("dark")) return Theme::Dark;
    return Theme::System;
}

QString themeToString(Theme t) {
    switch (t) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    default: return QStringLiteral("system");
    }
}

static QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8a, 0x8a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Mid, QColor(0x45, 0x48, 0x4e));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Light, QColor(0x50, 0x53, 0x59));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    return p;
}

void applyTheme(Theme t) {
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (t == Theme::Dark)
        QApplication::setPalette(darkPalette());
    else
        QApplication::setPalette(QApplication::style()->standardPalette());
}

bool isDarkPalette() { return QApplication::palette().color(QPalette::Window).lightness() < 128; }

QColor phaseColor(PhaseKind k, bool dark) {
    // The exported figures' palette (analyzers/diagram/diagram_style.h), so
    // screen and export match: cool for the client's sending, green for the
    // server's, neutral for server processing and setup; stalls (red) stand
    // out against all of them.
    const style::Rgb c = style::phase_colour(k);
    const QColor q = QColor::fromRgbF(float(c.r), float(c.g), float(c.b));
    return dark ? q.darker(115) : q;
}

QColor stallColor(bool dark) { return dark ? QColor(0xff, 0x55, 0x55) : QColor(0xd3, 0x2f, 0x2f); }

QColor selectionColor(bool dark) { return dark ? QColor(0x3d, 0x7a, 0xd6, 90) : QColor(0x42, 0x85, 0xf4, 60); }

} // namespace stallscope::gui
