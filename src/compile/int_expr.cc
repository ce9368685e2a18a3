#include "compile/int_expr.h"

#include <cctype>

namespace av {
namespace {

class ExprParser {
 public:
  ExprParser(std::string_view s, const IntConstants& c) : s_(s), constants_(c) {}

  Result<int64_t> Parse() {
    auto v = Sum(0);
    if (!v.ok()) return v;
    SkipSpaces();
    if (pos_ != s_.size()) return Error("unexpected '" + std::string(s_.substr(pos_, 16)) + "'");
    return v;
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidInput("expression \"" + std::string(s_.substr(0, 120)) + "\": " + what);
  }
  void SkipSpaces() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Peek(char c) {
    SkipSpaces();
    return pos_ < s_.size() && s_[pos_] == c;
  }

  Result<int64_t> Sum(int depth) {
    AV_ASSIGN_OR_RETURN(int64_t left, Product(depth));
    while (Peek('+') || Peek('-')) {
      char op = s_[pos_++];
      AV_ASSIGN_OR_RETURN(int64_t right, Product(depth));
      int64_t out;
      bool overflow = op == '+' ? __builtin_add_overflow(left, right, &out)
                                : __builtin_sub_overflow(left, right, &out);
      if (overflow) return Error("overflow");
      left = out;
    }
    return left;
  }

  Result<int64_t> Product(int depth) {
    AV_ASSIGN_OR_RETURN(int64_t left, Unary(depth));
    while (Peek('*') || Peek('/') || Peek('%')) {
      char op = s_[pos_++];
      AV_ASSIGN_OR_RETURN(int64_t right, Unary(depth));
      if (op == '*') {
        if (__builtin_mul_overflow(left, right, &left)) return Error("overflow");
      } else {
        if (right == 0) return Error("division by zero");
        if (left == INT64_MIN && right == -1) return Error("overflow");
        left = op == '/' ? left / right : left % right;
      }
    }
    return left;
  }

  Result<int64_t> Unary(int depth) {
    if (depth > 64) return Error("nested too deeply");
    if (Peek('-')) {
      ++pos_;
      AV_ASSIGN_OR_RETURN(int64_t v, Unary(depth + 1));
      if (v == INT64_MIN) return Error("overflow");
      return -v;
    }
    if (Peek('+')) {
      ++pos_;
      return Unary(depth + 1);
    }
    if (Peek('(')) {
      ++pos_;
      AV_ASSIGN_OR_RETURN(int64_t v, Sum(depth + 1));
      if (!Peek(')')) return Error("missing ')'");
      ++pos_;
      return v;
    }
    SkipSpaces();
    if (pos_ >= s_.size()) return Error("ends early");
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) return Number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                  s_[pos_] == '_' || s_[pos_] == ':')) {
        ++pos_;
      }
      std::string_view name = s_.substr(start, pos_ - start);
      auto it = constants_.find(name);
      if (it == constants_.end()) return Error("unknown name '" + std::string(name) + "'");
      return it->second;
    }
    return Error("unexpected '" + std::string(1, c) + "'");
  }

  Result<int64_t> Number() {
    int base = 10;
    if (s_.substr(pos_, 2) == "0x" || s_.substr(pos_, 2) == "0X") {
      base = 16;
      pos_ += 2;
    }
    uint64_t v = 0;
    int digits = 0;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      int d;
      if (c == '\'') {  // C++14 digit separator
        ++pos_;
        continue;
      }
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c)))
        d = std::tolower(c) - 'a' + 10;
      else
        break;
      if (v > (static_cast<uint64_t>(INT64_MAX) - d) / base) return Error("number too large");
      v = v * base + d;
      ++digits;
      ++pos_;
    }
    if (digits == 0) return Error("malformed number");
    while (pos_ < s_.size() &&
           (s_[pos_] == 'u' || s_[pos_] == 'U' || s_[pos_] == 'l' || s_[pos_] == 'L'))
      ++pos_;
    return static_cast<int64_t>(v);
  }

  std::string_view s_;
  const IntConstants& constants_;
  size_t pos_ = 0;
};

}  // namespace

Result<int64_t> EvaluateIntExpression(std::string_view expr, const IntConstants& constants) {
  if (expr.size() > 4096) return InvalidInput("expression longer than 4096 characters");
  return ExprParser(expr, constants).Parse();
}

}  // namespace av
