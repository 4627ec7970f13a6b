# cmake -DPLUGIN=<stallscope.so> -DABI=4.0 -P install_personal.cmake
# Copies the plugin into $HOME/.local/lib/wireshark/plugins/<ABI>/epan/.
if(NOT PLUGIN OR NOT ABI)
  message(FATAL_ERROR "usage: cmake -DPLUGIN=<stallscope.so> -DABI=<major.minor> -P install_personal.cmake")
endif()
if("$ENV{HOME}" STREQUAL "")
  message(FATAL_ERROR "HOME is not set: cannot find the personal Wireshark plugin folder")
endif()
set(dest "$ENV{HOME}/.local/lib/wireshark/plugins/${ABI}/epan")
file(MAKE_DIRECTORY "${dest}")
file(COPY "${PLUGIN}" DESTINATION "${dest}"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
get_filename_component(name "${PLUGIN}" NAME)
message(STATUS "Installed ${dest}/${name}")
message(STATUS "Check with: tshark -G plugins | grep stallscope")
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(uid STREQUAL "0")
  message(WARNING "You are root: Wireshark and tshark started as root ignore personal plugin folders. "
                  "Run them as a normal user (install as that user), or install system-wide with "
                  "`cmake --install <build> --component wireshark-plugin --prefix /usr`.")
endif()
