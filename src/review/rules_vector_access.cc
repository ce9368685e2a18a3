// memory.vectorized_access: an access the diff makes through a vector type
// (`reinterpret_cast<const float4*>(src)`, `*(int4*)(p + i)`, a `uint4` load): 16 (or 8, or 4)
// bytes at once need a base pointer and every offset aligned to that width, and a length that
// divides by it (or a scalar tail). A tensor sliced or offset by a row, and a row length that
// is not a multiple of the vector, break it silently (misaligned address, or a tail never
// copied).
#include <set>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

// The vector type a line casts a pointer to, or "".
std::string VectorCast(const std::vector<Token>& t) {
  static const std::set<std::string> kVectors = {
      "float4", "int4", "uint4", "float2", "int2", "uint2", "double2", "longlong2",
      "half2", "__half2", "__nv_bfloat162", "nv_bfloat162", "char4", "uchar4", "short4"};
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (!kVectors.count(t[i].text)) continue;
    // `T*` inside a cast: reinterpret_cast<T*>, (T*), (const T*).
    if (t[i + 1].text == "*" && (t[i + 2].text == ">" || t[i + 2].text == ")")) return t[i].text;
  }
  return "";
}

int VectorBytes(const std::string& type) {
  if (type == "float4" || type == "int4" || type == "uint4" || type == "double2" ||
      type == "longlong2") {
    return 16;
  }
  if (type == "float2" || type == "int2" || type == "uint2" || type == "short4") return 8;
  return 4;
}

}  // namespace

void FileReview::VectorizedAccesses(ChangeBlock& b) {
  if (!cpp()) return;
  std::vector<CodeLine*> lines;
  std::string type;
  for (CodeLine& a : b.added) {
    if (a.claimed || a.code.empty() || a.code[0] == '#') continue;
    const std::string v = VectorCast(a.tokens);
    if (v.empty()) continue;
    // A cast the old side made the same way is not new.
    const CodeLine* r = BestMatch(a, b, 0.6);
    if (r != nullptr && VectorCast(r->tokens) == v) continue;
    lines.push_back(&a);
    if (type.empty()) type = v;
  }
  if (lines.empty()) return;
  const std::string bytes = std::to_string(VectorBytes(type));
  Report(kVectorAccess, lines,
         "accessed as `" + type + "` (" + bytes + " bytes at a time)" + InFunction(lines) +
             ": is the base pointer " + bytes + "-byte aligned for every tensor passed (a slice, "
             "a view offset by rows or heads, an odd row length), and does every length it "
             "covers divide by the vector, or is the tail copied element by element?");
}

}  // namespace av
