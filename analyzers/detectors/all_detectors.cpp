#include "analyzers/detectors/detector.h"

#include "analyzers/detectors/builtin.h"

namespace stallscope {

// The one list of detectors, in report order.
std::vector<std::unique_ptr<Detector>> make_detectors(uint64_t deflate_sample_first, XmlSampling xml) {
    std::vector<std::unique_ptr<Detector>> v;
    v.push_back(make_nagle_delayed_ack_detector());
    v.push_back(make_split_write_detector());
    v.push_back(make_expect_100_wait_detector());
    v.push_back(make_connection_setup_detector());
    v.push_back(make_server_time_detector());
    v.push_back(make_retransmission_detector());
    v.push_back(make_message_size_detector(deflate_sample_first, xml));
    // TLS (docs/https.md): they find nothing on plaintext HTTP.
    v.push_back(make_tls_nagle_delayed_ack_detector());
    v.push_back(make_tls_split_write_detector());
    v.push_back(make_tls_ticket_stall_detector());
    v.push_back(make_tls_resumption_missing_detector());
    v.push_back(make_tls_certificate_flight_detector());
    return v;
}

} // namespace stallscope
