#pragma once
// Factories of the built-in detectors (one .cpp each in this directory);
// analyzers/detectors/all_detectors.cpp lists them in report order.
#include "analyzers/detectors/detector.h"

#include <memory>

namespace stallscope {

std::unique_ptr<Detector> make_nagle_delayed_ack_detector();
std::unique_ptr<Detector> make_split_write_detector();
std::unique_ptr<Detector> make_expect_100_wait_detector();
std::unique_ptr<Detector> make_connection_setup_detector();
std::unique_ptr<Detector> make_server_time_detector();
std::unique_ptr<Detector> make_retransmission_detector();
std::unique_ptr<Detector> make_message_size_detector(uint64_t deflate_sample_first, XmlSampling xml);
std::unique_ptr<Detector> make_tls_nagle_delayed_ack_detector();
std::unique_ptr<Detector> make_tls_split_write_detector();
std::unique_ptr<Detector> make_tls_ticket_stall_detector();
std::unique_ptr<Detector> make_tls_resumption_missing_detector();
std::unique_ptr<Detector> make_tls_certificate_flight_detector();

} // namespace stallscope
