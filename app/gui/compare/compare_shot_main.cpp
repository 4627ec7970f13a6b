// stallscope-compare-shot BEFORE AFTER OUT.png [--tab summary|side-by-side] [--size WxH] [--group N] [--theme light|dark]
// Opens the Compare view on two captures (offscreen unless QT_QPA_PLATFORM
// says otherwise) and saves a grab of it: the screenshots in docs/compare.md.
#include "app/gui/compare/compare_window.h"
#include "app/gui/theme.h"

#include <QApplication>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStringList args = app.arguments();
    if (args.size() < 4) {
        std::fprintf(stderr, "usage: stallscope-compare-shot BEFORE AFTER OUT.png [--tab summary|side-by-side] "
                             "[--size WxH] [--group N] [--theme light|dark]\n");
        return 2;
    }
    QString tab = QStringLiteral("summary"), theme = QStringLiteral("light");
    int w = 1500, h = 950, group = -1;
    for (int i = 4; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--tab")) tab = args[i + 1];
        else if (args[i] == QLatin1String("--size")) {
            QStringList wh = args[i + 1].split(QLatin1Char('x'));
            if (wh.size() == 2) { w = wh[0].toInt(); h = wh[1].toInt(); }
        } else if (args[i] == QLatin1String("--group")) group = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--theme")) theme = args[i + 1];
    }
    using namespace stallscope::gui;
    applyTheme(theme == QLatin1String("dark") ? Theme::Dark : Theme::Light);
    CompareWindow win(core_backend());
    win.resize(w, h);
    win.show();
    int rc = 1;
    QObject::connect(&win, &CompareWindow::loaded, &app, [&](bool ok) {
        if (!ok) {
            std::fprintf(stderr, "stallscope-compare-shot: %s\n", qPrintable(win.lastError()));
            app.exit(1);
            return;
        }
        if (group >= 0) win.selectGroup(group);
        win.tabs()->setCurrentIndex(tab == QLatin1String("side-by-side") ? 1 : 0);
        // Let layouts and charts settle before the grab.
        QTimer::singleShot(400, &app, [&] {
            rc = win.grab().save(args[3]) ? 0 : 1;
            if (rc) std::fprintf(stderr, "stallscope-compare-shot: cannot write %s\n", qPrintable(args[3]));
            app.exit(rc);
        });
    });
    win.load(args[1], args[2]);
    app.exec();
    return rc;
}
