// The lexer half of ShellParser: operators, words with their quoting (single, double,
// $'...', $"...", backslash), line continuations, and the expansions inside words ($name,
// ${...}, $(...), `...`, $((...)), <(...), >(...)), plus heredoc bodies. Bash's rules are in
// the bash manual, "Shell Syntax" and "Shell Expansions"; what we refuse is in doc/policy.md.
#include <cstdint>
#include <string>

#include "shell/shell_parser.h"

namespace av::shell_internal {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsMeta(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '|' || c == '&' || c == ';' || c == '(' ||
         c == ')' || c == '<' || c == '>';
}
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsControl(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f; }

// The value from here on is only known when the command runs (ShellWord::fixed).
void MarkDynamic(ShellWord* w) {
  if (w->fixed == std::string::npos) w->fixed = w->value.size();
}

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

bool IsAssignmentWord(std::string_view s, bool* subscript) {
  *subscript = false;
  if (s.empty() || !IsNameStart(s[0])) return false;
  size_t i = 1;
  while (i < s.size() && IsNameChar(s[i])) ++i;
  if (i < s.size() && s[i] == '[') {
    size_t close = s.find(']', i);
    if (close == std::string_view::npos) return false;
    *subscript = true;
    i = close + 1;
  }
  if (i < s.size() && s[i] == '+') ++i;
  return i < s.size() && s[i] == '=';
}

size_t ShellParser::SkipContinuations(size_t p) const {
  while (p + 1 < text_.size() && text_[p] == '\\' && text_[p + 1] == '\n') p += 2;
  return p;
}

Status ShellParser::Peek(const Token** t) {
  if (!peeked_) {
    Token tok;
    AV_RETURN_IF_ERROR(Lex(&tok));
    peeked_ = std::move(tok);
  }
  *t = &*peeked_;
  return Status::Ok();
}

Status ShellParser::Next(Token* t) {
  if (peeked_) {
    *t = std::move(*peeked_);
    peeked_.reset();
    return Status::Ok();
  }
  return Lex(t);
}

Status ShellParser::Lex(Token* t) {
  *t = Token();
  for (;;) {
    pos_ = SkipContinuations(pos_);
    while (!AtEnd(pos_) && IsBlank(At(pos_))) pos_ = SkipContinuations(pos_ + 1);
    if (At(pos_) != '#' || AtEnd(pos_)) break;
    // A comment runs to the end of the line; a backslash there continues nothing.
    while (!AtEnd(pos_) && At(pos_) != '\n') ++pos_;
  }
  t->begin = pos_;
  if (AtEnd(pos_)) {
    t->kind = Token::kEnd;
    t->end = pos_;
    return Status::Ok();
  }
  char c = At(pos_);
  if (c == '\n') {
    ++pos_;
    t->kind = Token::kNewline;
    t->end = pos_;
    return ReadHereDocs();
  }
  if ((c == '<' || c == '>') && At(SkipContinuations(pos_ + 1)) == '(') {
    t->kind = Token::kWord;  // process substitution, a word of its own
  } else if (IsMeta(c)) {
    return LexOperator(t);
  }
  t->kind = Token::kWord;
  AV_RETURN_IF_ERROR(ScanWord(&t->word));
  t->end = pos_;
  t->word.source = std::string(text_.substr(t->begin, t->end - t->begin));
  // "2>file": a number right before a redirection names the descriptor.
  size_t after = SkipContinuations(pos_);
  if (!t->word.quoted && t->word.Literal() && !t->word.value.empty() && t->word.value.size() <= 4 &&
      t->word.value.find_first_not_of("0123456789") == std::string::npos &&
      (At(after) == '<' || At(after) == '>') && At(SkipContinuations(after + 1)) != '(') {
    t->kind = Token::kIoNumber;
    t->op = t->word.value;
  }
  return Status::Ok();
}

Status ShellParser::LexOperator(Token* t) {
  // Longest match first; a backslash-newline may sit between an operator's characters.
  static constexpr std::string_view kOps[] = {";;&", "<<<", "<<-", "&>>", "&&", "||", "|&", ";;",
                                              ";&",  "<<",  ">>",  "<&",  ">&", "<>", ">|", "&>",
                                              "&",   "|",   ";",   "(",   ")",  "<",  ">"};
  for (std::string_view op : kOps) {
    size_t p = pos_;
    bool match = true;
    for (size_t i = 0; i < op.size() && match; ++i) {
      if (i > 0) p = SkipContinuations(p);
      match = At(p) == op[i] && !AtEnd(p);
      ++p;
    }
    if (!match) continue;
    t->kind = Token::kOp;
    t->op = std::string(op);
    pos_ = p;
    t->end = p;
    return Status::Ok();
  }
  return Error(std::string("unexpected character '") + At(pos_) + "'", pos_);
}

Status ShellParser::ScanWord(ShellWord* w) {
  const size_t start = pos_;
  int brace_depth = 0;
  bool brace_separator = false;
  bool open_bracket = false;
  for (;;) {
    pos_ = SkipContinuations(pos_);
    if (AtEnd(pos_)) break;
    char c = At(pos_);
    if ((c == '<' || c == '>') && pos_ == start) {  // <(list) or >(list)
      MarkDynamic(w);
      w->expands = true;
      AV_RETURN_IF_ERROR(ScanNestedList(w, 2));
      continue;
    }
    if (IsMeta(c)) break;
    switch (c) {
      case '\\':
        w->quoted = true;
        if (AtEnd(pos_ + 1)) {  // a lone trailing backslash is itself
          w->value += '\\';
          ++pos_;
        } else {
          w->value += At(pos_ + 1);
          pos_ += 2;
        }
        break;
      case '\'':
        AV_RETURN_IF_ERROR(ScanSingleQuoted(w));
        break;
      case '"':
        AV_RETURN_IF_ERROR(ScanDoubleQuoted(w));
        break;
      case '`':
        AV_RETURN_IF_ERROR(ScanBackquote(w, /*in_dquote=*/false));
        break;
      case '$': {
        char next = At(SkipContinuations(pos_ + 1));
        if (next == '\'') {
          pos_ = SkipContinuations(pos_ + 1);
          AV_RETURN_IF_ERROR(ScanAnsiC(w));
        } else if (next == '"') {  // $"..." (locale translation): a double-quoted string
          pos_ = SkipContinuations(pos_ + 1);
          AV_RETURN_IF_ERROR(ScanDoubleQuoted(w));
        } else {
          AV_RETURN_IF_ERROR(ScanDollar(w, /*in_dquote=*/false));
        }
        break;
      }
      case '*':
      case '?':
        MarkDynamic(w);
        w->globs = true;
        w->value += c;
        ++pos_;
        break;
      case '[':
        MarkDynamic(w);  // a bracket expression may match a leading '-'
        open_bracket = true;
        w->value += c;
        ++pos_;
        break;
      case ']':
        if (open_bracket) w->globs = true;
        w->value += c;
        ++pos_;
        break;
      case '~':
        if (pos_ == start) {
          MarkDynamic(w);
          w->tilde = true;
        }
        w->value += c;
        ++pos_;
        break;
      case '{':
        MarkDynamic(w);  // brace expansion keeps the text before it in every word
        ++brace_depth;
        w->value += c;
        ++pos_;
        break;
      case '}':
        if (brace_depth > 0) {
          --brace_depth;
          if (brace_separator) w->braces = true;
        }
        w->value += c;
        ++pos_;
        break;
      case ',':
        if (brace_depth > 0) brace_separator = true;
        w->value += c;
        ++pos_;
        break;
      case '.':
        if (brace_depth > 0 && At(pos_ + 1) == '.') brace_separator = true;
        w->value += c;
        ++pos_;
        break;
      default:
        if (IsControl(static_cast<unsigned char>(c))) w->control = true;
        w->value += c;
        ++pos_;
    }
  }
  if (pos_ == start) return Error("expected a word", pos_);
  return Status::Ok();
}

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

Status ShellParser::ScanDollar(ShellWord* w, bool in_dquote) {
  // Expansions and quotes nest through here ("${x:-"${x:-..."}"}): bounded, so that deep
  // nesting is an error and not a stack overflow.
  if (word_nest_ >= limits_.max_compound_depth) return Error("expansions nest too deeply", pos_);
  ++word_nest_;
  Status status = ScanDollarAt(w, in_dquote);
  --word_nest_;
  return status;
}

Status ShellParser::ScanDollarAt(ShellWord* w, bool in_dquote) {
  size_t dollar = pos_;
  size_t p = SkipContinuations(pos_ + 1);
  char c = At(p);
  if (AtEnd(p)) c = '\0';
  bool expansion = c == '(' || c == '{' || IsNameStart(c) || IsDigit(c) || c == '@' || c == '*' ||
                   c == '#' || c == '?' || c == '-' || c == '$' || c == '!';
  if (expansion) {
    MarkDynamic(w);
    // Unquoted, the value is split into words; "$@" and "${a[@]}" make several words even
    // in double quotes.
    if (!in_dquote || c == '@') w->splits = true;
  }
  if (c == '(') {
    if (At(SkipContinuations(p + 1)) == '(') {
      pos_ = dollar;
      return ScanArithmetic(w);
    }
    pos_ = dollar;
    w->expands = true;
    return ScanNestedList(w, 2);
  }
  if (c == '{') {
    pos_ = dollar;
    return ScanBraceParameter(w, in_dquote);
  }
  if (c == '[') return Error("$[...] arithmetic is not supported", dollar);
  if (IsNameStart(c)) {
    size_t q = p;
    while (IsNameChar(At(q)) && !AtEnd(q)) ++q;
    w->expands = true;
    w->value += '$';
    w->value += text_.substr(p, q - p);
    pos_ = q;
    return Status::Ok();
  }
  if (IsDigit(c) || c == '@' || c == '*' || c == '#' || c == '?' || c == '-' || c == '$' ||
      c == '!') {
    w->expands = true;
    w->value += '$';
    w->value += c;
    pos_ = p + 1;
    return Status::Ok();
  }
  w->value += '$';  // a '$' before anything else is itself
  pos_ = dollar + 1;
  return Status::Ok();
}

Status ShellParser::ScanBraceParameter(ShellWord* w, bool in_dquote) {
  // ${...}: quotes, escapes and nested expansions may hold a '}' that does not close it.
  size_t open = pos_;
  pos_ = SkipContinuations(pos_ + 1) + 1;  // past "${"
  size_t body = pos_;
  ShellWord inner;
  for (;;) {
    pos_ = SkipContinuations(pos_);
    if (AtEnd(pos_)) return Error("unterminated ${...}", open);
    char c = At(pos_);
    if (c == '}') break;
    if (c == '\\') {
      pos_ += 2;
    } else if (c == '\'' && !in_dquote) {
      AV_RETURN_IF_ERROR(ScanSingleQuoted(&inner));
    } else if (c == '"') {
      AV_RETURN_IF_ERROR(ScanDoubleQuoted(&inner));
    } else if (c == '$') {
      AV_RETURN_IF_ERROR(ScanDollar(&inner, /*in_dquote=*/true));
    } else if (c == '`') {
      AV_RETURN_IF_ERROR(ScanBackquote(&inner, /*in_dquote=*/true));
    } else {
      ++pos_;
    }
  }
  std::string_view content = text_.substr(body, pos_ - body);
  ++pos_;
  w->expands = true;
  if (content.find('@') != std::string_view::npos) w->splits = true;  // ${a[@]}, ${!p@}
  w->value += "${" + std::string(content) + "}";
  if (content.find("@P") != std::string_view::npos) {
    // Prompt expansion of a value runs the command substitutions inside the value.
    AddUndecided("prompt expansion ${...@P} of a value", open, pos_);
  }
  size_t bracket = content.find('[');
  if (bracket != std::string_view::npos) {
    size_t close = content.find(']', bracket);
    std::string_view sub =
        content.substr(bracket + 1, close == std::string_view::npos ? std::string_view::npos
                                                                    : close - bracket - 1);
    bool plain = sub == "@" || sub == "*" ||
                 (!sub.empty() && sub.find_first_not_of("0123456789") == std::string_view::npos);
    // Any other subscript of an indexed array is evaluated as arithmetic, where a
    // value such as a[$(cmd)] runs cmd.
    if (!plain) AddUndecided("array subscript in ${...} (evaluated as arithmetic)", open, pos_);
  }
  return Status::Ok();
}

Status ShellParser::ScanArithmetic(ShellWord* w) {
  // $(( expr )): up to the "))" that balances the opening pair.
  size_t open = pos_;
  size_t p = SkipContinuations(SkipContinuations(pos_ + 1) + 1) + 1;  // past "$(("
  size_t body = p;
  int depth = 0;
  for (;; ++p) {
    if (AtEnd(p)) return Error("unterminated $((...))", open);
    char c = At(p);
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (depth == 0) {
        if (At(p + 1) != ')') return Error("unbalanced parentheses in $((...))", open);
        break;
      }
      --depth;
    }
  }
  std::string_view expr = text_.substr(body, p - body);
  pos_ = p + 2;
  w->expands = true;
  w->value += "$((" + std::string(expr) + "))";
  return CheckArithmetic(expr, open, pos_);
}

Status ShellParser::CheckArithmetic(std::string_view expr, size_t begin, size_t end) {
  // Numbers and operators only. A name is evaluated recursively as an expression, so a
  // value like a[$(cmd)] would run cmd; those, and expansions, are asked about.
  if (expr.find_first_not_of("0123456789 \t\n+-*/%<>=!&|^~?:(),") != std::string_view::npos) {
    AddUndecided("arithmetic expression with names or expansions", begin, end);
    if (expr.find_first_of("$`") != std::string_view::npos) {
      AV_RETURN_IF_ERROR(ParseChild(expr, /*expansions_only=*/true, "an arithmetic expression"));
    }
  }
  return Status::Ok();
}

Status ShellParser::ScanBackquote(ShellWord* w, bool in_dquote) {
  size_t open = pos_;
  size_t p = open + 1;
  std::string inner;
  for (;;) {
    if (AtEnd(p)) return Error("unterminated backquote", open);
    char c = At(p);
    if (c == '`') break;
    if (c == '\\' && !AtEnd(p + 1)) {
      char e = At(p + 1);
      if (e == '$' || e == '`' || e == '\\' || (in_dquote && e == '"')) {
        inner += e;
        p += 2;
        continue;
      }
    }
    inner += c;
    ++p;
  }
  pos_ = p + 1;
  MarkDynamic(w);
  if (!in_dquote) w->splits = true;
  w->expands = true;
  w->value += text_.substr(open, pos_ - open);
  return ParseChild(inner, /*expansions_only=*/false, "a backquoted command");
}

Status ShellParser::ScanNestedList(ShellWord* w, size_t open_len) {
  // $( list ) or <( list ) / >( list ), parsed in place: the ")" that ends it is the one
  // the grammar reaches, not the first one in the text.
  size_t open = pos_;
  for (size_t i = 0; i < open_len; ++i) pos_ = SkipContinuations(pos_) + 1;
  if (depth_ + nest_ + 1 > limits_.max_depth) return Error("substitutions nest too deeply", open);
  std::optional<Token> saved = std::move(peeked_);
  peeked_.reset();
  ++nest_;
  AV_RETURN_IF_ERROR(ParseList({")"}));
  Token close;
  AV_RETURN_IF_ERROR(Next(&close));
  --nest_;
  if (close.kind != Token::kOp || close.op != ")") {
    return Error("unterminated " + std::string(text_.substr(open, open_len)) + "...)", open);
  }
  peeked_ = std::move(saved);
  w->value += text_.substr(open, pos_ - open);
  return Status::Ok();
}

Status ShellParser::ReadHereDocs() {
  // The bodies of the heredocs opened on the line that just ended, in order.
  std::vector<HereDoc> pending = std::move(heredocs_);
  heredocs_.clear();
  for (const HereDoc& doc : pending) {
    size_t start = pos_;
    std::string body;
    bool closed = false;
    while (!AtEnd(pos_)) {
      std::string line;
      // An unquoted body joins continued lines before the delimiter is looked for.
      while (!AtEnd(pos_) && At(pos_) != '\n') {
        if (!doc.quoted && At(pos_) == '\\' && At(pos_ + 1) == '\n') {
          pos_ += 2;
          continue;
        }
        line += At(pos_++);
      }
      if (!AtEnd(pos_)) ++pos_;  // the newline
      if (doc.strip_tabs) line.erase(0, line.find_first_not_of('\t'));
      if (line == doc.delimiter) {
        closed = true;
        break;
      }
      body += line + "\n";
    }
    if (!closed) {
      return Error("heredoc has no line \"" + doc.delimiter + "\" to end it", start);
    }
    if (!doc.quoted) {
      AV_RETURN_IF_ERROR(ParseChild(body, /*expansions_only=*/true, "a heredoc body"));
    }
  }
  return Status::Ok();
}

}  // namespace av::shell_internal
