#include "core/json_lines.h"

#include <nlohmann/json.hpp>
#include <set>

namespace av {
namespace {

constexpr int kMaxDepth = 256;

class Scanner {
 public:
  Scanner(std::string_view text, JsonLines* out) : text_(text), out_(out) {}

  Status Document() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a byte order mark, as nlohmann allows
    SkipSpace();
    AV_RETURN_IF_ERROR(Value("", 0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("text after the JSON value");
    return Status::Ok();
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidInput("line " + std::to_string(line_) + ": " + what);
  }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        break;
      }
      ++pos_;
    }
  }

  // A string token, returned decoded (nlohmann decodes the escapes).
  Status String(std::string* decoded) {
    size_t start = pos_++;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ >= text_.size()) return Error("unterminated string");
    ++pos_;
    if (decoded == nullptr) return Status::Ok();
    nlohmann::json j = nlohmann::json::parse(text_.substr(start, pos_ - start), nullptr, false);
    if (!j.is_string()) return Error("a key that is not a valid string");
    *decoded = j.get<std::string>();
    return Status::Ok();
  }

  Status Value(const std::string& pointer, int depth) {
    if (depth > kMaxDepth) return Error("nested deeper than " + std::to_string(kMaxDepth));
    if (pos_ >= text_.size()) return Error("a value is missing");
    out_->lines[pointer] = line_;
    char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      std::set<std::string> seen;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return Status::Ok();
      }
      for (;;) {
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a key");
        std::string key;
        AV_RETURN_IF_ERROR(String(&key));
        std::string child = pointer + "/" + JsonPointerToken(key);
        if (!seen.insert(key).second) out_->duplicate_keys.push_back(child);
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != ':') return Error("expected ':'");
        ++pos_;
        SkipSpace();
        AV_RETURN_IF_ERROR(Value(child, depth + 1));
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == '}') {
          ++pos_;
          return Status::Ok();
        }
        return Error("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return Status::Ok();
      }
      for (size_t i = 0;; ++i) {
        SkipSpace();
        AV_RETURN_IF_ERROR(Value(pointer + "/" + std::to_string(i), depth + 1));
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          return Status::Ok();
        }
        return Error("expected ',' or ']'");
      }
    }
    if (c == '"') return String(nullptr);
    // A number, true, false or null: up to the next delimiter.
    size_t start = pos_;
    while (pos_ < text_.size() &&
           std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) {
      ++pos_;
    }
    if (pos_ == start) return Error("unexpected character");
    return Status::Ok();
  }

  std::string_view text_;
  JsonLines* out_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

int JsonLines::LineOf(const std::string& pointer) const {
  std::string p = pointer;
  for (;;) {
    auto it = lines.find(p);
    if (it != lines.end()) return it->second;
    size_t slash = p.rfind('/');
    if (slash == std::string::npos) return 1;
    p.resize(slash);
  }
}

std::string JsonPointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

Result<JsonLines> LocateJsonValues(std::string_view text) {
  JsonLines out;
  Scanner scanner(text, &out);
  AV_RETURN_IF_ERROR(scanner.Document());
  return out;
}

}  // namespace av
