#pragma once
// Stands in for a library header found through -Icsrc/cutlass/include. It includes a
// system header (not read) and a header of its own (read).
#include <cstdint>
#include <cute/layout.hpp>
