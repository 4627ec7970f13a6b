#include "app/gui/start_page.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace stallscope::gui {

StartPage::StartPage(QWidget* parent)
    : QWidget(parent), recent_(new QListWidget), no_recent_(new QLabel(tr("No recent captures yet."))),
      sample_(new QPushButton(tr("Open the &Sample Capture"))), compare_(new QPushButton(tr("&Compare Captures…"))),
      live_(new QPushButton(tr("&Live Capture…"))) {
    setObjectName(QStringLiteral("startPage"));
    auto* title = new QLabel(tr("<h1>StallScope</h1>"
                                "<p>Finds where SOAP/HTTP calls wait: Nagle and delayed ACK, split writes, "
                                "100-continue, connection setup.<br>Open a pcap or pcapng capture "
                                "(gzip-compressed too), or drop one on the window.</p>"));
    title->setWordWrap(true);
    auto* open = new QPushButton(tr("&Open Capture…"));
    open->setObjectName(QStringLiteral("startOpen"));
    open->setDefault(true);
    sample_->setObjectName(QStringLiteral("startSample"));
    compare_->setObjectName(QStringLiteral("startCompare"));
    live_->setObjectName(QStringLiteral("startLive"));
    compare_->hide();
    live_->hide();
    const QString sample = samplePath();
    sample_->setEnabled(!sample.isEmpty());
    sample_->setToolTip(sample.isEmpty() ? tr("No sample capture was installed with this app.")
                                         : tr("%1: SOAP::Lite calls over one keep-alive connection").arg(sample));

    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {open, sample_, compare_, live_}) buttons->addWidget(b);
    buttons->addStretch(1);

    auto* recent_title = new QLabel(tr("<b>Recent captures</b>"));
    recent_->setObjectName(QStringLiteral("startRecent"));
    recent_->setAlternatingRowColors(true);
    recent_->setMaximumWidth(900);
    no_recent_->setEnabled(false);
    no_recent_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);

    auto* column = new QVBoxLayout;
    column->addWidget(title);
    column->addSpacing(8);
    column->addLayout(buttons);
    column->addSpacing(16);
    column->addWidget(recent_title);
    column->addWidget(no_recent_);
    column->addWidget(recent_, 1);
    column->addStretch(0);   // takes the room while there is no list
    auto* outer = new QHBoxLayout(this);
    outer->setContentsMargins(40, 24, 40, 24);
    outer->addLayout(column, 1);

    connect(open, &QPushButton::clicked, this, &StartPage::openDialogRequested);
    connect(sample_, &QPushButton::clicked, this, [this] {
        if (const QString p = samplePath(); !p.isEmpty()) emit openRequested(p);
    });
    connect(compare_, &QPushButton::clicked, this, &StartPage::compareRequested);
    connect(live_, &QPushButton::clicked, this, &StartPage::liveRequested);
    // One click opens, as links on a start page do; Enter too.
    auto open_item = [this](QListWidgetItem* it) {
        if (it && QFileInfo::exists(it->data(Qt::UserRole).toString())) emit openRequested(it->data(Qt::UserRole).toString());
    };
    connect(recent_, &QListWidget::itemClicked, this, open_item);
    connect(recent_, &QListWidget::itemActivated, this, open_item);
}

void StartPage::setRecentFiles(const QStringList& paths) {
    recent_->clear();
    for (const QString& p : paths) {
        const QFileInfo fi(p);
        const bool there = fi.exists();
        auto* it = new QListWidgetItem(there ? tr("%1    %2").arg(fi.fileName(), QDir::toNativeSeparators(fi.absolutePath()))
                                             : tr("%1    %2 (missing)").arg(fi.fileName(), QDir::toNativeSeparators(fi.absolutePath())),
                                       recent_);
        it->setData(Qt::UserRole, p);
        it->setToolTip(p);
        if (!there) it->setFlags(it->flags() & ~Qt::ItemIsEnabled);
    }
    no_recent_->setVisible(paths.isEmpty());
    recent_->setVisible(!paths.isEmpty());
}

void StartPage::setCompareAvailable(bool on) { compare_->setVisible(on); }
void StartPage::setLiveAvailable(bool on) { live_->setVisible(on); }

QString StartPage::samplePath() {
    QStringList candidates;
    const QString env = qEnvironmentVariable("STALLSCOPE_SAMPLE");
    if (!env.isEmpty()) candidates << env;
    candidates << QCoreApplication::applicationDirPath() + QStringLiteral("/../share/stallscope/sample.pcap");
#ifdef STALLSCOPE_SOURCE_SAMPLE
    candidates << QStringLiteral(STALLSCOPE_SOURCE_SAMPLE);
#endif
    for (const QString& c : candidates)
        if (QFileInfo(c).isFile()) return QFileInfo(c).absoluteFilePath();
    return {};
}

} // namespace stallscope::gui
