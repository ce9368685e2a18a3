// fallback.error_swallowed: a handler the diff adds that catches everything (`except:`,
// `except Exception:`, `except BaseException:`, C++ `catch (...)`) and goes on without
// raising or saying so (a log line, a warning, a print): an import of the fast path that fails for any reason (a syntax error in the
// kernel module, a wrong CUDA build) silently takes the slow or the wrong path. Checklist
// item 7: which path ran must be known.
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

// `except:`, `except Exception:`, `except BaseException as e:`, `catch (...)`.
bool CatchAll(const std::vector<Token>& t, bool python) {
  if (python) {
    if (t.empty() || t[0].text != "except") return false;
    if (t.size() == 2 && t[1].text == ":") return true;
    return t.size() >= 3 && (t[1].text == "Exception" || t[1].text == "BaseException") &&
           (t[2].text == ":" || t[2].text == "as");
  }
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].text != "catch" || t[i + 1].text != "(") continue;
    if (t[i + 2].text == "...") return true;
    if (i + 4 < t.size() && t[i + 2].text == "." && t[i + 3].text == "." &&
        t[i + 4].text == ".") {
      return true;
    }
  }
  return false;
}

// The handler raises again or says what happened (a log line, a warning, a print): the
// error is not swallowed silently.
bool RaisesOrReports(const std::vector<Token>& t) {
  for (const Token& x : t) {
    if (x.text == "raise" || x.text == "throw" || x.text == "abort" || x.text == "exit" ||
        x.text == "TORCH_CHECK" || x.text == "rethrow_exception" || x.text == "print" ||
        x.text == "warn" || x.text == "warning" || x.text == "exception" || x.text == "error" ||
        x.text == "logger" || x.text == "logging" || x.text == "LOG" || x.text == "fprintf" ||
        x.text == "printf" || x.text == "cerr") {
      return true;
    }
  }
  return false;
}

}  // namespace

void FileReview::SwallowedErrors(ChangeBlock& b) {
  for (size_t i = 0; i < b.added.size(); ++i) {
    CodeLine& a = b.added[i];
    if (a.claimed || !CatchAll(a.tokens, python())) continue;
    // A handler reworded (`except Exception as e:` -> `except BaseException as e:`) is no
    // new one.
    const CodeLine* r = BestMatch(a, b, 0.5);
    if (r != nullptr && CatchAll(r->tokens, python())) continue;
    // The handler's body, from the whole head file when read (else the added lines after
    // it): up to 6 lines, while indented deeper (Python) or up to the closing brace (C++).
    const int indent = IndentOf(a.line->text);
    const SourceOutline* head = Outline(true);
    bool raises = false;
    std::string body;
    for (int64_t k = 1; k <= 6; ++k) {
      std::string_view raw;
      if (head != nullptr) {
        raw = head->Line(a.side_line() + k);
      } else {
        const size_t j = i + static_cast<size_t>(k);
        if (j >= b.added.size() || b.added[j].side_line() != a.side_line() + k) break;
        raw = b.added[j].line->text;
      }
      const std::string code = CommentStripper(code_.language).Strip(RuleText(raw));
      if (code.empty()) continue;
      if (python() && IndentOf(raw) <= indent) break;
      raises = raises || RaisesOrReports(Tokenize(code));
      if (body.empty()) body = code;
      if (!python() && code.find('}') != std::string::npos) break;
    }
    if (raises) continue;
    std::vector<CodeLine*> lines = {&a};
    Report(kSwallowed, lines,
           "`" + Shorten(a.code, 60) + "` added" + InFunction(lines) +
               (body.empty() ? std::string("")
                             : ", going on with `" + Shorten(body, 60) + "`") +
               ": it catches every error, not only the one expected (an ImportError of an "
               "optional module, a missing attribute). A broken fast path then silently takes "
               "the other one: which exception is meant, and is the path taken logged or "
               "recorded?");
  }
}

}  // namespace av
