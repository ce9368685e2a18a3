# The wheel build's toml++: header-only (Debian's config links libtomlplusplus.so instead).
set(tomlplusplus_VERSION 3.3.0)
if(NOT TARGET tomlplusplus::tomlplusplus)
  add_library(tomlplusplus::tomlplusplus INTERFACE IMPORTED)
  set_target_properties(tomlplusplus::tomlplusplus PROPERTIES
                        INTERFACE_INCLUDE_DIRECTORIES "${AV_WHEEL_INCLUDE}"
                        INTERFACE_COMPILE_DEFINITIONS "TOML_HEADER_ONLY=1")
endif()
