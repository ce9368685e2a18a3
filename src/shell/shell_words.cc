// The lexer half of ShellParser: operators, words and line continuations, plus heredoc
// bodies. A word's quoting (single, double, $'...', $"...") is read in shell_quoting.cc, the
// expansions inside words ($name, ${...}, $(...), `...`, $((...))) in shell_expansions.cc.
// Bash's rules are in the bash manual, "Shell Syntax" and "Shell Expansions"; what we refuse
// is in doc/policy.md.
#include <string>

#include "shell/shell_parser.h"

namespace av::shell_internal {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsMeta(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '|' || c == '&' || c == ';' || c == '(' ||
         c == ')' || c == '<' || c == '>';
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
