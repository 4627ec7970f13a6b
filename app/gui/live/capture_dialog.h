#pragma once
// Capture > Start...: where to capture (interface, filter, output file) and
// what to run while capturing: a reference-service scenario, a real-toolkit
// script, or any server and client command lines. The filter follows the
// scenario's port until the user edits it; the commands are shown as they
// will run.
#include "app/gui/live/live_capture_controller.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QVBoxLayout;

namespace stallscope::gui::live {

class CaptureDialog : public QDialog {
    Q_OBJECT
public:
    // binDir: where stallscope-refserver/-refclient are; toolkitDir: the
    // reference-services/toolkits directory (both editable in the dialog).
    explicit CaptureDialog(const QString& binDir, const QString& toolkitDir, QWidget* parent = nullptr);

    LiveCaptureConfig config() const;

    // Parts, for tests and screenshots.
    QTabWidget* modeTabs() const { return modes_; }
    QSpinBox* portBox() const { return port_; }
    QLineEdit* filterEdit() const { return filter_; }
    QCheckBox* keylogBox() const { return keylog_; }
    QComboBox* profileBox() const { return profile_; }
    QComboBox* toolkitBox() const { return toolkit_; }
    QComboBox* variantBox() const { return variant_; }
    QLineEdit* customServerEdit() const { return custom_server_; }
    QLineEdit* customClientEdit() const { return custom_client_; }

    // Where the reference binaries are by default: next to the app's build
    // tree (build/app/gui/stallscope -> build/reference-services/), else "".
    static QString defaultBinDir();
    // A TCP port on 127.0.0.1 free right now (20000-29999), for the scenario.
    static int pickFreePort();
    // Where captures are written by default: the user's data folder
    // (QStandardPaths::AppDataLocation)/captures, made if missing.
    static QString defaultCaptureDir();

private:
    // The constructor's steps, in order.
    QFormLayout* buildWhereForm();
    QTabWidget* buildModeTabs(const QString& binDir, const QString& toolkitDir);
    QPushButton* addPreviewAndButtons(QVBoxLayout* top);
    void connectInputs();
    void updatePreview();
    void onPortChanged();
    void onToolkitChanged();
    void restoreChoices();   // QSettings "live/...": the last Start's choices
    void saveChoices();
    void browseOutput();

    QComboBox* iface_;
    QLineEdit* filter_;
    bool filter_edited_ = false;
    QLineEdit* out_;
    QDoubleSpinBox* duration_;
    QCheckBox* keylog_;       // give the commands SSLKEYLOGFILE beside the capture
    QSpinBox* port_;
    QTabWidget* modes_;
    // reference service
    QLineEdit* bin_dir_;
    QComboBox *profile_, *op_;
    QSpinBox *size_, *calls_;
    // toolkit
    QLineEdit* toolkit_dir_;
    QComboBox *toolkit_, *variant_;
    QSpinBox* toolkit_calls_;
    // custom
    QLineEdit *custom_server_, *custom_client_;
    QPlainTextEdit* preview_;
};

} // namespace stallscope::gui::live
