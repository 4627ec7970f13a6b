#include "app/gui/wireshark_link.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileInfo>
#include <QMenu>
#include <QProcess>
#include <QStandardPaths>

namespace stallscope::gui {

QString wiresharkExecutable() { return QStandardPaths::findExecutable(QStringLiteral("wireshark")); }

QString callDisplayFilter(quint64 call_id) { return QStringLiteral("stallscope.call == %1").arg(call_id); }
QString frameDisplayFilter(quint64 frame) { return QStringLiteral("frame.number == %1").arg(frame); }

WiresharkTarget wiresharkTarget(const CaptureInfo& capture, quint64 frame) {
    if (capture.files.empty() || frame == 0) return {QString::fromStdString(capture.file), frame};
    uint32_t file = 0;
    uint64_t file_frame = 0;
    if (!locate_frame(capture, frame, file, file_frame) || file >= capture.files.size()) return {};
    return {QString::fromStdString(capture.files[file].path), file_frame};
}

QString frameLocationText(const CaptureInfo& capture, quint64 frame) {
    if (capture.files.empty()) return {};
    const WiresharkTarget t = wiresharkTarget(capture, frame);
    if (t.file.isEmpty()) return QObject::tr("in no file of the set");
    return QObject::tr("%1 frame %2").arg(QFileInfo(t.file).fileName()).arg(t.frame);
}

QStringList wiresharkArguments(const QString& capture, quint64 frame) {
    QStringList args{QStringLiteral("-r"), capture};
    if (frame) args << QStringLiteral("-g") << QString::number(frame);
    return args;
}

bool openInWireshark(const QString& capture, quint64 frame) {
    const QString exe = wiresharkExecutable();
    if (exe.isEmpty() || capture.isEmpty()) return false;
    return QProcess::startDetached(exe, wiresharkArguments(capture, frame));
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

void addWiresharkActions(QMenu* menu, const CaptureInfo& capture, quint64 frame, const QString& filter) {
    const WiresharkTarget t = wiresharkTarget(capture, frame);
    addWiresharkActions(menu, t.file, t.frame, filter);
    if (capture.files.empty() || t.file.isEmpty()) return;
    // A file set: say which of its files opens (Wireshark numbers frames per file).
    for (QAction* a : menu->actions())
        if (a->objectName() == QLatin1String("openInWireshark"))
            a->setText(a->text() + QObject::tr(" of %1").arg(QFileInfo(t.file).fileName()));
}

} // namespace stallscope::gui
