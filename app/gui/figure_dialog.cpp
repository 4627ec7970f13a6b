#include "app/gui/figure_dialog.h"

#include "app/gui/main_window.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSettings>
#include <QSpinBox>

namespace stallscope::gui {

bool askFigureSettings(QWidget* parent, FigureSettings& s) {
    QSettings st;
    QDialog d(parent);
    d.setWindowTitle(QObject::tr("Export figure"));
    auto* axis = new QComboBox;
    axis->addItem(QObject::tr("One row per segment (waits grow with their length)"), false);
    axis->addItem(QObject::tr("Linear: true time scale"), true);
    axis->setCurrentIndex(st.value(QStringLiteral("figure/linear")).toBool() ? 1 : 0);
    auto* width = new QSpinBox;
    width->setRange(480, 4000);
    width->setSuffix(QObject::tr(" px"));
    width->setValue(st.value(QStringLiteral("figure/width"), 960).toInt());
    width->setToolTip(QObject::tr("Layout width: narrower gives larger text at a fixed page width"));
    auto* page = new QComboBox;
    page->addItem(QObject::tr("The layout's own size"), QString());
    page->addItem(QObject::tr("One column (3.5 in)"), QStringLiteral("one-column"));
    page->addItem(QObject::tr("Two columns (7.16 in)"), QStringLiteral("two-column"));
    page->setCurrentIndex(std::max(0, page->findData(st.value(QStringLiteral("figure/page")).toString())));
    auto* dpi = new QSpinBox;
    dpi->setRange(72, 1200);
    dpi->setSuffix(QObject::tr(" dpi (PNG)"));
    dpi->setValue(st.value(QStringLiteral("figure/dpi"), 300).toInt());
    auto* highlight = new QCheckBox(QObject::tr("Highlight evidence frames (yellow)"));
    highlight->setChecked(st.value(QStringLiteral("figure/highlight"), true).toBool());
    auto* form = new QFormLayout(&d);
    form->addRow(QObject::tr("Time axis:"), axis);
    form->addRow(QObject::tr("Width:"), width);
    form->addRow(QObject::tr("Page:"), page);
    form->addRow(QObject::tr("Resolution:"), dpi);
    form->addRow(highlight);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &d, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
    form->addRow(buttons);
    if (d.exec() != QDialog::Accepted) return false;
    s.linear_time = axis->currentData().toBool();
    s.width = width->value();
    s.page = page->currentData().toString();
    s.dpi = dpi->value();
    s.highlight = highlight->isChecked();
    st.setValue(QStringLiteral("figure/linear"), s.linear_time);
    st.setValue(QStringLiteral("figure/width"), s.width);
    st.setValue(QStringLiteral("figure/page"), s.page);
    st.setValue(QStringLiteral("figure/dpi"), s.dpi);
    st.setValue(QStringLiteral("figure/highlight"), s.highlight);
    return true;
}

} // namespace stallscope::gui
