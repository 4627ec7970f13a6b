#pragma once
// TLS 1.3 for the bench's HTTPS capture (TLS_AES_128_GCM_SHA256, sealed with
// libcrypto through dissectors/tls/tls_crypto.h): per connection a
// ClientHello, the server's ServerHello with its encrypted
// EncryptedExtensions + Finished, the client's encrypted Finished, then
// each payload in one application-data record, as an SSL_write per write.
// The secrets come from the connection's number (a benchmark, not
// security) and are written as NSS key log lines, so the analysis decrypts
// every record.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::cli {

class SyntheticTls {
public:
    explicit SyntheticTls(uint64_t connection_index);
    std::string client_hello() const;
    std::string server_flight();     // ServerHello + [EncryptedExtensions, Finished]
    std::string client_finished();   // [Finished]
    std::string seal(bool from_client, const std::string& plain);  // one application-data record
    std::string keylog_lines() const;
    bool ok() const { return ok_; }  // the keys could be derived and every record sealed

private:
    struct Dir {
        std::vector<uint8_t> hs_secret, app_secret, hs_key, hs_iv, app_key, app_iv;
        uint64_t seq = 0;
        bool app = false;
    };
    std::string record(Dir& d, const std::string& inner, uint8_t inner_type);

    std::array<uint8_t, 32> client_random_{}, server_random_{};
    Dir dir_[2];  // 0 client, 1 server
    bool ok_ = true;
};

} // namespace stallscope::cli
