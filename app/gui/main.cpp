// stallscope: the desktop app. Thin: settings identity, theme, window, and
// an optional capture path on the command line.
#include "app/gui/main_window.h"
#include "app/gui/selection_hub.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>

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
    cli.addPositionalArgument(QStringLiteral("capture"), QStringLiteral("pcap or pcapng file to open"));
    cli.process(app);

    using namespace stallscope::gui;
    const QString theme_name = cli.isSet(theme) ? cli.value(theme) : QSettings().value(QStringLiteral("view/theme")).toString();
    applyTheme(themeFromString(theme_name));

    MainWindow w(core_backend());
    w.show();
    if (cli.isSet(call)) {
        const quint64 id = cli.value(call).toULongLong();
        QObject::connect(&w, &MainWindow::loadFinished, &w, [&w, id](bool ok) { if (ok) w.hub()->selectCall(id); },
                         Qt::SingleShotConnection);
    }
    if (!cli.positionalArguments().isEmpty()) w.openFile(cli.positionalArguments().first());
    return app.exec();
}
