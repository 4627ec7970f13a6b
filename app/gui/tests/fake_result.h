#pragma once
// Hand-made analysis results and a fake backend, so the GUI's models and
// views are tested without the analysis core.
#include "app/gui/gui_backend.h"

namespace stallscope::gui::test {

// 3 connections, 6 calls (2 per connection), 3 findings:
//  call 2: nagle_delayed_ack 40 ms (client), call 4: split_write 5 ms,
//  calls 5+6: connection_per_call 2 ms (spans both). Call 6 is a 500 fault;
//  call 3 is incomplete. Every call has 6 segments (frames 10*id+1..+6).
AnalysisResult makeResult();

// analyze(path): "fake:ok" -> makeResult(); "fake:slow" -> reports progress
// until cancelled (bounded: 20 s); anything else -> ok=false with an error.
// Layouts: one arrow per segment, 20 px apart.
GuiBackend fakeBackend();

} // namespace stallscope::gui::test
