#include "reference-services/refsvc/profiles.h"

namespace stallscope::refsvc {
namespace {

Knobs knobs(bool nodelay, WriteMode w, bool http11, ContinueMode c = ContinueMode::Immediate) {
    Knobs k;
    k.nodelay = nodelay;
    k.write = w;
    k.http11 = http11;
    k.continue_mode = c;
    return k;
}

// The fixed variant of every profile applies every fix at once: one gather write,
// TCP_NODELAY, HTTP/1.1 keep-alive, and a server that only answers Expect when asked.
Profile fixed(const std::string& base) {
    return Profile{base + "-fixed", "fixes for " + base + ": writev, TCP_NODELAY, keep-alive, no unneeded 100",
                   knobs(true, WriteMode::Writev, true), knobs(true, WriteMode::Writev, true)};
}

std::vector<Profile> build() {
    using W = WriteMode;
    std::vector<Profile> v;
    v.push_back({"apache-soap",
                 "Apache SOAP 2.x (seed Fig. 2): HTTP/1.0, headers and body in two writes, Nagle on",
                 knobs(false, W::Split, false), knobs(false, W::Split, false)});
    v.push_back(fixed("apache-soap"));
    v.push_back({"ms-soap",
                 "MS SOAP Toolkit (seed Fig. 3): server sends 100 Continue after the body, Nagle holds the response",
                 knobs(false, W::One, true), knobs(false, W::One, true, ContinueMode::Late)});
    v.push_back(fixed("ms-soap"));
    v.push_back({"soaplite",
                 "SOAP::Lite-like: HTTP/1.0, client writes headers then body, server one write, Nagle on",
                 knobs(false, W::Split, false), knobs(false, W::One, false)});
    v.push_back(fixed("soaplite"));
    v.push_back({"xsoap", "XSOAP/SoapRMI-like: HTTP/1.1 keep-alive, headers and body in two writes, Nagle on",
                 knobs(false, W::Split, true), knobs(false, W::Split, true)});
    v.push_back(fixed("xsoap"));
    v.push_back({"gsoap", "gSOAP-like clean baseline: one write, TCP_NODELAY, keep-alive",
                 knobs(true, W::One, true), knobs(true, W::One, true)});
    v.push_back(fixed("gsoap"));
    return v;
}

}  // namespace

const std::vector<Profile>& all_profiles() {
    static const std::vector<Profile> v = build();
    return v;
}

const Profile* find_profile(const std::string& name) {
    for (const auto& p : all_profiles())
        if (p.name == name) return &p;
    return nullptr;
}

std::string profile_names() {
    std::string s;
    for (const auto& p : all_profiles()) {
        if (!s.empty()) s += ", ";
        s += p.name;
    }
    return s;
}

}  // namespace stallscope::refsvc
