#include "app/gui/live/capture_dialog.h"

#include "app/gui/live/scenario_command.h"
#include "app/live/live_keylog.h"
#include "capture/pcap/live_capture.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QVBoxLayout>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace stallscope::gui::live {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
std::string s(const QString& q) { return q.toStdString(); }
}

QString CaptureDialog::defaultBinDir() {
    const QString app = QCoreApplication::applicationDirPath();
    for (const QString& rel : {QStringLiteral("/../../reference-services"), QStringLiteral("/../reference-services"),
                               QStringLiteral("/reference-services")}) {
        QFileInfo fi(app + rel + QStringLiteral("/stallscope-refserver"));
        if (fi.isExecutable()) return QDir::cleanPath(fi.absolutePath());
    }
    return QString();
}

int CaptureDialog::pickFreePort() {
    for (int i = 0; i < 200; ++i) {
        const int port = 20000 + int(QRandomGenerator::global()->bounded(10000));
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) break;
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(uint16_t(port));
        const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        if (ok) return port;
    }
    return 28080;
}

// Where and how to capture: interface, port, filter, output file, key log, time limit.
QFormLayout* CaptureDialog::buildWhereForm() {
    auto* where = new QFormLayout;
    iface_ = new QComboBox;
    iface_->setEditable(true);
    QStringList names;
    for (auto& n : LiveCapture::interface_names()) names << q(n);
    if (!names.contains(QStringLiteral("lo"))) names.prepend(QStringLiteral("lo"));
    iface_->addItems(names);
    iface_->setCurrentText(QStringLiteral("lo"));  // loopback: where the scenarios run
    where->addRow(tr("&Interface:"), iface_);
    port_ = new QSpinBox;
    port_->setRange(1024, 65535);
    port_->setValue(pickFreePort());
    where->addRow(tr("Scenario &port:"), port_);
    filter_ = new QLineEdit;
    filter_->setPlaceholderText(tr("libpcap filter, e.g. tcp port 8080"));
    where->addRow(tr("Capture &filter:"), filter_);
    auto* outRow = new QHBoxLayout;
    out_ = new QLineEdit(defaultCaptureDir() + QStringLiteral("/stallscope-live-") +
                         QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                         QStringLiteral(".pcapng"));
    auto* browse = new QPushButton(tr("&Browse…"));
    browse->setAutoDefault(false);  // Enter means Start, wherever the focus is
    outRow->addWidget(out_, 1);
    outRow->addWidget(browse);
    auto* outLabel = new QLabel(tr("&Write to:"));
    outLabel->setBuddy(out_);
    where->addRow(outLabel, outRow);
    keylog_ = new QCheckBox(tr("TLS &key log beside the capture (the commands get SSLKEYLOGFILE; its secrets "
                               "are embedded, so an HTTPS capture decrypts by itself)"));
    keylog_->setChecked(true);
    where->addRow(QString(), keylog_);
    duration_ = new QDoubleSpinBox;
    duration_->setRange(0, 24 * 3600);
    duration_->setDecimals(1);
    duration_->setSuffix(tr(" s"));
    duration_->setSpecialValueText(tr("until Stop or the client's end"));
    where->addRow(tr("&Time limit:"), duration_);
    connect(browse, &QPushButton::clicked, this, &CaptureDialog::browseOutput);
    return where;
}

// What to run: a reference service, a real toolkit's script, or custom commands.
QTabWidget* CaptureDialog::buildModeTabs(const QString& binDir, const QString& toolkitDir) {
    modes_ = new QTabWidget;
    auto* ref = new QWidget;
    auto* rf = new QFormLayout(ref);
    bin_dir_ = new QLineEdit(binDir);
    bin_dir_->setPlaceholderText(tr("directory of stallscope-refserver and stallscope-refclient"));
    rf->addRow(tr("Binaries:"), bin_dir_);
    profile_ = new QComboBox;
    for (auto& p : reference_profiles()) profile_->addItem(q(p));
    rf->addRow(tr("Pr&ofile:"), profile_);
    op_ = new QComboBox;
    for (auto& o : reference_operations()) op_->addItem(q(o));
    rf->addRow(tr("O&peration:"), op_);
    size_ = new QSpinBox;
    size_->setRange(0, 1000000);
    size_->setValue(10);
    rf->addRow(tr("&Size:"), size_);
    calls_ = new QSpinBox;
    calls_->setRange(1, 100000);
    calls_->setValue(50);
    rf->addRow(tr("&Calls:"), calls_);
    modes_->addTab(ref, tr("&Reference service"));

    auto* tk = new QWidget;
    auto* tf = new QFormLayout(tk);
    toolkit_dir_ = new QLineEdit(toolkitDir);
    tf->addRow(tr("Scripts:"), toolkit_dir_);
    toolkit_ = new QComboBox;
    tf->addRow(tr("&Toolkit:"), toolkit_);
    variant_ = new QComboBox;
    tf->addRow(tr("&Variant:"), variant_);
    toolkit_calls_ = new QSpinBox;
    toolkit_calls_->setRange(1, 1000);
    toolkit_calls_->setValue(5);
    tf->addRow(tr("C&alls:"), toolkit_calls_);
    tf->addRow(new QLabel(tr("The script starts and stops its own server.")));
    modes_->addTab(tk, tr("Real &toolkit"));

    auto* cu = new QWidget;
    auto* cf = new QFormLayout(cu);
    custom_server_ = new QLineEdit;
    custom_server_->setPlaceholderText(tr("optional; started first, stopped at the end"));
    cf->addRow(tr("S&erver command:"), custom_server_);
    custom_client_ = new QLineEdit;
    custom_client_->setPlaceholderText(tr("optional; the capture ends when it ends"));
    cf->addRow(tr("C&lient command:"), custom_client_);
    cf->addRow(new QLabel(tr("Commands run with /bin/sh -c in their own process group.")));
    modes_->addTab(cu, tr("C&ustom commands"));
    return modes_;
}

// The "Will run:" box and the buttons; returns Start.
QPushButton* CaptureDialog::addPreviewAndButtons(QVBoxLayout* top) {
    top->addWidget(new QLabel(tr("Will run:")));
    preview_ = new QPlainTextEdit;
    preview_->setReadOnly(true);
    preview_->setMaximumHeight(90);
    top->addWidget(preview_);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    QPushButton* startButton = buttons->addButton(tr("&Start"), QDialogButtonBox::AcceptRole);
    startButton->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    top->addWidget(buttons);

    return startButton;
}

// Every input refreshes the preview; the port follows into the filter, the toolkit into its variants.
void CaptureDialog::connectInputs() {
    auto refresh = [this] { updatePreview(); };
    connect(port_, &QSpinBox::valueChanged, this, &CaptureDialog::onPortChanged);
    connect(filter_, &QLineEdit::textEdited, this, [this] { filter_edited_ = true; updatePreview(); });
    for (QComboBox* c : {profile_, op_, variant_, iface_})
        connect(c, &QComboBox::currentTextChanged, this, refresh);
    connect(toolkit_, &QComboBox::currentIndexChanged, this, &CaptureDialog::onToolkitChanged);
    for (QSpinBox* b : {size_, calls_, toolkit_calls_}) connect(b, &QSpinBox::valueChanged, this, refresh);
    for (QLineEdit* e : {bin_dir_, custom_server_, custom_client_, out_})
        connect(e, &QLineEdit::textChanged, this, refresh);
    connect(duration_, &QDoubleSpinBox::valueChanged, this, refresh);
    connect(keylog_, &QCheckBox::toggled, this, refresh);
    connect(toolkit_dir_, &QLineEdit::textChanged, this, [this] {
        toolkit_->clear();
        for (auto& p : toolkit_scripts(s(toolkit_dir_->text())))
            toolkit_->addItem(QFileInfo(q(p)).fileName(), q(p));
    });
    connect(modes_, &QTabWidget::currentChanged, this, refresh);
}

CaptureDialog::CaptureDialog(const QString& binDir, const QString& toolkitDir, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Start Live Capture"));
    auto* top = new QVBoxLayout(this);
    top->addLayout(buildWhereForm());
    top->addWidget(buildModeTabs(binDir, toolkitDir));
    QPushButton* startButton = addPreviewAndButtons(top);
    connectInputs();
    emit toolkit_dir_->textChanged(toolkit_dir_->text());
    restoreChoices();
    connect(this, &QDialog::accepted, this, &CaptureDialog::saveChoices);
    onPortChanged();
    resize(640, sizeHint().height());
    // Focus on Start: Enter starts (an editable combo box with the focus would eat it).
    startButton->setFocus();
}

QString CaptureDialog::defaultCaptureDir() {
    // The user's data folder (~/.local/share/StallScope/captures), not /tmp:
    // a capture is worth keeping, and /tmp is cleared at boot.
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/captures");
    QDir().mkpath(dir);
    return dir;
}

// The last Start's tab, interface, reference scenario and toolkit (by
// name: the lists can change between runs); what is no longer offered keeps
// the default.
void CaptureDialog::restoreChoices() {
    QSettings st;
    st.beginGroup(QStringLiteral("live"));
    auto pick = [&](QComboBox* c, const QString& key, bool by_data) {
        const QVariant v = st.value(key);
        if (!v.isValid()) return;
        const int i = by_data ? c->findData(v) : c->findText(v.toString());
        if (i >= 0) c->setCurrentIndex(i);
        else if (c->isEditable()) c->setCurrentText(v.toString());
    };
    pick(iface_, QStringLiteral("interface"), false);
    pick(profile_, QStringLiteral("profile"), false);
    pick(op_, QStringLiteral("operation"), false);
    pick(toolkit_, QStringLiteral("toolkit"), false);   // refills the variants
    pick(variant_, QStringLiteral("variant"), true);
    if (st.contains(QStringLiteral("calls"))) calls_->setValue(st.value(QStringLiteral("calls")).toInt());
    if (st.contains(QStringLiteral("toolkit_calls"))) toolkit_calls_->setValue(st.value(QStringLiteral("toolkit_calls")).toInt());
    if (st.contains(QStringLiteral("size"))) size_->setValue(st.value(QStringLiteral("size")).toInt());
    const int tab = st.value(QStringLiteral("tab"), 0).toInt();
    if (tab >= 0 && tab < modes_->count()) modes_->setCurrentIndex(tab);
    if (const QString dir = st.value(QStringLiteral("dir")).toString(); !dir.isEmpty() && QFileInfo(dir).isDir())
        out_->setText(dir + QLatin1Char('/') + QFileInfo(out_->text()).fileName());
}

void CaptureDialog::saveChoices() {
    QSettings st;
    st.beginGroup(QStringLiteral("live"));
    st.setValue(QStringLiteral("tab"), modes_->currentIndex());
    st.setValue(QStringLiteral("interface"), iface_->currentText());
    st.setValue(QStringLiteral("profile"), profile_->currentText());
    st.setValue(QStringLiteral("operation"), op_->currentText());
    st.setValue(QStringLiteral("toolkit"), toolkit_->currentText());
    st.setValue(QStringLiteral("variant"), variant_->currentData());
    st.setValue(QStringLiteral("calls"), calls_->value());
    st.setValue(QStringLiteral("toolkit_calls"), toolkit_calls_->value());
    st.setValue(QStringLiteral("size"), size_->value());
    st.setValue(QStringLiteral("dir"), QFileInfo(out_->text()).absolutePath());
}

void CaptureDialog::onPortChanged() {
    if (!filter_edited_) filter_->setText(q(port_filter(port_->value())));
    updatePreview();
}

void CaptureDialog::onToolkitChanged() {
    variant_->clear();
    const QString script = toolkit_->currentData().toString();
    for (auto& v : toolkit_variants(s(script)))
        variant_->addItem(v.empty() ? tr("default (as shipped)") : q(v), q(v));
    updatePreview();
}

void CaptureDialog::browseOutput() {
    const QString p = QFileDialog::getSaveFileName(this, tr("Write Capture To"), out_->text(),
                                                   tr("pcapng captures (*.pcapng)"));
    if (!p.isEmpty()) out_->setText(p);
}

LiveCaptureConfig CaptureDialog::config() const {
    LiveCaptureConfig c;
    c.iface = iface_->currentText().trimmed();
    c.filter = filter_->text().trimmed();
    c.outPath = out_->text().trimmed();
    c.durationS = duration_->value();
    ScenarioCommands cmd;
    switch (modes_->currentIndex()) {
    case 0: {
        RefScenario r;
        r.bin_dir = s(bin_dir_->text().trimmed());
        r.profile = s(profile_->currentText());
        r.op = s(op_->currentText());
        r.size = size_->value();
        r.calls = calls_->value();
        r.port = port_->value();
        cmd = reference_commands(r);
        break;
    }
    case 1: {
        ToolkitScenario t;
        t.script = s(toolkit_->currentData().toString());
        t.variant = s(variant_->currentData().toString());
        t.calls = toolkit_calls_->value();
        t.port = port_->value();
        if (!t.script.empty()) cmd = toolkit_commands(t);
        break;
    }
    default:
        cmd.server = s(custom_server_->text().trimmed());
        cmd.client = s(custom_client_->text().trimmed());
        break;
    }
    c.serverCommand = q(cmd.server);
    c.runCommand = q(cmd.client);
    if (keylog_->isChecked() && !c.outPath.isEmpty() && !(c.serverCommand.isEmpty() && c.runCommand.isEmpty()))
        c.keylogPath = q(stallscope::live::keylog_path_beside(s(c.outPath)));
    return c;
}

void CaptureDialog::updatePreview() {
    const LiveCaptureConfig c = config();
    QString t = tr("capture on %1, filter '%2', into %3\n").arg(c.iface, c.filter, c.outPath);
    if (!c.serverCommand.isEmpty()) t += tr("server: %1\n").arg(c.serverCommand);
    if (!c.runCommand.isEmpty()) t += tr("client: %1\n").arg(c.runCommand);
    if (c.serverCommand.isEmpty() && c.runCommand.isEmpty()) t += tr("(no commands: capture until Stop)\n");
    if (!c.keylogPath.isEmpty()) t += tr("TLS key log (SSLKEYLOGFILE): %1\n").arg(c.keylogPath);
    preview_->setPlainText(t.trimmed());
}

} // namespace stallscope::gui::live
