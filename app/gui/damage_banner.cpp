#include "app/gui/damage_banner.h"

#include "app/gui/selection_hub.h"

namespace stallscope::gui {

DamageBanner::DamageBanner(SelectionHub* hub, QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("damageBanner"));
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setMargin(6);
    // Amber on both themes: a warning, not a stall (red).
    setStyleSheet(QStringLiteral("QLabel#damageBanner { background: #fff3cd; color: #5c4400; border-bottom: 1px solid #e0c36a; }"));
    hide();
    connect(hub, &SelectionHub::resultChanged, this, &DamageBanner::onResult);
    onResult(hub->result());
}

QString DamageBanner::textFor(const CaptureInfo& cap) {
    if (!cap.truncated) return {};
    // The reader's warning says what stopped it and where (analyze_capture: the one with a file offset).
    const Warning* stop = nullptr;
    for (const Warning& w : cap.warnings)
        if (w.offset > 0) stop = &w;
    // A .gz's offsets count the decompressed capture's bytes (capture/pcap/gzip_file_reader.h).
    const bool gzip = QString::fromStdString(cap.format).endsWith(QStringLiteral("(gzip)"));
    QString where = !stop ? tr("from the damage on")
                    : gzip ? tr("from byte %L1 of the decompressed capture on").arg(stop->offset)
                           : tr("from byte %L1 of the file on").arg(stop->offset);
    QString text = tr("<b>This capture is damaged:</b> everything %1 is lost, and every number here covers only the "
                      "%L2 packets before it.")
                       .arg(where)
                       .arg(cap.packets);
    if (stop) text += QStringLiteral(" <i>%1</i>").arg(QString::fromStdString(stop->message).toHtmlEscaped());
    if (cap.warnings.size() > 1) text += tr(" (%1 warnings: see the Warnings pane)").arg(cap.warnings.size());
    return text;
}

void DamageBanner::onResult(const ResultPtr& r) {
    const QString text = r ? textFor(r->capture) : QString();
    setText(text);
    setVisible(!text.isEmpty());
}

} // namespace stallscope::gui
