#include "app/gui/wireshark_link.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QProcess>
#include <QStandardPaths>

namespace stallscope::gui {

QString wiresharkExecutable() { return QStandardPaths::findExecutable(QStringLiteral("wireshark")); }

QString callDisplayFilter(quint64 call_id) { return QStringLiteral("stallscope.call == %1").arg(call_id); }
QString frameDisplayFilter(quint64 frame) { return QStringLiteral("frame.number == %1").arg(frame); }

bool openInWireshark(const QString& capture, quint64 frame) {
    const QString exe = wiresharkExecutable();
    if (exe.isEmpty() || capture.isEmpty()) return false;
    QStringList args{QStringLiteral("-r"), capture};
    if (frame) args << QStringLiteral("-g") << QString::number(frame);
    return QProcess::startDetached(exe, args);
}

void addWiresharkActions(QMenu* menu, const QString& capture, quint64 frame, const QString& filter) {
    const bool have = !wiresharkExecutable().isEmpty();
    QAction* open = menu->addAction(frame ? QObject::tr("Open in Wireshark at Frame %1").arg(frame)
                                          : QObject::tr("Open in Wireshark"),
                                    menu, [capture, frame] { openInWireshark(capture, frame); });
    open->setObjectName(QStringLiteral("openInWireshark"));
    open->setEnabled(have && !capture.isEmpty());
    if (!have) open->setText(open->text() + QObject::tr(" (wireshark is not on PATH)"));
    QAction* copy = menu->addAction(QObject::tr("Copy Display Filter “%1”").arg(filter), menu,
                                    [filter] { QApplication::clipboard()->setText(filter); });
    copy->setObjectName(QStringLiteral("copyDisplayFilter"));
}

} // namespace stallscope::gui
