#pragma once
// Where the documentation is, for Help and for each finding's "about this
// kind" link: $STALLSCOPE_DOCS, docs/ next to an installed app, else the
// source tree this app was built from.
#include <QString>
#include <QUrl>

class QMenu;
class QWidget;

namespace stallscope::gui {

QString docsDir();                                   // "" when none is found
QUrl docUrl(const QString& page);                    // "cli.md", "detectors/split_write.md"
QUrl detectorDocUrl(const std::string& kind);        // empty when that kind has no page
QString shortcutsHtml();                             // the keyboard shortcut list

// Help menu: docs, detector pages, shortcuts, About (with the version), About Qt.
void fillHelpMenu(QMenu* help, QWidget* parent);

} // namespace stallscope::gui
