// Wire-behaviour knobs shared by the reference client and server.
#pragma once
#include <string>

namespace stallscope::refsvc {

// How one HTTP message (head + body) is handed to the kernel.
enum class WriteMode { One, Writev, Split, Many };
// What the server does about `Expect: 100-continue`.
enum class ContinueMode { Immediate, Never, Late };

struct Knobs {
    bool nodelay = false;          // TCP_NODELAY (Nagle off)
    WriteMode write = WriteMode::One;
    bool http11 = true;            // false: HTTP/1.0, one connection per call
    int expect_100_ms = -1;        // client: <0 no Expect header, else wait up to this many ms for 100
    ContinueMode continue_mode = ContinueMode::Immediate;  // server only
    bool chunked = false;          // server responses with Transfer-Encoding: chunked (HTTP/1.1 only)
    bool delack = false;           // TCP_QUICKACK=0 after connect/accept and each read (Windows-like receiver)
};

const char* to_string(WriteMode m);
const char* to_string(ContinueMode m);
bool parse_write_mode(const std::string& s, WriteMode& out);
bool parse_continue_mode(const std::string& s, ContinueMode& out);
// One line "nodelay=off write=split http=1.0 ..." used in README and --help.
std::string describe(const Knobs& k, bool server_side);

}  // namespace stallscope::refsvc
