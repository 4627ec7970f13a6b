#pragma once
// Which TLS handshake messages a segment completed, in the high byte of
// SegmentInfo::carries (the low byte says what the bytes belong to; these
// bits come only with carries::kTlsHandshake). Event traces name the
// records by them ("TLS ClientHello", "TLS ServerHello+Certificate"); set
// by analyzers/calls/tls_keyless_calls.cpp, with or without keys.
#include <cstdint>

namespace stallscope::carries {
constexpr uint16_t kTlsClientHello = 1 << 8;
constexpr uint16_t kTlsServerHello = 1 << 9;
constexpr uint16_t kTlsCertificate = 1 << 10;
constexpr uint16_t kTlsKeyExchange = 1 << 11;      // (Client|Server)KeyExchange, ServerHelloDone, CertificateRequest/Verify
constexpr uint16_t kTlsFinished = 1 << 12;         // a clear (or decrypted) Finished
constexpr uint16_t kTlsSessionTicket = 1 << 13;
constexpr uint16_t kTlsChangeCipherSpec = 1 << 14;
constexpr uint16_t kTlsEncryptedHandshake = 1 << 15;  // TLS 1.3's hidden flight, TLS 1.2's Finished after ChangeCipherSpec
constexpr uint16_t kTlsMessages = 0xFF00;
// An alert (close_notify, or a fatal one): the bits are full, and a ClientHello
// and a ServerHello never end in one segment (they go opposite ways), so the
// two together mean an alert.
constexpr uint16_t kTlsAlert = kTlsClientHello | kTlsServerHello;
} // namespace stallscope::carries
