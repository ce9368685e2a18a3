// A fuzz target that must crash, for the replay driver's own test (fuzz/replay_selftest.cmake):
// it traps on any input that starts with "{}" and is longer than two bytes, which the
// driver's mutations reach from the seed fuzz/corpus/replay_selftest/seed.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2 && data[0] == '{' && data[1] == '}') __builtin_trap();
  return 0;
}
