# The wheel build's nlohmann/json (header-only), from the wheel's header folder so that no
# /usr/include path reaches the compiler (its C headers are for the build machine's glibc).
set(nlohmann_json_VERSION 3.11.2)
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
                        INTERFACE_INCLUDE_DIRECTORIES "${AV_WHEEL_INCLUDE}")
endif()
