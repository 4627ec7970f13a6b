// Catch2 main for tests that need a QApplication: offscreen platform unless
// the caller chose one, and settings in a throw-away directory.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>
#include <QTemporaryDir>

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("StallScopeTests"));
    QApplication::setApplicationName(QStringLiteral("StallScopeTests"));
    return Catch::Session().run(argc, argv);
}
