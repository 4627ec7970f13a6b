#pragma once
// The key log of a live capture: the file the commands get as
// SSLKEYLOGFILE, created (0600, emptied) before they start and read as it
// grows. Each poll returns the complete lines added since the last one,
// which the session embeds in the pcapng as a Decryption Secrets Block and
// gives to the analysis before the packets that follow. The lines are
// secrets: they go into the capture and the key store only, never into a
// message (warnings name the file and a line number). No Qt.
#include <cstdint>
#include <string>

namespace stallscope::live {

class KeyLogTail {
public:
    KeyLogTail() = default;
    ~KeyLogTail();
    KeyLogTail(const KeyLogTail&) = delete;
    KeyLogTail& operator=(const KeyLogTail&) = delete;

    // Creates (or empties) path with mode 0600. False with error set.
    bool create(const std::string& path, std::string& error);
    bool active() const { return fd_ >= 0; }
    const std::string& path() const { return path_; }

    // The complete lines appended since the last poll ("" when none); a line
    // still being written waits for its '\n'. first_line: the number of the
    // first returned line in the file (for warnings).
    std::string poll(uint64_t& first_line);
    uint64_t lines() const { return lines_; }  // complete lines seen so far

    // Closes the file; removes it when nothing was ever written to it (no
    // command spoke TLS), so a plaintext capture leaves no empty key log.
    void close();

private:
    std::string path_;
    int fd_ = -1;
    uint64_t read_ = 0;      // bytes read so far
    std::string partial_;    // an unfinished last line
    uint64_t lines_ = 0;
};

// Where `capture --run` keeps the key log of OUT: OUT without its .pcapng /
// .pcap / .cap extension, plus ".keylog".
std::string keylog_path_beside(const std::string& capture_path);

} // namespace stallscope::live
