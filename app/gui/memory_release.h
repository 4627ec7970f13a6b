#pragma once
// Memory handed back to the system after a load, a cancel or a reload: the
// analysis frees its open connections on a worker thread, whose malloc arena
// keeps the pages unless asked to give them back (+90 MB per reload before).
#include <cstdint>

namespace stallscope::gui {

void releaseFreedMemory();      // malloc_trim where the C library has it
uint64_t residentBytes();       // this process' RSS now (0 when unknown)

} // namespace stallscope::gui
