// The quoting of a word, for ShellParser: single quotes, $'...' (ANSI-C escapes, decoded as
// bash does), double quotes and $"..." (with the expansions inside them, shell_expansions.cc).
// Bash's rules are in the bash manual, "Quoting".
#include <cstdint>
#include <string>

#include "shell/shell_parser.h"

namespace av::shell_internal {
namespace {

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
    *out += static_cast<char>(0xF0 | ((cp >> 18) & 0x07));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Status ShellParser::ScanSingleQuoted(ShellWord* w) {
  size_t open = pos_;
  size_t close = text_.find('\'', open + 1);
  if (close == std::string_view::npos) return Error("unterminated single quote", open);
  w->quoted = true;
  for (size_t i = open + 1; i < close; ++i) {
    if (IsControl(static_cast<unsigned char>(text_[i]))) w->control = true;
    w->value += text_[i];
  }
  pos_ = close + 1;
  return Status::Ok();
}

Status ShellParser::ScanAnsiC(ShellWord* w) {
  // pos_ at the quote after '$'. Escapes as bash's $'...' decodes them.
  size_t open = pos_;
  size_t p = open + 1;
  w->quoted = true;
  std::string out;
  for (;;) {
    if (AtEnd(p)) return Error("unterminated $'...' string", open);
    char c = At(p);
    if (c == '\'') break;
    if (c != '\\' || AtEnd(p + 1)) {
      out += c;
      ++p;
      continue;
    }
    char e = At(p + 1);
    p += 2;
    switch (e) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'e':
      case 'E':
        out += '\x1b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case '?':
        out += '?';
        break;
      case 'c':
        if (AtEnd(p)) return Error("unterminated $'...' string", open);
        out += static_cast<char>(At(p) & 0x1f);
        ++p;
        break;
      case 'x': {
        int v = 0, n = 0;
        while (n < 2 && HexValue(At(p)) >= 0 && !AtEnd(p)) v = v * 16 + HexValue(At(p++)), ++n;
        if (n == 0) {
          out += "\\x";
        } else {
          out += static_cast<char>(v);
        }
        break;
      }
      case 'u':
      case 'U': {
        uint32_t v = 0;
        int n = 0, max = e == 'u' ? 4 : 8;
        while (n < max && HexValue(At(p)) >= 0 && !AtEnd(p)) v = v * 16 + HexValue(At(p++)), ++n;
        if (n == 0) {
          out += '\\';
          out += e;
        } else {
          AppendUtf8(v > 0x10FFFF ? 0xFFFD : v, &out);
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', n = 1;
          while (n < 3 && At(p) >= '0' && At(p) <= '7' && !AtEnd(p))
            v = v * 8 + (At(p++) - '0'), ++n;
          out += static_cast<char>(v & 0xff);
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  pos_ = p + 1;
  for (char c : out) {
    // Bash cuts the string at a NUL byte; the word is then not what it reads as.
    if (IsControl(static_cast<unsigned char>(c)) || c == '\0') w->control = true;
  }
  w->value += out;
  return Status::Ok();
}

Status ShellParser::ScanDoubleQuoted(ShellWord* w) {
  // Expansions and quotes nest through here ("${x:-"${x:-..."}"}): bounded, so that deep
  // nesting is an error and not a stack overflow.
  if (word_nest_ >= limits_.max_compound_depth) return Error("expansions nest too deeply", pos_);
  ++word_nest_;
  Status status = ScanDoubleQuotedAt(w);
  --word_nest_;
  return status;
}

Status ShellParser::ScanDoubleQuotedAt(ShellWord* w) {
  size_t open = pos_;
  ++pos_;
  w->quoted = true;
  for (;;) {
    pos_ = SkipContinuations(pos_);
    if (AtEnd(pos_)) return Error("unterminated double quote", open);
    char c = At(pos_);
    if (c == '"') {
      ++pos_;
      return Status::Ok();
    }
    if (c == '\\') {
      char e = At(pos_ + 1);
      if (e == '$' || e == '`' || e == '"' || e == '\\') {
        w->value += e;
        pos_ += 2;
      } else {
        w->value += c;
        ++pos_;
      }
    } else if (c == '$') {
      AV_RETURN_IF_ERROR(ScanDollar(w, /*in_dquote=*/true));
    } else if (c == '`') {
      AV_RETURN_IF_ERROR(ScanBackquote(w, /*in_dquote=*/true));
    } else {
      if (IsControl(static_cast<unsigned char>(c))) w->control = true;
      w->value += c;
      ++pos_;
    }
  }
}

}  // namespace av::shell_internal
