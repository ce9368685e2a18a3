// The recursive-descent parser behind ParseShell (shell_parse.h); internal to shell/.
// One object reads one string: the lexer is shell_words.cc (tokens, words, heredoc
// bodies), shell_quoting.cc (quotes) and shell_expansions.cc (substitutions and other
// expansions); shell_parse.cc is the grammar (lists, pipelines, compound commands, simple
// commands). $(...) and <(...) are parsed in place, as bash does;
// backquoted text and unquoted heredoc bodies are parsed by a child parser one level
// deeper. Every parser of one ParseShell call appends to the same ShellScript.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shell/shell_parse.h"

namespace av::shell_internal {

struct Token {
  enum Kind { kWord, kIoNumber, kOp, kNewline, kEnd };
  Kind kind = kEnd;
  std::string op;  // kOp: "&&", ";", "(", ">>", ...; kIoNumber: the digits
  ShellWord word;  // kWord
  size_t begin = 0, end = 0;
};

class ShellParser {
 public:
  ShellParser(std::string_view text, int depth, const ShellLimits& limits, ShellScript* out);

  // The whole text as a script.
  Status ParseScript();
  // The whole text as a heredoc body or an arithmetic expression: only $(...), `...` and
  // ${...} inside it run; their commands are recorded.
  Status ScanExpansions();

 private:
  struct HereDoc {
    std::string delimiter;
    bool quoted = false;
    bool strip_tabs = false;
  };

  // Grammar (shell_parse.cc). `stop` lists the reserved words and operators that end
  // the list ("then", "}", ")").
  Status ParseList(const std::vector<std::string_view>& stop);
  Status ParseAndOr();
  Status ParsePipeline();
  Status ParseCommand();
  Status ParseCommandAt();  // ParseCommand below its nesting bound
  Status ParseSimpleCommand();
  Status ParseIf();
  Status ParseLoop();
  Status ParseFor();
  Status ParseConditional();
  Status ParseArithmeticCommand(const Token& open);
  Status ParseTrailingRedirections(size_t begin);
  Status ParseRedirection(SimpleCommand* cmd);
  Status Expect(std::string_view what);
  Status SkipNewlines();
  bool IsStop(const Token& t, const std::vector<std::string_view>& stop) const;
  Status AddCommand(SimpleCommand cmd, size_t begin, size_t end);
  void AddUndecided(std::string what, size_t begin, size_t end);

  // Lexer (shell_words.cc).
  Status Peek(const Token** t);
  Status Next(Token* t);
  Status Lex(Token* t);
  Status LexOperator(Token* t);
  Status ScanWord(ShellWord* w);
  Status ScanSingleQuoted(ShellWord* w);
  Status ScanAnsiC(ShellWord* w);
  Status ScanDoubleQuoted(ShellWord* w);
  Status ScanDoubleQuotedAt(ShellWord* w);
  Status ScanDollar(ShellWord* w, bool in_dquote);
  Status ScanDollarAt(ShellWord* w, bool in_dquote);
  Status ScanBraceParameter(ShellWord* w, bool in_dquote);
  Status ScanArithmetic(ShellWord* w);
  Status ScanBackquote(ShellWord* w, bool in_dquote);
  Status ScanNestedList(ShellWord* w, size_t open_len);  // $( ... ) and <( ... )
  Status ReadHereDocs();
  Status ParseChild(std::string_view text, bool expansions_only, const std::string& where);
  Status CheckArithmetic(std::string_view expr, size_t begin, size_t end);
  size_t SkipContinuations(size_t p) const;  // past any backslash-newline pairs at p
  char At(size_t p) const { return p < text_.size() ? text_[p] : '\0'; }
  bool AtEnd(size_t p) const { return p >= text_.size(); }
  Status Error(const std::string& what, size_t at) const;

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;  // of this text; +nest_ for $(...) parsed in place
  int nest_ = 0;
  int compound_ = 0;   // compound commands open around the current one
  int word_nest_ = 0;  // expansions and double quotes open around the current one
  const ShellLimits& limits_;
  ShellScript* out_;
  std::optional<Token> peeked_;
  std::vector<HereDoc> heredocs_;  // registered, body not read yet
};

// True for NAME=, NAME+= (and NAME[...]= with `subscript` set) at the start of `source`.
bool IsAssignmentWord(std::string_view source, bool* subscript);

// Character classes and a word helper shared by the lexer's files (shell_words.cc,
// shell_quoting.cc, shell_expansions.cc).
inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsControl(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f; }
// The value from here on is only known when the command runs (ShellWord::fixed).
inline void MarkDynamic(ShellWord* w) {
  if (w->fixed == std::string::npos) w->fixed = w->value.size();
}

}  // namespace av::shell_internal
