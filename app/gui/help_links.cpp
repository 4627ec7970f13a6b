#include "app/gui/help_links.h"

#include "analyzers/result/finding_kinds.h"
#include "app/gui/display_text.h"
#include "analyzers/result/finding_kinds.h"

#include <QApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

namespace stallscope::gui {

QString docsDir() {
    QStringList candidates;
    const QString env = qEnvironmentVariable("STALLSCOPE_DOCS");
    if (!env.isEmpty()) candidates << env;
    const QString app = QCoreApplication::applicationDirPath();
    candidates << app + QStringLiteral("/../share/doc/stallscope") << app + QStringLiteral("/../share/stallscope/docs");
#ifdef STALLSCOPE_SOURCE_DOCS_DIR
    candidates << QStringLiteral(STALLSCOPE_SOURCE_DOCS_DIR);
#endif
    for (const QString& c : candidates)
        if (QFileInfo::exists(c + QStringLiteral("/detectors"))) return QDir(c).absolutePath();
    return {};
}

QUrl docUrl(const QString& page) {
    const QString dir = docsDir();
    if (dir.isEmpty() || !QFileInfo::exists(dir + QLatin1Char('/') + page)) return {};
    return QUrl::fromLocalFile(dir + QLatin1Char('/') + page);
}

QUrl detectorDocUrl(const std::string& kind) {
    const std::string page = finding_kind_doc_page(kind);  // "docs/detectors/<kind>.md"
    if (page.empty()) return {};
    return docUrl(QString::fromStdString(page.substr(std::string("docs/").size())));
}

QString shortcutsHtml() {
    static const char* const kRows[][2] = {
        {"Ctrl+O", "Open a capture"}, {"F5", "Reload"}, {"Ctrl+1 … Ctrl+5", "Overview, Calls, Timeline, Over time, Event trace"},
        {"Ctrl+F", "Filter calls"}, {"Ctrl+Shift+F", "Show or hide the Findings pane"},
        {"Ctrl+Shift+C", "Event trace of the whole connection"}, {"Ctrl++ / Ctrl+- / Ctrl+0", "Zoom in, out, fit"},
        {"+ / - / 0, Ctrl+wheel", "Zoom the event trace (the timeline and over time: + / - / 0, wheel)"},
        {"Esc (while loading)", "Cancel the load"},
        {"Ctrl+E", "Export the event trace (figure)"}, {"Ctrl+Shift+E", "Export the report"},
        {"Esc / Ctrl+W", "Close the Compare window"}, {"F1", "Documentation"}, {"Ctrl+Q", "Quit"},
    };
    QString html = QStringLiteral("<table cellpadding=3>");
    for (const auto& r : kRows)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(QString::fromUtf8(r[0]), QObject::tr(r[1]));
    return html + QStringLiteral("</table>");
}

void fillHelpMenu(QMenu* help, QWidget* parent) {
    // Nothing opens (no docs found, no viewer for .md): say so and where the page is.
    auto open = [parent](const QUrl& u) {
        if (u.isValid() && QDesktopServices::openUrl(u)) return;
        QMessageBox::information(parent, QObject::tr("Documentation"),
                                 u.isValid() ? QObject::tr("No program opened %1.\nOpen it with a text editor or a Markdown viewer.")
                                                   .arg(u.toLocalFile())
                                             : QObject::tr("The documentation was not found (set STALLSCOPE_DOCS to the docs folder)."));
    };
    // F1: the app's own page, gui.md.
    QAction* docs = help->addAction(QObject::tr("&Documentation"), parent, [open] { open(docUrl(QStringLiteral("gui.md"))); });
    docs->setShortcut(QKeySequence::HelpContents);
    QMenu* det = help->addMenu(QObject::tr("&Detectors"));
    for (const FindingKindInfo& k : finding_kinds()) {
        const std::string kind(k.id);
        const QUrl u = detectorDocUrl(kind);
        QAction* a = det->addAction(findingKindLabel(kind), parent, [open, u] { open(u); });
        a->setEnabled(u.isValid());
    }
    for (auto [file, label] : {std::pair{"diagrams.md", "Event-trace &Figures"}, std::pair{"wireshark.md", "&Wireshark Plugin"},
                               std::pair{"limits.md", "&Limits"}}) {
        const QUrl u = docUrl(QString::fromLatin1(file));
        QAction* a = help->addAction(QObject::tr(label), parent, [open, u] { open(u); });
        a->setEnabled(u.isValid());
    }
    help->addSeparator();
    help->addAction(QObject::tr("&Keyboard Shortcuts"), parent, [parent] {
        auto* box = new QMessageBox(QMessageBox::NoIcon, QObject::tr("Keyboard shortcuts"), shortcutsHtml(), QMessageBox::Close, parent);
        box->setObjectName(QStringLiteral("shortcutsBox"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    help->addAction(QObject::tr("&About StallScope"), parent, [parent] {
        QMessageBox::about(parent, QObject::tr("About StallScope"),
                           QObject::tr("<h3>StallScope %1</h3><p>Finds why SOAP/HTTP-1.x calls are slow from packet captures: "
                                       "Nagle/delayed-ACK stalls, split header/body writes, Expect: 100-continue waits, "
                                       "connection per call, slow servers, retransmissions.</p><p>Documentation: %2</p>")
                               .arg(QCoreApplication::applicationVersion(), docsDir().isEmpty() ? QObject::tr("not found") : docsDir()));
    });
    help->addAction(QObject::tr("About &Qt"), qApp, &QApplication::aboutQt);
}

} // namespace stallscope::gui
