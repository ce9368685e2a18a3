// The outline of one whole source file (one side of a diff: the base or the head
// revision): its functions and kernels with the lines of their template header, signature
// and body, and its enums. The reviewer reads it to know the kernel or enum a hunk line sits
// in even when the signature is far outside the diff's 3 lines of context. A brace and
// indent scanner over comment-stripped code, not a compiler: good enough for CUDA, C++ and
// Python as written in kernel libraries. Plain data, built by one call.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "review/code_text.h"

namespace av {

enum class FunctionKind {
  kUnknown,  // no outline (the diff alone), or not seen
  kKernel,   // __global__
  kDevice,   // __device__ (also __host__ __device__)
  kHost,     // any other C++ function
  kPython,   // def
};

struct OutlineFunction {
  std::string name;  // "fp8_gemm_kernel", "Gemm::run" is "run"
  FunctionKind kind = FunctionKind::kUnknown;
  int64_t header_line = 0;     // first line of the declaration (its `template <` line)
  int64_t signature_line = 0;  // the line holding the name and its '('
  int64_t open_line = 0;       // the body's '{' (Python: the def line)
  int64_t close_line = 0;      // the body's '}' (Python: its last line)
};

struct OutlineScope {
  std::string keyword;  // "enum", "struct", "class", "union", "namespace"
  std::string name;     // may be empty (anonymous)
  int64_t open_line = 0, close_line = 0;
};

struct SourceOutline {
  std::vector<std::string>
      lines;  // the file's lines, without newlines (1-based: lines[0] is line 1)
  std::vector<OutlineFunction> functions;
  std::vector<OutlineScope> scopes;
  // Innermost function containing each line (index into functions, -1 for none); same
  // size as lines.
  std::vector<int32_t> function_of_line;
  std::vector<int32_t> scope_of_line;  // innermost enum/struct/... scope, -1 for none

  const OutlineFunction* FunctionAt(int64_t line) const;
  const OutlineScope* ScopeAt(int64_t line) const;
  // The line's text (1-based); empty past the end.
  std::string_view Line(int64_t line) const;
  // True when `line` lies in the function's template header or signature (up to the line
  // of its '{').
  static bool InSignature(const OutlineFunction& f, int64_t line) {
    return line >= f.header_line && line <= f.open_line;
  }
};

// Builds the outline of `text`; files in other languages get lines and nothing else.
// Lines past kMaxOutlineLines are not outlined (the outline then covers the first ones).
SourceOutline BuildSourceOutline(std::string_view text, SourceLanguage language);

inline constexpr int64_t kMaxOutlineLines = 2'000'000;

// The name a C++ function signature line introduces: "__global__ void k(" -> "k", and
// git's hunk-header form of a signature whose return type sits on an earlier line,
// "fp8_gemm_kernel(__nv_bfloat16* gmem_d, ..." -> "fp8_gemm_kernel". "" when none.
std::string SignatureName(const std::vector<Token>& tokens, std::string_view code,
                          bool allow_bare_name);

}  // namespace av
