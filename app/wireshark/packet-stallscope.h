#pragma once
// The epan side of the plugin: protocol, fields, expert info, postdissector.
#ifdef __cplusplus
extern "C" {
#endif

void proto_register_stallscope(void);
void proto_reg_handoff_stallscope(void);

#ifdef __cplusplus
}
#endif
