#pragma once
// Wireshark habits: open the capture in Wireshark at a frame, and the
// display filter that selects a call or a frame (the plugin's fields).
#include "analyzers/result/model.h"

#include <QString>
#include <QStringList>

class QMenu;
class QWidget;

namespace stallscope::gui {

// Where Wireshark finds capture frame `frame`: the capture's file and the
// frame itself, or for a file set (numbered across its files) the file that
// holds it and its number there. file is "" when no file holds it.
struct WiresharkTarget {
    QString file;
    quint64 frame = 0;
};
WiresharkTarget wiresharkTarget(const CaptureInfo& capture, quint64 frame);
// For a file set, "run_00002_....pcap frame 4" (where Wireshark shows it); "" for one file.
QString frameLocationText(const CaptureInfo& capture, quint64 frame);
// `-r FILE [-g FRAME]`: what openInWireshark starts wireshark with.
QStringList wiresharkArguments(const QString& capture, quint64 frame);

QString wiresharkExecutable();                       // "" when not on PATH
QString callDisplayFilter(quint64 call_id);          // "stallscope.call == 12"
QString frameDisplayFilter(quint64 frame);           // "frame.number == 25"
// `wireshark -r FILE -g FRAME`, detached. False when it could not start.
bool openInWireshark(const QString& capture, quint64 frame);

// Adds "Open in Wireshark at Frame N" (disabled, with the reason, when
// Wireshark is not installed) and "Copy Display Filter" to a menu.
void addWiresharkActions(QMenu* menu, const QString& capture, quint64 frame, const QString& filter);
// The same for capture frame `frame` of an analysed capture: the file of a
// set that holds it, at its frame there. frame 0: the (first) file, no frame.
void addWiresharkActions(QMenu* menu, const CaptureInfo& capture, quint64 frame, const QString& filter);

} // namespace stallscope::gui
