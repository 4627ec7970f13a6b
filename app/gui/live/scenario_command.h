#pragma once
// The command lines a live capture runs, built from the capture dialog's
// choices: a reference-service scenario (stallscope-refserver + refclient),
// a real-toolkit script (reference-services/toolkits/*.sh, which starts its
// own server), or the user's own server and client lines. Plain C++ so the
// choices can be tested without widgets.
#include <string>
#include <vector>

namespace stallscope::gui::live {

struct RefScenario {
    std::string bin_dir;          // holds stallscope-refserver and stallscope-refclient
    std::string profile = "xsoap", op = "echoStrings";
    int size = 10, calls = 20, port = 8080;
};

struct ToolkitScenario {
    std::string script;           // path of reference-services/toolkits/toolkit-NAME.sh
    std::string variant;          // "", "--fixed" or "--keepalive"
    int calls = 5, port = 8080;
};

struct ScenarioCommands {
    std::string server, client;   // /bin/sh -c lines; server may be empty
};

// 'x' -> x, "a b" -> 'a b', "it's" -> 'it'\''s': safe inside /bin/sh -c.
std::string shell_quote(const std::string& s);
ScenarioCommands reference_commands(const RefScenario& s);
ScenarioCommands toolkit_commands(const ToolkitScenario& s);
// The capture filter for a scenario on one TCP port.
std::string port_filter(int port);

// Reference profiles and operations (as stallscope-refserver --list-profiles
// and refclient --help name them), and the toolkit scripts in a directory.
const std::vector<std::string>& reference_profiles();
const std::vector<std::string>& reference_operations();
std::vector<std::string> toolkit_scripts(const std::string& dir);
// "--keepalive" exists only for some scripts (their usage names it).
std::vector<std::string> toolkit_variants(const std::string& script);

} // namespace stallscope::gui::live
