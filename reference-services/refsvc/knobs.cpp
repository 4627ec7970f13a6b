#include "reference-services/refsvc/knobs.h"

namespace stallscope::refsvc {

const char* to_string(WriteMode m) {
    switch (m) {
        case WriteMode::One: return "one";
        case WriteMode::Writev: return "writev";
        case WriteMode::Split: return "split";
        case WriteMode::Many: return "many";
    }
    return "?";
}

const char* to_string(ContinueMode m) {
    switch (m) {
        case ContinueMode::Immediate: return "immediate";
        case ContinueMode::Never: return "never";
        case ContinueMode::Late: return "late";
    }
    return "?";
}

bool parse_write_mode(const std::string& s, WriteMode& out) {
    if (s == "one") out = WriteMode::One;
    else if (s == "writev") out = WriteMode::Writev;
    else if (s == "split") out = WriteMode::Split;
    else if (s == "many") out = WriteMode::Many;
    else return false;
    return true;
}

bool parse_continue_mode(const std::string& s, ContinueMode& out) {
    if (s == "immediate") out = ContinueMode::Immediate;
    else if (s == "never") out = ContinueMode::Never;
    else if (s == "late") out = ContinueMode::Late;
    else return false;
    return true;
}

std::string describe(const Knobs& k, bool server_side) {
    std::string s;
    s += "nodelay=";
    s += k.nodelay ? "on" : "off";
    s += " write=";
    s += to_string(k.write);
    s += " http=";
    s += k.http11 ? "1.1" : "1.0";
    if (server_side) {
        s += " continue=";
        s += to_string(k.continue_mode);
        s += " chunked=";
        s += k.chunked ? "on" : "off";
    } else {
        s += " expect-100=";
        s += k.expect_100_ms < 0 ? std::string("off") : std::to_string(k.expect_100_ms) + "ms";
    }
    s += " delack=";
    s += k.delack ? "on" : "off";
    return s;
}

}  // namespace stallscope::refsvc
