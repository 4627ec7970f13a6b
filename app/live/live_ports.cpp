#include "app/live/live_ports.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace stallscope::live {

std::vector<int> filter_ports(const std::string& filter) {
    std::vector<int> ports;
    // Tokens, then "port" followed by a number ("portrange" is not a port).
    std::vector<std::string> tok;
    std::string cur;
    for (char ch : filter) {
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
            cur += ch;
        } else {
            if (!cur.empty()) tok.push_back(cur);
            cur.clear();
        }
    }
    if (!cur.empty()) tok.push_back(cur);
    for (size_t i = 0; i + 1 < tok.size(); ++i) {
        if (tok[i] != "port") continue;
        const std::string& n = tok[i + 1];
        if (n.empty() || n.size() > 5 || !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        const int p = std::stoi(n);
        if (p > 0 && p <= 65535) ports.push_back(p);
    }
    return ports;
}

bool tcp_port_listening(int port) {
    for (const char* path : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);  // header
        for (int n = 0; n < 100000 && std::getline(in, line); ++n) {
            // "  0: 0100007F:1F90 00000000:0000 0A ..." local, remote, state (0A = LISTEN)
            char local[128] = {}, remote[128] = {}, state[8] = {};
            if (std::sscanf(line.c_str(), " %*[0-9]: %127s %127s %7s", local, remote, state) != 3) continue;
            if (std::strcmp(state, "0A") != 0) continue;
            const char* colon = std::strrchr(local, ':');
            if (!colon) continue;
            unsigned p = 0;
            if (std::sscanf(colon + 1, "%x", &p) == 1 && int(p) == port) return true;
        }
    }
    return false;
}

} // namespace stallscope::live
