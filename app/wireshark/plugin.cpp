// Wireshark 4.0 plugin entry points (4.0 has no plugin_describe). Declared
// before they are defined: a namespace-scope `const` defined inside
// extern "C" { } would otherwise get internal linkage and no dynamic symbol.
#define WS_LOG_DOMAIN "stallscope"
#include <wireshark.h>
#include <epan/proto.h>
#include <ws_version.h>

#include "app/wireshark/packet-stallscope.h"

extern "C" {
WS_DLL_PUBLIC const gchar plugin_version[];
WS_DLL_PUBLIC const int plugin_want_major;
WS_DLL_PUBLIC const int plugin_want_minor;
WS_DLL_PUBLIC void plugin_register(void);
}

const gchar plugin_version[] = PLUGIN_VERSION;
const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

void plugin_register(void) {
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_stallscope;
    plug.register_handoff = proto_reg_handoff_stallscope;
    proto_register_plugin(&plug);
}
