#include "app/gui/memory_release.h"

#include <cstdio>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace stallscope::gui {

// mimalloc's, when the executable links it (CMake STALLSCOPE_MIMALLOC): a
// weak reference, so the library and its tests need no mimalloc.
extern "C" void mi_collect(bool force) __attribute__((weak));

void releaseFreedMemory() {
    if (mi_collect) mi_collect(true);   // its pages back to the system
#if defined(__GLIBC__)
    malloc_trim(0);   // every arena, not only the main one (glibc >= 2.8)
#endif
}

uint64_t residentBytes() {
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long size = 0, resident = 0;
    const bool ok = std::fscanf(f, "%lu %lu", &size, &resident) == 2;
    std::fclose(f);
    return ok ? uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}

} // namespace stallscope::gui
