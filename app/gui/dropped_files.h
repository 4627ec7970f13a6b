#pragma once
// What several capture files given at once mean (dropped on the window, or
// chosen together in File > Open): the files of one file set open as one
// capture (issue 24); two captures that are no file set of each other are a
// before/after pair for the Compare window (issue 27).
#include <QStringList>

#include <functional>
#include <string>
#include <vector>

namespace stallscope::gui {

struct DroppedFilesPlan {
    enum class Action { Nothing, Open, Compare } action = Action::Nothing;
    QStringList files;       // Open: one capture or one file set's files, in the order given
    QString before, after;   // Compare: the older file (by modification time, then name) is BEFORE
};

// `file_set_of` gives the files of the set a path belongs to, found by name
// (GuiBackend::file_set_of; unbound: each file is a set of its own). One
// file opens; two files open as one set when either one's set holds the
// other, else they are compared; three or more open as one set.
DroppedFilesPlan planDroppedFiles(const QStringList& files,
                                  const std::function<std::vector<std::string>(const std::string&)>& file_set_of);

} // namespace stallscope::gui
