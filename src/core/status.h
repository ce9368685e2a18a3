// Status and Result<T>: how library code reports failure (leveldb style).
// A Status is a code plus a message that names the file, line or tensor coordinate
// at fault. No exception crosses a module boundary; only cli/ turns a Status into
// an exit code. Values are plain data, safe to pass between threads.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "core/check.h"

namespace av {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // the user's file, flag or data is wrong (exit 2)
  kNotFound,      // a named file or tensor does not exist (exit 2)
  kIoError,       // the operating system refused (exit 2)
  kUnsupported,   // well-formed input we deliberately do not handle (exit 2)
  kInternal,      // a bug in attnverify (exit 3)
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "context: message" — lets a caller add the file name a callee did not know.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidInput(std::string m) {
  return Status(StatusCode::kInvalidInput, std::move(m));
}
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status IoError(std::string m) { return Status(StatusCode::kIoError, std::move(m)); }
inline Status Unsupported(std::string m) { return Status(StatusCode::kUnsupported, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

// Either a value or a non-ok Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    CHECK(!status_.ok()) << "Result constructed from an ok Status without a value";
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    CHECK(ok()) << status_.message();
    return *value_;
  }
  const T& value() const& {
    CHECK(ok()) << status_.message();
    return *value_;
  }
  T&& value() && {
    CHECK(ok()) << status_.message();
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace av

#define AV_CONCAT_INNER(a, b) a##b
#define AV_CONCAT(a, b) AV_CONCAT_INNER(a, b)

#define AV_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::av::Status av_status_ = (expr);        \
    if (!av_status_.ok()) return av_status_; \
  } while (0)

#define AV_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

// AV_ASSIGN_OR_RETURN(auto x, ComputeX()); returns the error from the enclosing function.
#define AV_ASSIGN_OR_RETURN(lhs, expr) \
  AV_ASSIGN_OR_RETURN_IMPL(AV_CONCAT(av_result_, __LINE__), lhs, expr)
