// stallscope: the desktop app. Thin: settings identity, theme, window, and
// an optional capture path on the command line.
#include "app/gui/main_window.h"
#include "app/gui/selection_hub.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
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
        QObject::connect(&w, &MainWindow::loadFinished, &w, [&w, shot_prefix](bool ok) {
            // The first screen with the data is painted before exiting.
            w.repaint();
            QApplication::processEvents();
            if (ok && !shot_prefix.isEmpty()) w.saveScreenshots(shot_prefix);
            if (!ok) fprintf(stderr, "stallscope: %s\n", qPrintable(w.lastError()));
            QApplication::exit(ok ? 0 : 1);
        }, Qt::SingleShotConnection);
    }
    if (!cli.positionalArguments().isEmpty()) w.openFile(cli.positionalArguments().first());
    return app.exec();
}
