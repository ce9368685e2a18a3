// CHECK(cond) << "message": aborts on a broken invariant (a bug, never bad input).
// Bad input is reported with Status; CHECK is for what cannot happen if the code is right.
// Thread-safe: the message is built locally and written with one call.
#pragma once

#include <sstream>

namespace av::internal {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Lets `CHECK(x) << ...` be an expression of type void in both branches.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace av::internal

#define CHECK(condition)                    \
  (condition) ? (void)0                     \
              : ::av::internal::Voidify() & \
                    ::av::internal::CheckFailure(__FILE__, __LINE__, #condition).stream()
