// The JUnit XML subset pytest writes, parsed by hand without recursion (junit.h says what is
// accepted). Only <testcase> elements and their <property>, <failure>, <error> and
// <skipped> children are kept; everything else is checked for well-formedness and skipped.
#include "report/junit.h"

#include <algorithm>

namespace av {
namespace {

bool NameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':';
}
bool NameChar(char c) { return NameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }
bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  Result<JUnitReport> Run() {
    if (s_.size() > kMaxJUnitBytes) {
      return InvalidInput(path_ + ": larger than " + std::to_string(kMaxJUnitBytes >> 20) +
                          " MiB; not read");
    }
    if (s_.starts_with("\xEF\xBB\xBF")) Skip(3);
    bool root_seen = false;
    while (pos_ < s_.size()) {
      if (s_[pos_] != '<') {
        size_t end = std::min(s_.find('<', pos_), s_.size());
        std::string_view text = s_.substr(pos_, end - pos_);
        if (stack_.empty() && text.find_first_not_of(" \t\r\n") != std::string_view::npos) {
          return Error("text outside the root element");
        }
        std::string ignored;
        AV_RETURN_IF_ERROR(Decode(text, &ignored));
        Skip(end - pos_);
      } else if (s_.substr(pos_).starts_with("<?")) {
        AV_RETURN_IF_ERROR(SkipPast("?>", "processing instruction"));
      } else if (s_.substr(pos_).starts_with("<!--")) {
        AV_RETURN_IF_ERROR(SkipPast("-->", "comment"));
      } else if (s_.substr(pos_).starts_with("<![CDATA[")) {
        if (stack_.empty()) return Error("CDATA outside the root element");
        AV_RETURN_IF_ERROR(SkipPast("]]>", "CDATA section"));
      } else if (s_.substr(pos_).starts_with("<!")) {
        return Error("a DOCTYPE or markup declaration is not accepted (no DTDs, no entities)");
      } else if (s_.substr(pos_).starts_with("</")) {
        AV_RETURN_IF_ERROR(EndTag());
      } else {
        if (stack_.empty() && root_seen) return Error("a second root element");
        root_seen = true;
        AV_RETURN_IF_ERROR(StartTag());
      }
    }
    if (!stack_.empty()) {
      return InvalidInput(path_ + ":" + std::to_string(stack_.back().line) + ": <" +
                          stack_.back().name + "> is never closed");
    }
    if (!root_seen) return Error("no element: not a JUnit XML file");
    return std::move(report_);
  }

 private:
  struct Open {
    std::string name;
    int64_t line;
  };

  Status Error(const std::string& what) const {
    return InvalidInput(path_ + ":" + std::to_string(line_) + ": " + what);
  }

  void Skip(size_t n) {
    n = std::min(n, s_.size() - pos_);
    line_ += std::count(s_.begin() + pos_, s_.begin() + pos_ + n, '\n');
    pos_ += n;
  }

  Status SkipPast(std::string_view end, const char* what) {
    size_t at = s_.find(end, pos_);
    if (at == std::string_view::npos) return Error(std::string("unterminated ") + what);
    Skip(at + end.size() - pos_);
    return Status::Ok();
  }

  void SkipSpace() {
    while (pos_ < s_.size() && Space(s_[pos_])) Skip(1);
  }

  Result<std::string> Name() {
    if (pos_ >= s_.size() || !NameStart(s_[pos_])) return Error("expected a name");
    size_t start = pos_;
    while (pos_ < s_.size() && NameChar(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  // Character and the five predefined entity references; anything else is an error.
  Status Decode(std::string_view in, std::string* out) const {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] != '&') {
        *out += in[i];
        continue;
      }
      size_t semi = in.find(';', i);
      if (semi == std::string_view::npos || semi - i > 12) return Error("a bare '&'");
      std::string_view ref = in.substr(i + 1, semi - i - 1);
      if (ref == "lt")
        *out += '<';
      else if (ref == "gt")
        *out += '>';
      else if (ref == "amp")
        *out += '&';
      else if (ref == "quot")
        *out += '"';
      else if (ref == "apos")
        *out += '\'';
      else if (ref.size() > 1 && ref[0] == '#') {
        bool hex = ref[1] == 'x';
        std::string_view digits = ref.substr(hex ? 2 : 1);
        uint32_t cp = 0;
        if (digits.empty()) return Error("an empty character reference");
        for (char c : digits) {
          int d = c >= '0' && c <= '9'          ? c - '0'
                  : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                : -1;
          if (d < 0) return Error("a malformed character reference &" + std::string(ref) + ";");
          cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
          if (cp > 0x10FFFF) return Error("a character reference out of range");
        }
        AppendUtf8(cp, out);
      } else {
        return Error("unknown entity &" + std::string(ref) + "; (only the XML predefined ones)");
      }
      i = semi;
    }
    return Status::Ok();
  }

  Status StartTag() {
    const int64_t line = line_;
    Skip(1);
    AV_ASSIGN_OR_RETURN(std::string name, Name());
    std::vector<std::pair<std::string, std::string>> attrs;
    while (true) {
      size_t before = pos_;
      SkipSpace();
      if (pos_ >= s_.size()) return Error("unterminated <" + name + ">");
      if (s_[pos_] == '>' || s_.substr(pos_).starts_with("/>")) break;
      if (pos_ == before) return Error("expected a space before an attribute of <" + name + ">");
      AV_ASSIGN_OR_RETURN(std::string key, Name());
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '=') return Error("expected '=' after " + key);
      Skip(1);
      SkipSpace();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) {
        return Error("attribute " + key + " of <" + name + ">: expected a quoted value");
      }
      char quote = s_[pos_];
      size_t end = s_.find(quote, pos_ + 1);
      if (end == std::string_view::npos) return Error("attribute " + key + ": unterminated value");
      std::string_view raw = s_.substr(pos_ + 1, end - pos_ - 1);
      if (raw.find('<') != std::string_view::npos) return Error("'<' in attribute " + key);
      std::string value;
      AV_RETURN_IF_ERROR(Decode(raw, &value));
      for (const auto& [k, v] : attrs) {
        if (k == key) return Error("attribute " + key + " given twice");
      }
      attrs.emplace_back(std::move(key), std::move(value));
      Skip(end + 1 - pos_);
    }
    const bool empty = s_[pos_] == '/';
    Skip(empty ? 2 : 1);
    if (stack_.empty() && name != "testsuites" && name != "testsuite") {
      return InvalidInput(path_ + ":" + std::to_string(line) + ": the root element is <" + name +
                          ">, not <testsuites> or <testsuite>: not a JUnit XML file");
    }
    if (static_cast<int>(stack_.size()) + 1 > kMaxJUnitDepth) {
      return Error("elements nested deeper than " + std::to_string(kMaxJUnitDepth));
    }
    auto attr = [&](const char* k) {
      for (const auto& [key, v] : attrs) {
        if (key == k) return v;
      }
      return std::string();
    };
    if (name == "testcase" && in_case_ < 0) {
      JUnitCase c;
      c.name = attr("name");
      c.classname = attr("classname");
      c.line = line;
      report_.cases.push_back(std::move(c));
      in_case_ = static_cast<int64_t>(report_.cases.size()) - 1;
      case_depth_ = stack_.size();
      if (empty) in_case_ = -1;
    } else if (in_case_ >= 0) {
      JUnitCase& c = report_.cases[in_case_];
      if (name == "property") {
        const std::string key = attr("name"), value = attr("value");
        if (key == "attnverify_case") c.av_case = value;
        if (key == "attnverify_verdict") c.av_verdict = value;
        if (key == "attnverify_reason") c.av_reason = value;
      } else if (name == "failure" || name == "error") {
        c.failed = true;
      } else if (name == "skipped") {
        c.skipped = true;
      }
    }
    if (!empty) stack_.push_back({std::move(name), line});
    return Status::Ok();
  }

  Status EndTag() {
    Skip(2);
    AV_ASSIGN_OR_RETURN(std::string name, Name());
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != '>') return Error("expected '>' after </" + name);
    if (stack_.empty()) return Error("</" + name + "> closes nothing");
    if (stack_.back().name != name) {
      return Error("</" + name + "> closes <" + stack_.back().name + "> (opened at line " +
                   std::to_string(stack_.back().line) + ")");
    }
    Skip(1);
    stack_.pop_back();
    if (in_case_ >= 0 && stack_.size() == case_depth_) in_case_ = -1;
    return Status::Ok();
  }

  std::string_view s_;
  const std::string& path_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  std::vector<Open> stack_;
  int64_t in_case_ = -1;  // the <testcase> being read
  size_t case_depth_ = 0;
  JUnitReport report_;
};

}  // namespace

Result<JUnitReport> ParseJUnitXml(std::string_view text, const std::string& path) {
  return Parser(text, path).Run();
}

}  // namespace av
