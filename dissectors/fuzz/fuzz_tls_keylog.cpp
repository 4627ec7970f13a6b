// libFuzzer: the NSS key log parser. Arbitrary text: no crash, bounded
// warnings, and a warning never carries any of the input's bytes beyond the
// source name and line numbers (key material never appears in a warning).
#include "dissectors/tls/keylog.h"

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    TlsKeyStore keys;
    size_t warnings = 0;
    const std::string source = "fuzz.keys";
    keys.add_key_log(std::string_view(reinterpret_cast<const char*>(data), size), source,
                     [&](const std::string& w) {
                         ++warnings;
                         if (w.rfind(source + ": ", 0) != 0) std::abort();
                         // After the source: fixed words and digits only.
                         for (char c : w.substr(source.size()))
                             if (!std::isdigit(static_cast<unsigned char>(c)) && !std::islower(static_cast<unsigned char>(c)) &&
                                 c != ' ' && c != ',' && c != ':')
                                 std::abort();
                     });
    if (warnings > 6) std::abort();  // at most five lines, then one count
    return 0;
}
