#include "analyzers/result/warning_code.h"

namespace stallscope {

const char* warning_code_name(WarningCode c) {
    switch (c) {
    case WarningCode::Other: return "other";
    case WarningCode::CaptureDamaged: return "capture_damaged";
    case WarningCode::FrameUndecodable: return "frame_undecodable";
    case WarningCode::UnsupportedLinkType: return "unsupported_link_type";
    case WarningCode::FragmentDropped: return "fragment_dropped";
    case WarningCode::UntimedFramesCap: return "untimed_frames_cap";
    case WarningCode::MissingTimestamp: return "missing_timestamp";
    case WarningCode::BackwardsTimestamp: return "backwards_timestamp";
    case WarningCode::OpenConnectionCap: return "open_connection_cap";
    case WarningCode::UnackedSegmentCap: return "unacked_segment_cap";
    case WarningCode::OutOfOrderCap: return "out_of_order_cap";
    case WarningCode::SegmentHistoryCap: return "segment_history_cap";
    case WarningCode::BytesUnplaced: return "bytes_unplaced";
    case WarningCode::BeganBeforeCapture: return "began_before_capture";
    case WarningCode::HttpStreamError: return "http_stream_error";
    case WarningCode::NotHttp: return "not_http";
    case WarningCode::ResponseBeforeRequest: return "response_before_request";
    case WarningCode::ResponseWithoutRequest: return "response_without_request";
    case WarningCode::ResponseNotCaptured: return "response_not_captured";
    case WarningCode::PendingRequestCap: return "pending_request_cap";
    case WarningCode::BodyNotCaptured: return "body_not_captured";
    case WarningCode::DecompressedSizeCap: return "decompressed_size_cap";
    case WarningCode::SoapBodyCap: return "soap_body_cap";
    case WarningCode::SpillUnavailable: return "spill_unavailable";
    case WarningCode::WarningsSuppressed: return "warnings_suppressed";
    case WarningCode::LiveRun: return "live_run";
    case WarningCode::LiveWriteFailed: return "live_write_failed";
    }
    return "other";
}

bool warning_text_names_frame(WarningCode c) {
    switch (c) {
    case WarningCode::FrameUndecodable:
    case WarningCode::UnsupportedLinkType:
    case WarningCode::FragmentDropped:
    case WarningCode::UntimedFramesCap:
    case WarningCode::MissingTimestamp:
    case WarningCode::BackwardsTimestamp:
    case WarningCode::OpenConnectionCap:
    case WarningCode::UnackedSegmentCap:
    case WarningCode::OutOfOrderCap:
    case WarningCode::SegmentHistoryCap:
    case WarningCode::BytesUnplaced:
    case WarningCode::ResponseBeforeRequest:
    case WarningCode::ResponseNotCaptured:
    case WarningCode::PendingRequestCap: return true;
    default: return false;
    }
}

}  // namespace stallscope
