#include "app/gui/live/scenario_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stallscope::gui::live {

std::string shell_quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=+,@%") ==
                          std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::string port_filter(int port) { return "tcp port " + std::to_string(port); }

ScenarioCommands reference_commands(const RefScenario& s) {
    const std::string dir = s.bin_dir.empty() ? "" : s.bin_dir + "/";
    const std::string port = std::to_string(s.port);
    ScenarioCommands c;
    // --max-seconds bounds a server that would otherwise outlive a crash of ours.
    c.server = shell_quote(dir + "stallscope-refserver") + " --profile " + shell_quote(s.profile) + " --port " + port +
               " --bind 127.0.0.1 --max-seconds 3600";
    c.client = shell_quote(dir + "stallscope-refclient") + " --profile " + shell_quote(s.profile) +
               " --url http://127.0.0.1:" + port + "/soap --op " + shell_quote(s.op) + " --size " +
               std::to_string(s.size) + " --calls " + std::to_string(s.calls) + " --timeout-s 10";
    return c;
}

ScenarioCommands toolkit_commands(const ToolkitScenario& s) {
    ScenarioCommands c;  // the script starts and stops its own server
    c.client = shell_quote(s.script) + (s.variant.empty() ? "" : " " + s.variant) + " --port " +
               std::to_string(s.port) + " --calls " + std::to_string(s.calls);
    return c;
}

const std::vector<std::string>& reference_profiles() {
    static const std::vector<std::string> v = {"xsoap",   "xsoap-fixed", "apache-soap", "apache-soap-fixed",
                                               "ms-soap", "ms-soap-fixed", "soaplite", "soaplite-fixed",
                                               "gsoap",   "gsoap-fixed"};
    return v;
}

const std::vector<std::string>& reference_operations() {
    static const std::vector<std::string> v = {"echoStrings", "echoInts",    "echoDoubles", "echoBase64", "echoVoid",
                                               "doNothing",   "getString",   "getIntegers", "setSize"};
    return v;
}

std::vector<std::string> toolkit_scripts(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("toolkit-", 0) == 0 && e.path().extension() == ".sh") out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> toolkit_variants(const std::string& script) {
    std::vector<std::string> v = {"", "--fixed"};
    std::ifstream in(script);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().find("|--keepalive") != std::string::npos) v.insert(v.begin() + 1, "--keepalive");
    return v;
}

} // namespace stallscope::gui::live
