// stallscope: the desktop app. Thin: settings identity, theme, window, and
// an optional capture path on the command line.
#include "app/gui/event_trace_view.h"
#include "app/gui/load_bar.h"
#include "app/gui/main_window.h"
#include "app/gui/memory_release.h"
#include "app/gui/overview_page.h"
#include "app/gui/selection_hub.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>
#include <algorithm>
#include <memory>
#include <cstdio>
#include <string>

namespace {

struct Options {
    QCommandLineOption theme{QStringLiteral("theme"), QStringLiteral("light, dark or system"), QStringLiteral("theme")};
    QCommandLineOption call{QStringLiteral("call"), QStringLiteral("select this call once the capture is loaded"), QStringLiteral("id")};
    QCommandLineOption quit_after{QStringLiteral("quit-after-load"),
                                  QStringLiteral("load the capture, paint the first screen with it, exit (0 analysed, 1 not): for measuring")};
    QCommandLineOption shots{QStringLiteral("screenshots"),
                             QStringLiteral("after loading, save a PNG of each page (and the findings pane) as DIR/PREFIX-<page>.png, "
                                            "then exit; with no capture, the start page as DIR/PREFIX-start.png"),
                             QStringLiteral("DIR/PREFIX")};
    QCommandLineOption whole{QStringLiteral("whole-connection"),
                             QStringLiteral("show the event trace of the selected call's whole connection")};
    QCommandLineOption size{QStringLiteral("size"), QStringLiteral("window size, WxH (default 1360x860 for screenshots)"),
                            QStringLiteral("WxH")};
    QCommandLineOption keylog{QStringLiteral("keylog"), QStringLiteral("TLS key log (NSS format) to decrypt HTTPS with, as File > Open Key Log"),
                              QStringLiteral("FILE")};
    QCommandLineOption cycles{QStringLiteral("load-cycles"),
                              QStringLiteral("with --quit-after-load: then N times open the file again and cancel, and open it again, "
                                             "printing the RSS after each step (reload memory check)"),
                              QStringLiteral("N")};
    void addTo(QCommandLineParser& cli) const {
        cli.setApplicationDescription(QStringLiteral("Finds why SOAP/HTTP-1.x calls are slow from packet captures."));
        cli.addHelpOption();
        cli.addVersionOption();
        for (const QCommandLineOption* o : {&theme, &call, &whole, &quit_after, &shots, &size, &keylog, &cycles}) cli.addOption(*o);
        cli.addPositionalArgument(QStringLiteral("capture"), QStringLiteral("pcap or pcapng file to open; several files (or a ring's first file) open as one file set; gzip-compressed too"), QStringLiteral("[capture...]"));
    }
};

void setIdentity() {
    QCoreApplication::setOrganizationName(QStringLiteral("StallScope"));
    QCoreApplication::setApplicationName(QStringLiteral("StallScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral("0.1.0"));
}

// --help and --version print and exit without a display: a QApplication
// would abort first when there is none (ssh, CI).
void helpWithoutDisplay(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") break;
        if (a == "-h" || a == "--help" || a == "-?" || a == "--help-all" || a == "-v" || a == "--version") {
            QCoreApplication core(argc, argv);
            setIdentity();
            QCommandLineParser cli;
            Options().addTo(cli);
            cli.process(core);   // prints and exits
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    helpWithoutDisplay(argc, argv);
    QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    setIdentity();
    QApplication::setApplicationDisplayName(QStringLiteral("StallScope"));

    QCommandLineParser cli;
    const Options opts;
    opts.addTo(cli);
    cli.process(app);
    const QCommandLineOption &theme = opts.theme, &call = opts.call, &quit_after = opts.quit_after, &shots = opts.shots,
                             &size = opts.size, &cycles = opts.cycles;

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
    if (cli.isSet(opts.keylog)) w.setKeyLog(cli.value(opts.keylog));  // before the capture: it is read with it
    if (cli.isSet(call)) {
        const quint64 id = cli.value(call).toULongLong();
        QObject::connect(&w, &MainWindow::loadFinished, &w, [&w, id](bool ok) { if (ok) w.hub()->selectCall(id); },
                         Qt::SingleShotConnection);
    }
    if (cli.isSet(opts.whole)) w.tracePanel()->setShowConnection(true);
    if (cli.isSet(shots) && cli.positionalArguments().isEmpty() && !cli.isSet(quit_after)) {
        w.repaint();
        QApplication::processEvents();
        return w.grab().save(cli.value(shots) + QStringLiteral("-start.png")) ? 0 : 1;
    }
    if (cli.isSet(quit_after) || cli.isSet(shots)) {
        if (cli.positionalArguments().isEmpty()) {
            fprintf(stderr, "stallscope: --quit-after-load and --screenshots need a capture file\n");
            return 2;
        }
        const QString shot_prefix = cli.value(shots);
        const QStringList files = cli.positionalArguments();   // several: one file set
        const int cycles_left = cli.isSet(cycles) ? std::max(0, cli.value(cycles).toInt()) : 0;
        auto step = std::make_shared<int>(0);   // loads and cancels done
        QObject::connect(&w, &MainWindow::loadFinished, &w, [&w, shot_prefix, files, cycles_left, step](bool ok) {
            // The first screen with the data is painted before exiting.
            w.repaint();
            QApplication::processEvents();
            const int n = (*step)++;
            if (cycles_left > 0) {   // even steps: a load; odd steps: a load cancelled
                const bool cancelled = n % 2 == 1 && !ok;
                fprintf(stderr, "stallscope: step %d (%s): RSS %.1f MB\n", n, ok ? "loaded" : cancelled ? "cancelled" : "failed",
                        double(residentBytes()) / 1048576.0);
                if ((ok || cancelled) && n < 2 * cycles_left) {
                    w.openFiles(files);
                    if (n % 2 == 0) QTimer::singleShot(1000, &w, [&w] { w.cancelLoad(); });
                    return;
                }
            }
            if (ok && !shot_prefix.isEmpty()) w.saveScreenshots(shot_prefix);
            if (!ok) fprintf(stderr, "stallscope: %s\n", qPrintable(w.lastError()));
            QApplication::exit(ok ? 0 : 1);
        });
    }
    if (cli.isSet(shots) && !cli.positionalArguments().isEmpty()) {
        // A load long enough to say how long is left is also shot at 60 %:
        // PREFIX-loading.png, the Overview's figures so far and the load bar
        // with the counts so far (docs/gui.md).
        auto* poll = new QTimer(&w);
        const QString path = cli.value(shots) + QStringLiteral("-loading.png");
        QObject::connect(poll, &QTimer::timeout, &w, [&w, poll, path] {
            if (!w.loadBar()->isVisible() || w.loadBar()->callsShown() == 0 || !w.loadBar()->text().contains(QStringLiteral(" left")) ||
                !w.overviewPage()->showsPartial() || w.loadBar()->fractionShown() < 0.6)
                return;
            poll->stop();
            w.grab().save(path);
        });
        QObject::connect(&w, &MainWindow::loadFinished, poll, &QTimer::stop);
        poll->start(100);
    }
    // Several files on the command line are one file set (docs/gui.md).
    if (!cli.positionalArguments().isEmpty()) w.openFiles(cli.positionalArguments());
    return app.exec();
}
