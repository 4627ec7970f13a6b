#include "app/gui/dropped_files.h"

#include <QDateTime>
#include <QFileInfo>

#include <algorithm>

namespace stallscope::gui {

namespace {
// Whether `other` is among the files of the set `path` belongs to.
bool inSetOf(const QString& path, const QString& other,
             const std::function<std::vector<std::string>(const std::string&)>& file_set_of) {
    if (!file_set_of) return false;
    const QString target = QFileInfo(other).absoluteFilePath();
    for (const std::string& f : file_set_of(path.toStdString()))
        if (QFileInfo(QString::fromStdString(f)).absoluteFilePath() == target) return true;
    return false;
}
} // namespace

DroppedFilesPlan planDroppedFiles(const QStringList& files,
                                  const std::function<std::vector<std::string>(const std::string&)>& file_set_of) {
    DroppedFilesPlan plan;
    if (files.isEmpty()) return plan;
    if (files.size() != 2 || inSetOf(files[0], files[1], file_set_of) || inSetOf(files[1], files[0], file_set_of)) {
        plan.action = DroppedFilesPlan::Action::Open;
        plan.files = files;
        return plan;
    }
    // A fix comes after what it fixes: the older capture is BEFORE.
    QString a = files[0], b = files[1];
    const QDateTime ta = QFileInfo(a).lastModified(), tb = QFileInfo(b).lastModified();
    if (tb < ta || (tb == ta && QFileInfo(b).fileName() < QFileInfo(a).fileName())) std::swap(a, b);
    plan.action = DroppedFilesPlan::Action::Compare;
    plan.before = a;
    plan.after = b;
    return plan;
}

} // namespace stallscope::gui
