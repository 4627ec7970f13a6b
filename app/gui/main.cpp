// stallscope: the desktop app. Thin: settings identity, theme, window, and
// an optional capture path on the command line.
#include "app/gui/main_window.h"
#include "app/gui/memory_release.h"
#include "app/gui/selection_hub.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>
#include <algorithm>
#include <memory>
#include <cstdio>

int main(int argc, char** argv) {
    QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("StallScope"));
    QApplication::setApplicationName(QStringLiteral("StallScope"));
    QApplication::setApplicationDisplayName(QStringLiteral("StallScope"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("Finds why SOAP/HTTP-1.x calls are slow from packet captures."));
    cli.addHelpOption();
    cli.addVersionOption();
    QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("light, dark or system"), QStringLiteral("theme"));
    cli.addOption(theme);
    QCommandLineOption call(QStringLiteral("call"), QStringLiteral("select this call once the capture is loaded"), QStringLiteral("id"));
    cli.addOption(call);
    QCommandLineOption quit_after(QStringLiteral("quit-after-load"),
                                  QStringLiteral("load the capture, paint the first screen with it, exit (0 analysed, 1 not): for measuring"));
    cli.addOption(quit_after);
    QCommandLineOption shots(QStringLiteral("screenshots"),
                             QStringLiteral("after loading, save a PNG of each page (and the findings pane) as DIR/PREFIX-<page>.png, then exit"),
                             QStringLiteral("DIR/PREFIX"));
    cli.addOption(shots);
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("window size, WxH (default 1360x860 for screenshots)"),
                            QStringLiteral("WxH"));
    cli.addOption(size);
    QCommandLineOption cycles(QStringLiteral("load-cycles"),
                              QStringLiteral("with --quit-after-load: then N times open the file again and cancel, and open it again, "
                                             "printing the RSS after each step (reload memory check)"),
                              QStringLiteral("N"));
    cli.addOption(cycles);
    cli.addPositionalArgument(QStringLiteral("capture"), QStringLiteral("pcap or pcapng file to open"));
    cli.process(app);

    using namespace stallscope::gui;
    const QString theme_name = cli.isSet(theme) ? cli.value(theme) : QSettings().value(QStringLiteral("view/theme")).toString();
    applyTheme(themeFromString(theme_name));

    MainWindow w(core_backend());
    if (cli.isSet(size)) {
        const QStringList wh = cli.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2) w.resize(wh[0].toInt(), wh[1].toInt());
    } else if (cli.isSet(shots)) {
        w.resize(1360, 860);
    }
    w.show();
    if (cli.isSet(call)) {
        const quint64 id = cli.value(call).toULongLong();
        QObject::connect(&w, &MainWindow::loadFinished, &w, [&w, id](bool ok) { if (ok) w.hub()->selectCall(id); },
                         Qt::SingleShotConnection);
    }
    if (cli.isSet(quit_after) || cli.isSet(shots)) {
        if (cli.positionalArguments().isEmpty()) {
            fprintf(stderr, "stallscope: --quit-after-load and --screenshots need a capture file\n");
            return 2;
        }
        const QString shot_prefix = cli.value(shots);
        const QString file = cli.positionalArguments().first();
        const int cycles_left = cli.isSet(cycles) ? std::max(0, cli.value(cycles).toInt()) : 0;
        auto step = std::make_shared<int>(0);   // loads and cancels done
        QObject::connect(&w, &MainWindow::loadFinished, &w, [&w, shot_prefix, file, cycles_left, step](bool ok) {
            // The first screen with the data is painted before exiting.
            w.repaint();
            QApplication::processEvents();
            const int n = (*step)++;
            if (cycles_left > 0) {   // even steps: a load; odd steps: a load cancelled
                const bool cancelled = n % 2 == 1 && !ok;
                fprintf(stderr, "stallscope: step %d (%s): RSS %.1f MB\n", n, ok ? "loaded" : cancelled ? "cancelled" : "failed",
                        double(residentBytes()) / 1048576.0);
                if ((ok || cancelled) && n < 2 * cycles_left) {
                    w.openFile(file);
                    if (n % 2 == 0) QTimer::singleShot(1000, &w, [&w] { w.cancelLoad(); });
                    return;
                }
            }
            if (ok && !shot_prefix.isEmpty()) w.saveScreenshots(shot_prefix);
            if (!ok) fprintf(stderr, "stallscope: %s\n", qPrintable(w.lastError()));
            QApplication::exit(ok ? 0 : 1);
        });
    }
    if (!cli.positionalArguments().isEmpty()) w.openFile(cli.positionalArguments().first());
    return app.exec();
}
