#include "app/gui/load_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QTimer>
#include <QToolButton>

#include <cmath>

namespace stallscope::gui {

QString timeLeftText(double elapsed_s, double fraction) {
    if (fraction < 0.02 || fraction >= 1 || elapsed_s < 1) return {};
    const double left = elapsed_s * (1 - fraction) / fraction;
    if (left < 1.5) return QObject::tr("about a second left");
    if (left < 60) return QObject::tr("about %1 s left").arg(qRound(left));
    return QObject::tr("about %1 min left").arg(qRound(left / 60));
}

LoadBar::LoadBar(QWidget* parent)
    : QWidget(parent), label_(new QLabel), bar_(new QProgressBar), cancel_(new QToolButton), show_timer_(new QTimer(this)) {
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
    hide();
}

void LoadBar::start(const QString& file_name) {
    file_ = file_name;
    clock_.start();
    bar_->setRange(0, 1000);
    bar_->setValue(0);
    label_->setText(tr("Analysing %1…").arg(file_));
    show_timer_->start(400);
}

void LoadBar::setProgress(double fraction, quint64 packets) {
    if (fraction < 0) bar_->setRange(0, 0);
    else bar_->setValue(int(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
    QString text = tr("Analysing %1: %2 packets").arg(file_, QLocale().toString(packets));
    if (fraction >= 0) text += tr(", %1 %").arg(qRound(fraction * 100));
    const QString left = timeLeftText(double(clock_.elapsed()) / 1000, fraction);
    if (!left.isEmpty()) text += QStringLiteral(" \u00b7 ") + left;
    label_->setText(text);
}

void LoadBar::finish() {
    show_timer_->stop();
    hide();
}

QString LoadBar::text() const { return label_->text(); }

} // namespace stallscope::gui
