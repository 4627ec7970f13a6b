#pragma once
// A finished analysis as the UI holds it: immutable and shared, so the worker
// thread hands it over once and every view reads the same snapshot.
#include "app/gui/loaded_result.h"

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <memory>

namespace stallscope::gui {

using ResultPtr = std::shared_ptr<const LoadedResult>;

struct LoadOutcome {
    QString path;        // the first of paths
    QStringList paths;   // what was opened: one file, or a file set's files
    bool ok = false;
    bool cancelled = false;
    QString error;
    ResultPtr result;    // set when ok (partial when cancelled)
};

} // namespace stallscope::gui

Q_DECLARE_METATYPE(stallscope::gui::ResultPtr)
Q_DECLARE_METATYPE(stallscope::gui::LoadOutcome)
