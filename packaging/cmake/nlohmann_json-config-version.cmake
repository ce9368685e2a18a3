# Debian bookworm's nlohmann-json3-dev is 3.11.2; CMakeLists.txt asks for 3.10 or newer.
set(PACKAGE_VERSION 3.11.2)
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
