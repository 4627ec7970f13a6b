#include "app/gui/theme.h"

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
    // Cool colours for the client's sending, warm for the server's, grey for
    // connection setup; stalls (red) must stand out against all of them.
    QColor c;
    switch (k) {
    case PhaseKind::Connect: c = QColor(0x9e, 0x9e, 0x9e); break;
    case PhaseKind::RequestHeaders: c = QColor(0x42, 0x85, 0xf4); break;
    case PhaseKind::ContinueWait: c = QColor(0xab, 0x47, 0xbc); break;
    case PhaseKind::RequestBody: c = QColor(0x26, 0xa6, 0x9a); break;
    case PhaseKind::ServerTime: c = QColor(0xff, 0xb3, 0x00); break;
    case PhaseKind::ResponseHeaders: c = QColor(0x7c, 0xb3, 0x42); break;
    case PhaseKind::ResponseBody: c = QColor(0x43, 0xa0, 0x47); break;
    case PhaseKind::Close: c = QColor(0x78, 0x90, 0x9c); break;
    case PhaseKind::TlsHandshake: c = QColor(0x8d, 0x6e, 0xb0); break;
    }
    return dark ? c.darker(115) : c;
}

QColor stallColor(bool dark) { return dark ? QColor(0xff, 0x55, 0x55) : QColor(0xd3, 0x2f, 0x2f); }

QColor selectionColor(bool dark) { return dark ? QColor(0x3d, 0x7a, 0xd6, 90) : QColor(0x42, 0x85, 0xf4, 60); }

} // namespace stallscope::gui
