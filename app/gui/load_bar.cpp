#include "app/gui/load_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QTimer>
#include <QToolButton>

#include <cmath>

namespace stallscope::gui {

namespace {
constexpr int kPollMs = 200;   // how often the counts found so far are read
}

QString timeLeftText(double elapsed_s, double fraction) {
    if (fraction < 0.02 || fraction >= 1 || elapsed_s < 1) return {};
    const double left = elapsed_s * (1 - fraction) / fraction;
    if (left < 1.5) return QObject::tr("about a second left");
    if (left < 60) return QObject::tr("about %1 s left").arg(qRound(left));
    return QObject::tr("about %1 min left").arg(qRound(left / 60));
}

LoadBar::LoadBar(QWidget* parent)
    : QWidget(parent), label_(new QLabel), bar_(new QProgressBar), cancel_(new QToolButton), show_timer_(new QTimer(this)),
      poll_timer_(new QTimer(this)) {
    setObjectName(QStringLiteral("loadBar"));
    auto* lay = new QHBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(label_);
    bar_->setRange(0, 1000);
    bar_->setTextVisible(false);
    bar_->setFixedWidth(160);
    lay->addWidget(bar_);
    cancel_->setText(tr("Cancel"));
    cancel_->setObjectName(QStringLiteral("loadCancel"));
    cancel_->setToolTip(tr("Stop loading (Esc)"));
    lay->addWidget(cancel_);
    connect(cancel_, &QToolButton::clicked, this, &LoadBar::cancelRequested);
    show_timer_->setSingleShot(true);
    connect(show_timer_, &QTimer::timeout, this, &QWidget::show);
    poll_timer_->setInterval(kPollMs);
    connect(poll_timer_, &QTimer::timeout, this, &LoadBar::refresh);
    hide();
}

void LoadBar::start(const QString& file_name, std::shared_ptr<const LoadCounters> counters) {
    file_ = file_name;
    counters_ = std::move(counters);
    clock_.start();
    fraction_ = 0;
    have_progress_ = false;
    packets_ = calls_ = findings_ = 0;
    bar_->setRange(0, 1000);
    bar_->setValue(0);
    label_->setText(tr("Analysing %1…").arg(file_));
    show_timer_->start(400);
    if (counters_) poll_timer_->start();
}

void LoadBar::setProgress(double fraction, quint64 packets) {
    if (fraction < 0) bar_->setRange(0, 0);
    else bar_->setValue(int(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
    fraction_ = fraction;
    packets_ = packets;
    have_progress_ = true;
    refresh();
}

void LoadBar::refresh() {
    if (counters_) {
        calls_ = counters_->calls.load(std::memory_order_relaxed);
        findings_ = counters_->findings.load(std::memory_order_relaxed);
    }
    if (!have_progress_ && calls_ == 0) return;   // "Analysing x…" until there is something to say
    const QLocale loc;
    QString text = tr("Analysing %1: %2 packets").arg(file_, loc.toString(packets_));
    if (fraction_ >= 0 && have_progress_) text += tr(", %1 %").arg(qRound(fraction_ * 100));
    if (counters_) {
        auto count = [&](quint64 n, const QString& one, const QString& many) {
            return loc.toString(n) + QLatin1Char(' ') + (n == 1 ? one : many);
        };
        text += QStringLiteral(" \u00b7 ") + count(calls_, tr("call"), tr("calls")) + QStringLiteral(", ") +
                count(findings_, tr("finding"), tr("findings")) + tr(" so far");
    }
    const QString left = timeLeftText(double(clock_.elapsed()) / 1000, have_progress_ ? fraction_ : -1);
    if (!left.isEmpty()) text += QStringLiteral(" \u00b7 ") + left;
    label_->setText(text);
}

void LoadBar::finish() {
    show_timer_->stop();
    poll_timer_->stop();
    refresh();   // the final counts (the test compares them with the result's)
    counters_.reset();
    hide();
}

QString LoadBar::text() const { return label_->text(); }

} // namespace stallscope::gui
