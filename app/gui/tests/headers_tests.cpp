// Every column header whole at 1360x860, light and dark (issue 27: the
// Findings list read "Expla…"): no header shorter than its text, and the
// Findings list shows all of its columns without scrolling.
#include "app/gui/findings_model.h"
#include "app/gui/gui_backend.h"
#include "app/gui/findings_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/selection_hub.h"
#include "app/gui/theme.h"

#include <catch2/catch.hpp>

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTabWidget>
#include <QTest>

using namespace stallscope::gui;

namespace {
// The horizontal headers of the page shown and of the docks, each visible
// section at least as wide as its text needs.
void checkHeaders(MainWindow& w, const QString& where) {
    for (QHeaderView* h : w.findChildren<QHeaderView*>()) {
        if (h->orientation() != Qt::Horizontal || !h->isVisible() || !h->model()) continue;
        for (int c = 0; c < h->count(); ++c) {
            if (h->isSectionHidden(c)) continue;
            const QString text = h->model()->headerData(c, Qt::Horizontal).toString();
            INFO(where.toStdString() << ": column '" << text.toStdString() << "' " << h->sectionSize(c) << " px, needs "
                                     << h->sectionSizeHint(c));
            CHECK(h->sectionSize(c) >= h->sectionSizeHint(c));
        }
    }
}
} // namespace

TEST_CASE("Every column header is whole at 1360x860, light and dark, the Findings list shows all its columns") {
    for (Theme theme : {Theme::Light, Theme::Dark}) {
        applyTheme(theme);
        MainWindow w(core_backend());
        w.resize(1360, 860);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openFile(QStringLiteral(STALLSCOPE_TESTDATA_DIR "/toolkit-soaplite-keepalive.pcap"));
        REQUIRE(loaded.wait(60000));
        REQUIRE(loaded.takeFirst().at(0).toBool());
        w.hub()->selectCall(5);
        for (int page = 0; page < w.pages()->count(); ++page) {
            w.pages()->setCurrentIndex(page);
            QTest::qWait(50);
            checkHeaders(w, QStringLiteral("%1, page %2").arg(themeToString(theme), w.pages()->tabText(page)));
        }
        QTableView* list = w.findingsPanel()->table();
        QHeaderView* h = list->horizontalHeader();
        REQUIRE(list->model()->rowCount() > 0);
        const int last = FindingsModel::Explanation;
        INFO("the Explanation column ends at " << h->sectionViewportPosition(last) + h->sectionSize(last) << " of "
                                               << list->viewport()->width() << " px");
        CHECK(h->sectionViewportPosition(0) == 0);
        CHECK(h->sectionViewportPosition(last) + h->sectionSizeHint(last) <= list->viewport()->width());
    }
    applyTheme(Theme::Light);
}
