// The grammar half of ShellParser (bash manual, "Shell Commands"): lists joined by ; & and
// newlines, && and || chains, pipelines (| and |&, with time and !), subshells ( ), groups
// { }, if / while / until / for, [[ ]] and (( )), simple commands with assignments and
// redirections. case, select, coproc and `function` are refused: the policy asks.
#include "shell/shell_parse.h"

#include <algorithm>
#include <string>

#include "shell/shell_parser.h"

namespace av {
namespace shell_internal {
namespace {

bool IsRedirectOp(const Token& t) {
  if (t.kind != Token::kOp) return false;
  static constexpr std::string_view kRedirects[] = {">",   ">>",  ">|", "<",  "<>", "<<",
                                                    "<<-", "<<<", "<&", ">&", "&>", "&>>"};
  return std::find(std::begin(kRedirects), std::end(kRedirects), t.op) != std::end(kRedirects);
}

bool IsWord(const Token& t, std::string_view value) {
  return t.kind == Token::kWord && !t.word.quoted && t.word.Literal() && t.word.value == value;
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Token::kEnd:
      return "the end of the command";
    case Token::kNewline:
      return "a newline";
    case Token::kOp:
      return "'" + t.op + "'";
    case Token::kIoNumber:
      return "'" + t.op + "'";
    case Token::kWord:
      return "'" + t.word.source + "'";
  }
  return "?";
}

bool IsArithmeticOperator(std::string_view w) {
  return w == "-eq" || w == "-ne" || w == "-lt" || w == "-le" || w == "-gt" || w == "-ge";
}

bool IsInteger(const ShellWord& w) {
  std::string_view v = w.value;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  return w.Literal() && !v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

ShellParser::ShellParser(std::string_view text, int depth, const ShellLimits& limits,
                         ShellScript* out)
    : text_(text), depth_(depth), limits_(limits), out_(out) {}

Status ShellParser::Error(const std::string& what, size_t at) const {
  return InvalidInput(what + " (at byte " + std::to_string(at) + ")");
}

Status ShellParser::ParseScript() {
  AV_RETURN_IF_ERROR(ParseList({}));
  const Token* t;
  AV_RETURN_IF_ERROR(Peek(&t));
  if (t->kind != Token::kEnd) return Error("unexpected " + Describe(*t), t->begin);
  if (!heredocs_.empty()) return Error("heredoc without a body", text_.size());
  return Status::Ok();
}

Status ShellParser::ScanExpansions() {
  ShellWord ignored;
  while (!AtEnd(pos_)) {
    char c = At(pos_);
    if (c == '\\') {
      pos_ += 2;
    } else if (c == '$') {
      AV_RETURN_IF_ERROR(ScanDollar(&ignored, /*in_dquote=*/true));
    } else if (c == '`') {
      AV_RETURN_IF_ERROR(ScanBackquote(&ignored, /*in_dquote=*/true));
    } else {
      ++pos_;
    }
  }
  return Status::Ok();
}

Status ShellParser::ParseChild(std::string_view text, bool expansions_only,
                               const std::string& where) {
  int depth = depth_ + nest_ + 1;
  if (depth > limits_.max_depth) return InvalidInput(where + " nests too deeply");
  ShellParser child(text, depth, limits_, out_);
  Status st = expansions_only ? child.ScanExpansions() : child.ParseScript();
  return st.WithContext("in " + where);
}

bool ShellParser::IsStop(const Token& t, const std::vector<std::string_view>& stop) const {
  if (t.kind == Token::kEnd) return true;
  for (std::string_view s : stop) {
    if (s == ")" ? (t.kind == Token::kOp && t.op == ")") : IsWord(t, s)) return true;
  }
  return false;
}

Status ShellParser::SkipNewlines() {
  const Token* t;
  for (;;) {
    AV_RETURN_IF_ERROR(Peek(&t));
    if (t->kind != Token::kNewline) return Status::Ok();
    Token skipped;
    AV_RETURN_IF_ERROR(Next(&skipped));
  }
}

Status ShellParser::Expect(std::string_view what) {
  Token t;
  AV_RETURN_IF_ERROR(Next(&t));
  bool ok = what == ")" ? (t.kind == Token::kOp && t.op == ")") : IsWord(t, what);
  if (!ok) return Error("expected '" + std::string(what) + "', found " + Describe(t), t.begin);
  return Status::Ok();
}

Status ShellParser::AddCommand(SimpleCommand cmd, size_t begin, size_t end) {
  if (out_->commands.size() >= limits_.max_commands) {
    return Error("more than " + std::to_string(limits_.max_commands) + " commands", begin);
  }
  std::string_view text = text_.substr(begin, end > begin ? end - begin : 0);
  size_t a = text.find_first_not_of(" \t\n");
  size_t b = text.find_last_not_of(" \t\n");
  cmd.text = a == std::string_view::npos ? "" : std::string(text.substr(a, b - a + 1));
  cmd.depth = depth_ + nest_;
  out_->commands.push_back(std::move(cmd));
  return Status::Ok();
}

void ShellParser::AddUndecided(std::string what, size_t begin, size_t end) {
  std::string_view text = text_.substr(std::min(begin, text_.size()));
  text = text.substr(0, end > begin ? end - begin : 0);
  out_->undecided.push_back({std::move(what), std::string(text)});
}

Status ShellParser::ParseList(const std::vector<std::string_view>& stop) {
  for (;;) {
    AV_RETURN_IF_ERROR(SkipNewlines());
    const Token* t;
    AV_RETURN_IF_ERROR(Peek(&t));
    if (IsStop(*t, stop)) return Status::Ok();
    AV_RETURN_IF_ERROR(ParseAndOr());
    AV_RETURN_IF_ERROR(Peek(&t));
    if (t->kind == Token::kOp && (t->op == ";" || t->op == "&")) {
      Token sep;
      AV_RETURN_IF_ERROR(Next(&sep));
      continue;
    }
    if (t->kind == Token::kNewline) continue;
    if (IsStop(*t, stop)) return Status::Ok();
    return Error("unexpected " + Describe(*t), t->begin);
  }
}

Status ShellParser::ParseAndOr() {
  AV_RETURN_IF_ERROR(ParsePipeline());
  for (;;) {
    const Token* t;
    AV_RETURN_IF_ERROR(Peek(&t));
    if (t->kind != Token::kOp || (t->op != "&&" && t->op != "||")) return Status::Ok();
    Token op;
    AV_RETURN_IF_ERROR(Next(&op));
    AV_RETURN_IF_ERROR(SkipNewlines());
    AV_RETURN_IF_ERROR(ParsePipeline());
  }
}

Status ShellParser::ParsePipeline() {
  const Token* t;
  AV_RETURN_IF_ERROR(Peek(&t));
  Token skipped;
  if (IsWord(*t, "time")) {
    AV_RETURN_IF_ERROR(Next(&skipped));
    AV_RETURN_IF_ERROR(Peek(&t));
    if (IsWord(*t, "-p")) AV_RETURN_IF_ERROR(Next(&skipped));
    AV_RETURN_IF_ERROR(Peek(&t));
  }
  while (IsWord(*t, "!")) {
    AV_RETURN_IF_ERROR(Next(&skipped));
    AV_RETURN_IF_ERROR(Peek(&t));
  }
  AV_RETURN_IF_ERROR(ParseCommand());
  for (;;) {
    AV_RETURN_IF_ERROR(Peek(&t));
    if (t->kind != Token::kOp || (t->op != "|" && t->op != "|&")) return Status::Ok();
    AV_RETURN_IF_ERROR(Next(&skipped));
    AV_RETURN_IF_ERROR(SkipNewlines());
    AV_RETURN_IF_ERROR(ParseCommand());
  }
}

Status ShellParser::ParseCommand() {
  // Groups, subshells, ifs and loops recurse through here: bound them so that a hostile
  // string such as 30000 "{ " is an error, not a stack overflow.
  if (compound_ >= limits_.max_compound_depth) {
    const Token* t;
    AV_RETURN_IF_ERROR(Peek(&t));
    return Error("compound commands nest too deeply", t->begin);
  }
  ++compound_;
  Status status = ParseCommandAt();
  --compound_;
  return status;
}

Status ShellParser::ParseCommandAt() {
  const Token* t;
  AV_RETURN_IF_ERROR(Peek(&t));
  size_t begin = t->begin;
  Token open;
  if (t->kind == Token::kOp && t->op == "(") {
    if (At(SkipContinuations(t->begin + 1)) == '(') return ParseArithmeticCommand(*t);
    AV_RETURN_IF_ERROR(Next(&open));
    AV_RETURN_IF_ERROR(ParseList({")"}));
    AV_RETURN_IF_ERROR(Expect(")"));
    return ParseTrailingRedirections(begin);
  }
  if (t->kind == Token::kWord && !t->word.quoted && t->word.Literal()) {
    const std::string& w = t->word.value;
    if (w == "{") {
      AV_RETURN_IF_ERROR(Next(&open));
      AV_RETURN_IF_ERROR(ParseList({"}"}));
      AV_RETURN_IF_ERROR(Expect("}"));
      return ParseTrailingRedirections(begin);
    }
    if (w == "if") return ParseIf();
    if (w == "while" || w == "until") return ParseLoop();
    if (w == "for") return ParseFor();
    if (w == "[[") return ParseConditional();
    if (w == "case" || w == "select" || w == "coproc" || w == "function") {
      return Error("'" + w + "' is not parsed by the command policy", t->begin);
    }
    if (w == "then" || w == "elif" || w == "else" || w == "fi" || w == "do" || w == "done" ||
        w == "esac" || w == "}" || w == "]]" || w == "in") {
      return Error("unexpected '" + w + "'", t->begin);
    }
  }
  return ParseSimpleCommand();
}

Status ShellParser::ParseIf() {
  const Token* t;
  Token kw;
  size_t begin = pos_;
  AV_RETURN_IF_ERROR(Next(&kw));  // if
  begin = kw.begin;
  AV_RETURN_IF_ERROR(ParseList({"then"}));
  AV_RETURN_IF_ERROR(Expect("then"));
  AV_RETURN_IF_ERROR(ParseList({"elif", "else", "fi"}));
  for (;;) {
    AV_RETURN_IF_ERROR(Peek(&t));
    if (!IsWord(*t, "elif")) break;
    AV_RETURN_IF_ERROR(Next(&kw));
    AV_RETURN_IF_ERROR(ParseList({"then"}));
    AV_RETURN_IF_ERROR(Expect("then"));
    AV_RETURN_IF_ERROR(ParseList({"elif", "else", "fi"}));
  }
  if (IsWord(*t, "else")) {
    AV_RETURN_IF_ERROR(Next(&kw));
    AV_RETURN_IF_ERROR(ParseList({"fi"}));
  }
  AV_RETURN_IF_ERROR(Expect("fi"));
  return ParseTrailingRedirections(begin);
}

Status ShellParser::ParseLoop() {
  Token kw;
  AV_RETURN_IF_ERROR(Next(&kw));  // while / until
  AV_RETURN_IF_ERROR(ParseList({"do"}));
  AV_RETURN_IF_ERROR(Expect("do"));
  AV_RETURN_IF_ERROR(ParseList({"done"}));
  AV_RETURN_IF_ERROR(Expect("done"));
  return ParseTrailingRedirections(kw.begin);
}

Status ShellParser::ParseFor() {
  Token kw, name;
  AV_RETURN_IF_ERROR(Next(&kw));  // for
  AV_RETURN_IF_ERROR(Next(&name));
  bool subscript = false;
  if (name.kind != Token::kWord || name.word.quoted || !name.word.Literal() ||
      !IsAssignmentWord(name.word.value + "=", &subscript) || subscript) {
    return Error("expected a variable name after 'for', found " + Describe(name), name.begin);
  }
  // The loop assigns the variable: decided like NAME=value.
  SimpleCommand assign;
  ShellWord w;
  w.value = name.word.value + "=";
  w.source = w.value;
  assign.assignments.push_back(w);
  AV_RETURN_IF_ERROR(AddCommand(std::move(assign), kw.begin, name.end));
  AV_RETURN_IF_ERROR(SkipNewlines());
  const Token* t;
  AV_RETURN_IF_ERROR(Peek(&t));
  Token skipped;
  if (IsWord(*t, "in")) {
    AV_RETURN_IF_ERROR(Next(&skipped));
    for (;;) {  // the words; their substitutions were recorded while they were read
      AV_RETURN_IF_ERROR(Peek(&t));
      if (t->kind != Token::kWord) break;
      AV_RETURN_IF_ERROR(Next(&skipped));
    }
  }
  AV_RETURN_IF_ERROR(Peek(&t));
  if ((t->kind == Token::kOp && t->op == ";") || t->kind == Token::kNewline) {
    AV_RETURN_IF_ERROR(Next(&skipped));
  }
  AV_RETURN_IF_ERROR(SkipNewlines());
  AV_RETURN_IF_ERROR(Expect("do"));
  AV_RETURN_IF_ERROR(ParseList({"done"}));
  AV_RETURN_IF_ERROR(Expect("done"));
  return ParseTrailingRedirections(kw.begin);
}

Status ShellParser::ParseConditional() {
  // [[ ... ]]: operators inside are plain words; the whole is one test command.
  SimpleCommand cmd;
  Token t;
  AV_RETURN_IF_ERROR(Next(&t));
  size_t begin = t.begin;
  cmd.words.push_back(t.word);
  for (;;) {
    AV_RETURN_IF_ERROR(Next(&t));
    if (t.kind == Token::kEnd) return Error("unterminated [[", begin);
    if (t.kind == Token::kNewline) continue;
    if (t.kind == Token::kOp) {
      static constexpr std::string_view kInside[] = {"&&", "||", "(", ")", "<", ">"};
      if (std::find(std::begin(kInside), std::end(kInside), t.op) == std::end(kInside)) {
        return Error("unexpected '" + t.op + "' inside [[ ]]", t.begin);
      }
      ShellWord w;
      w.value = w.source = t.op;
      cmd.words.push_back(w);
      continue;
    }
    if (t.kind == Token::kIoNumber) t.word.value = t.op;
    cmd.words.push_back(t.word);
    if (IsWord(t, "]]")) break;
  }
  for (size_t i = 1; i + 1 < cmd.words.size(); ++i) {
    if (!IsArithmeticOperator(cmd.words[i].value)) continue;
    if (!IsInteger(cmd.words[i - 1]) || !IsInteger(cmd.words[i + 1])) {
      AddUndecided("[[ ... " + cmd.words[i].value + " ... ]] evaluates its operands as arithmetic",
                   begin, t.end);
    }
  }
  AV_RETURN_IF_ERROR(AddCommand(std::move(cmd), begin, t.end));
  return ParseTrailingRedirections(begin);
}

Status ShellParser::ParseArithmeticCommand(const Token& open) {
  // (( expr )): scanned like $(( expr )), from the first '('.
  peeked_.reset();
  pos_ = open.begin;
  size_t p = SkipContinuations(pos_ + 1) + 1;
  size_t body = p;
  int depth = 0;
  for (;; ++p) {
    if (AtEnd(p)) return Error("unterminated ((...))", open.begin);
    char c = At(p);
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (depth == 0) {
        if (At(p + 1) != ')') return Error("unbalanced parentheses in ((...))", open.begin);
        break;
      }
      --depth;
    }
  }
  pos_ = p + 2;
  AV_RETURN_IF_ERROR(CheckArithmetic(text_.substr(body, p - body), open.begin, pos_));
  return ParseTrailingRedirections(open.begin);
}

Status ShellParser::ParseTrailingRedirections(size_t begin) {
  SimpleCommand redirects;  // "{ ...; } > file" writes the file as "> file" would
  const Token* t;
  for (;;) {
    AV_RETURN_IF_ERROR(Peek(&t));
    if (t->kind != Token::kIoNumber && !IsRedirectOp(*t)) break;
    AV_RETURN_IF_ERROR(ParseRedirection(&redirects));
  }
  if (redirects.redirections.empty()) return Status::Ok();
  return AddCommand(std::move(redirects), begin, pos_);
}

Status ShellParser::ParseRedirection(SimpleCommand* cmd) {
  ShellRedirection r;
  Token t;
  AV_RETURN_IF_ERROR(Next(&t));
  if (t.kind == Token::kIoNumber) {
    r.fd = std::stoi(t.op);
    AV_RETURN_IF_ERROR(Next(&t));
    if (!IsRedirectOp(t))
      return Error("expected a redirection after '" + std::to_string(r.fd) + "'", t.begin);
  }
  r.op = t.op;
  Token target;
  AV_RETURN_IF_ERROR(Next(&target));
  if (target.kind == Token::kIoNumber) {
    target.kind = Token::kWord;
    target.word.value = target.op;
  }
  if (target.kind != Token::kWord) {
    return Error("redirection '" + r.op + "' has no target before " + Describe(target),
                 target.begin);
  }
  r.target = target.word;
  if (r.op == "<<" || r.op == "<<-") {
    if (r.target.expands) return Error("heredoc delimiter with an expansion", target.begin);
    heredocs_.push_back({r.target.value, r.target.quoted, r.op == "<<-"});
  }
  const std::string& v = r.target.value;
  bool descriptor =
      !v.empty() && (v == "-" || v.find_first_not_of("0123456789") == std::string::npos);
  r.writes = r.op == ">" || r.op == ">>" || r.op == ">|" || r.op == "<>" || r.op == "&>" ||
             r.op == "&>>" || (r.op == ">&" && !(descriptor && r.target.Literal()));
  cmd->redirections.push_back(std::move(r));
  return Status::Ok();
}

Status ShellParser::ParseSimpleCommand() {
  SimpleCommand cmd;
  const Token* t;
  AV_RETURN_IF_ERROR(Peek(&t));
  size_t begin = t->begin, end = t->begin;
  for (;;) {
    AV_RETURN_IF_ERROR(Peek(&t));
    if (t->kind == Token::kWord) {
      Token w;
      AV_RETURN_IF_ERROR(Next(&w));
      end = w.end;
      bool subscript = false;
      if (cmd.words.empty() && IsAssignmentWord(w.word.source, &subscript)) {
        if (subscript) AddUndecided("array element assignment", w.begin, w.end);
        cmd.assignments.push_back(std::move(w.word));
      } else {
        cmd.words.push_back(std::move(w.word));
      }
      continue;
    }
    if (t->kind == Token::kIoNumber || IsRedirectOp(*t)) {
      AV_RETURN_IF_ERROR(ParseRedirection(&cmd));
      end = pos_;
      continue;
    }
    if (t->kind == Token::kOp && t->op == "(") {
      if (cmd.words.size() != 1 || !cmd.assignments.empty() || !cmd.redirections.empty()) {
        return Error("unexpected '('", t->begin);
      }
      // name () compound-command: a function definition. Its body is read (a deny rule
      // still sees what is inside) but the definition itself is never allowed.
      Token paren;
      AV_RETURN_IF_ERROR(Next(&paren));
      AV_RETURN_IF_ERROR(Expect(")"));
      AddUndecided("function definition", begin, pos_);
      AV_RETURN_IF_ERROR(SkipNewlines());
      return ParseCommand();
    }
    break;
  }
  if (cmd.words.empty() && cmd.assignments.empty() && cmd.redirections.empty()) {
    return Error("expected a command, found " + Describe(*t), t->begin);
  }
  return AddCommand(std::move(cmd), begin, end);
}

}  // namespace shell_internal

Result<ShellScript> ParseShell(std::string_view text, int depth, const ShellLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return InvalidInput("the command is " + std::to_string(text.size()) + " bytes, more than " +
                        std::to_string(limits.max_bytes));
  }
  if (depth > limits.max_depth) return InvalidInput("scripts nest too deeply");
  ShellScript script;
  shell_internal::ShellParser parser(text, depth, limits, &script);
  AV_RETURN_IF_ERROR(parser.ParseScript());
  return script;
}

}  // namespace av
