#pragma once
// Colours and fonts shared by the cairo exporters (and available to the Qt
// view so screen and export match). Components are 0..1.
#include "analyzers/result/model.h"

namespace stallscope::style {

struct Rgb { double r, g, b; };

constexpr const char* kFont = "DejaVu Sans";
constexpr const char* kMonoFont = "DejaVu Sans Mono";

constexpr Rgb kInk{0.13, 0.14, 0.16};          // titles, lane lines
constexpr Rgb kMuted{0.42, 0.44, 0.48};        // time labels, breaks
constexpr Rgb kGrid{0.88, 0.89, 0.91};
constexpr Rgb kClientData{0.12, 0.38, 0.75};   // request data
constexpr Rgb kServerData{0.05, 0.52, 0.38};   // response data
constexpr Rgb kContinue{0.55, 0.27, 0.68};     // 100 Continue
constexpr Rgb kPureAck{0.55, 0.56, 0.58};      // dashed
constexpr Rgb kControl{0.25, 0.27, 0.30};      // SYN / FIN
constexpr Rgb kReset{0.75, 0.10, 0.10};
constexpr Rgb kRetransmit{0.90, 0.45, 0.05};
constexpr Rgb kStall{0.84, 0.15, 0.16};        // brackets, overlays
constexpr Rgb kEvidence{1.00, 0.90, 0.45};     // label highlight

Rgb phase_colour(PhaseKind k);

} // namespace stallscope::style
