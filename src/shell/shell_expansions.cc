// The expansions inside a word, for ShellParser: $name and $N, ${...}, $(...) and <(...)
// parsed in place, $((...)) arithmetic, `...` (parsed by a child parser one level deeper).
// The value of an expanding word is only known when the command runs (ShellWord::fixed).
// Bash's rules are in the bash manual, "Shell Expansions".
#include <string>

#include "shell/shell_parser.h"

namespace av::shell_internal {

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

}  // namespace av::shell_internal
