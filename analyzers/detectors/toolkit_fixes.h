#pragma once
// Recognises the SOAP/HTTP stack on each side from User-Agent (client) and
// Server (server) and names that stack's own setting for a finding's fix.
#include "analyzers/result/model.h"

#include <string>

namespace stallscope::detect {

struct ToolkitFix {
    std::string toolkit;  // "" = not recognised
    std::string fix;      // "" = no toolkit-specific setting known for this kind
};

// The toolkit whose behaviour `side` shows in `call`, from its header.
std::string recognise_toolkit(const std::string& header);
// The toolkit of `side` and its setting for a finding of `kind`.
ToolkitFix toolkit_fix(const Call& call, Side side, const std::string& kind);
// Fills finding.toolkit / toolkit_fix for its side.
void apply_toolkit_fix(Finding& f, const Call& call);

} // namespace stallscope::detect
