# The wheel build's fmt: header-only (FMT_HEADER_ONLY), so the binary links no libfmt.so.
# Found through fmt_DIR by scripts/wheel; AV_WHEEL_INCLUDE is its header folder.
set(fmt_VERSION 9.1.0)
if(NOT TARGET fmt::fmt)
  add_library(fmt::fmt INTERFACE IMPORTED)
  set_target_properties(fmt::fmt PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${AV_WHEEL_INCLUDE}"
                        INTERFACE_COMPILE_DEFINITIONS "FMT_HEADER_ONLY=1")
endif()
