# The wheel build's CLI11 (header-only), from the wheel's header folder.
set(CLI11_VERSION 2.1.2)
if(NOT TARGET CLI11::CLI11)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${AV_WHEEL_INCLUDE}")
endif()
