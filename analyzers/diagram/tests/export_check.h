#pragma once
// Reading back exported files in the tests.
#include <cstdint>
#include <string>

namespace stallscope::test {

std::string temp_dir();                              // a fresh directory for this test run
std::string read_file(const std::string& path);
size_t count(const std::string& hay, const std::string& needle);
bool png_size(const std::string& path, uint32_t& w, uint32_t& h);   // from IHDR
bool png_decodes(const std::string& path);                          // cairo reads it back
int pdf_pages(const std::string& path);              // pdfinfo; -1 when unavailable
bool have_tool(const char* name);
int run(const std::string& cmd);                     // exit status of a shell command

} // namespace stallscope::test
