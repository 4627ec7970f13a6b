#pragma once
// Wireshark habits: open the capture in Wireshark at a frame, and the
// display filter that selects a call or a frame (the plugin's fields).
#include <QString>

class QMenu;
class QWidget;

namespace stallscope::gui {

QString wiresharkExecutable();                       // "" when not on PATH
QString callDisplayFilter(quint64 call_id);          // "stallscope.call == 12"
QString frameDisplayFilter(quint64 frame);           // "frame.number == 25"
// `wireshark -r FILE -g FRAME`, detached. False when it could not start.
bool openInWireshark(const QString& capture, quint64 frame);

// Adds "Open in Wireshark at Frame N" (disabled, with the reason, when
// Wireshark is not installed) and "Copy Display Filter" to a menu.
void addWiresharkActions(QMenu* menu, const QString& capture, quint64 frame, const QString& filter);

} // namespace stallscope::gui
