#include "diff/diff.h"

#include <charconv>
#include <optional>

namespace av {
namespace {

struct Line {
  std::string_view text;  // without the newline (a trailing '\r' is kept)
  size_t begin = 0;       // offset of the first byte
  size_t end = 0;         // offset past the newline (or the end of input)
  int number = 0;         // 1-based
};

// Walks the text line by line; never reads past the end.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  bool AtEnd() const { return pos_ >= text_.size(); }
  Line Peek() const {
    Line line;
    line.begin = pos_;
    line.number = number_ + 1;
    size_t nl = text_.find('\n', pos_);
    if (nl == std::string_view::npos) {
      line.text = text_.substr(pos_);
      line.end = text_.size();
    } else {
      line.text = text_.substr(pos_, nl - pos_);
      line.end = nl + 1;
    }
    return line;
  }
  Line Next() {
    Line line = Peek();
    pos_ = line.end;
    ++number_;
    return line;
  }
  size_t position() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string_view TrimCr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

// Printable rendering of an untrusted path for messages.
std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 200)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  if (s.size() > 200) out += "...";
  return out;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source)
      : text_(text), source_(source), cursor_(text) {}

  Result<Diff> Parse();

 private:
  Status Error(int line, const std::string& what) const {
    return InvalidInput(source_ + ":" + std::to_string(line) + ": " + what);
  }
  // What a file's header lines say about its names, before they are reconciled.
  struct FileHeaders {
    bool git = false;
    std::string git_a, git_b;           // from the diff --git line (with prefixes)
    std::string minus_path, plus_path;  // from ---/+++ (with prefixes)
    bool have_minus = false;
    std::string rename_from, rename_to, copy_from, copy_to;
    bool new_file = false, deleted_file = false;
  };
  Result<FileDiff> ParseFile(size_t raw_begin);
  Status ParseGitLine(const Line& first, FileHeaders* h);
  Status ParseExtendedHeaders(FileDiff* file, FileHeaders* h);
  Status ParseUnifiedHeader(const Line& first, FileHeaders* h);
  Status ResolveNames(const Line& first, const FileHeaders& h, FileDiff* file) const;
  Status ParseHunk(FileDiff* file);
  // "a/x" or "\"a/x\"" (C-quoted), trailing tab/timestamp removed; nullopt-like error.
  Result<std::string> ParsePathField(std::string_view field, int line, bool strip_tab);
  Status CheckPath(const std::string& path, int line) const {
    Status st = ValidateDiffPath(path);
    if (!st.ok()) return Error(line, "path \"" + Printable(path) + "\" " + st.message());
    return Status::Ok();
  }

  std::string_view text_;
  const std::string& source_;
  LineCursor cursor_;
};

// A "--- " line followed by "+++ ": the start of a plain `diff -u` file.
bool IsPlainFileStart(const LineCursor& cursor) {
  if (cursor.AtEnd() || !StartsWith(cursor.Peek().text, "--- ")) return false;
  LineCursor look = cursor;
  look.Next();
  return !look.AtEnd() && StartsWith(look.Peek().text, "+++ ");
}

bool IsHeaderLike(std::string_view line) {
  return StartsWith(line, "diff ") || StartsWith(line, "Only in ") || StartsWith(line, "Index: ") ||
         StartsWith(line, "=====");
}

// Unquotes a git C-style quoted string starting at s[0] == '"'; sets *consumed.
Result<std::string> Unquote(std::string_view s, size_t* consumed) {
  std::string out;
  size_t i = 1;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {
      *consumed = i + 1;
      return out;
    }
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= s.size()) break;
    char e = s[i + 1];
    i += 2;
    switch (e) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'v':
        out += '\v';
        break;
      case 'f':
        out += '\f';
        break;
      case 'r':
        out += '\r';
        break;
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      default:
        if (e >= '0' && e <= '3') {
          // Three octal digits: e and the next two.
          if (i + 2 > s.size()) return InvalidInput("truncated octal escape in a quoted path");
          char d1 = s[i], d2 = s[i + 1];
          if (d1 < '0' || d1 > '7' || d2 < '0' || d2 > '7') {
            return InvalidInput("bad octal escape in a quoted path");
          }
          out += static_cast<char>(((e - '0') << 6) | ((d1 - '0') << 3) | (d2 - '0'));
          i += 2;
        } else {
          return InvalidInput(std::string("unknown escape \\") +
                              (e >= 0x20 && e < 0x7f ? std::string(1, e) : "?") +
                              " in a quoted path");
        }
    }
  }
  return InvalidInput("unterminated quoted path");
}

// Parses a decimal integer in [0, kMaxHunkLineCount * 100] from the front of s.
bool ReadNumber(std::string_view* s, int64_t* out) {
  const char* b = s->data();
  const char* e = b + s->size();
  int64_t v = 0;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p == b || v < 0 || v > (int64_t{1} << 50)) return false;
  s->remove_prefix(static_cast<size_t>(p - b));
  *out = v;
  return true;
}

// "-A[,B]" or "+C[,D]".
bool ReadRange(std::string_view* s, char sign, int64_t* start, int64_t* count) {
  if (s->empty() || (*s)[0] != sign) return false;
  s->remove_prefix(1);
  if (!ReadNumber(s, start)) return false;
  *count = 1;
  if (!s->empty() && (*s)[0] == ',') {
    s->remove_prefix(1);
    if (!ReadNumber(s, count)) return false;
  }
  return true;
}

// Splits "a/X b/X" (the unquoted diff --git line) when both names are equal.
bool SplitSameNames(std::string_view rest, std::string* a, std::string* b) {
  // "X X" (diff.noprefix): two equal halves.
  if (rest.size() % 2 == 1 && rest[rest.size() / 2] == ' ' &&
      rest.substr(0, rest.size() / 2) == rest.substr(rest.size() / 2 + 1)) {
    *a = std::string(rest.substr(0, rest.size() / 2));
    *b = *a;
    return true;
  }
  size_t pos = 0;
  while ((pos = rest.find(' ', pos + 1)) != std::string_view::npos) {
    std::string_view left = rest.substr(0, pos), right = rest.substr(pos + 1);
    size_t ls = left.find('/'), rs = right.find('/');
    if (ls == std::string_view::npos || rs == std::string_view::npos) continue;
    if (left.substr(ls + 1) == right.substr(rs + 1)) {
      *a = std::string(left);
      *b = std::string(right);
      return true;
    }
  }
  return false;
}

std::string StripPrefix(const std::string& path, std::string_view prefix) {
  if (StartsWith(path, prefix)) return path.substr(prefix.size());
  return path;
}

}  // namespace

std::string_view FileStatusName(FileStatus status) {
  switch (status) {
    case FileStatus::kModified:
      return "modified";
    case FileStatus::kAdded:
      return "added";
    case FileStatus::kDeleted:
      return "deleted";
    case FileStatus::kRenamed:
      return "renamed";
    case FileStatus::kCopied:
      return "copied";
    case FileStatus::kModeChanged:
      return "mode_changed";
  }
  return "modified";
}

int64_t FileDiff::added_lines() const {
  int64_t n = 0;
  for (const Hunk& h : hunks) {
    for (const DiffLine& l : h.lines) n += l.kind == DiffLineKind::kAdd;
  }
  return n;
}

int64_t FileDiff::deleted_lines() const {
  int64_t n = 0;
  for (const Hunk& h : hunks) {
    for (const DiffLine& l : h.lines) n += l.kind == DiffLineKind::kDelete;
  }
  return n;
}

Status ValidateDiffPath(std::string_view path) {
  if (path.empty()) return InvalidInput("is empty");
  if (path.size() > 4096) return InvalidInput("is longer than 4096 bytes");
  if (path[0] == '/') return InvalidInput("is absolute");
  for (char c : path) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return InvalidInput("contains a control character");
  }
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (path.substr(pos, slash - pos) == "..") return InvalidInput("has a \"..\" component");
    pos = slash + 1;
  }
  return Status::Ok();
}

Result<std::string> Parser::ParsePathField(std::string_view field, int line, bool strip_tab) {
  field = TrimCr(field);
  if (!field.empty() && field[0] == '"') {
    size_t used = 0;
    auto s = Unquote(field, &used);
    if (!s.ok()) return Error(line, s.status().message());
    return std::move(s).value();
  }
  if (strip_tab) {
    size_t tab = field.find('\t');
    if (tab != std::string_view::npos) field = field.substr(0, tab);
  }
  return std::string(field);
}

Status Parser::ParseHunk(FileDiff* file) {
  Line header = cursor_.Next();
  std::string_view s = TrimCr(header.text);
  s.remove_prefix(3);  // "@@ "
  Hunk hunk;
  hunk.source_line = header.number;
  if (!ReadRange(&s, '-', &hunk.old_start, &hunk.old_count) || s.empty() || s[0] != ' ') {
    return Error(header.number, "bad hunk header (expected \"@@ -A,B +C,D @@\")");
  }
  s.remove_prefix(1);
  if (!ReadRange(&s, '+', &hunk.new_start, &hunk.new_count) || !StartsWith(s, " @@")) {
    return Error(header.number, "bad hunk header (expected \"@@ -A,B +C,D @@\")");
  }
  if (hunk.old_count > kMaxHunkLineCount || hunk.new_count > kMaxHunkLineCount) {
    return Error(header.number,
                 "hunk is larger than " + std::to_string(kMaxHunkLineCount) + " lines");
  }
  if ((hunk.old_count > 0 && hunk.old_start == 0) || (hunk.new_count > 0 && hunk.new_start == 0)) {
    return Error(header.number, "bad hunk header (a non-empty range starts at line 0)");
  }
  s.remove_prefix(3);
  while (!s.empty() && (s[0] == ' ' || s[0] == '\t')) s.remove_prefix(1);
  hunk.section = std::string(s);
  int64_t old_left = hunk.old_count, new_left = hunk.new_count;
  // A count of 0 names the line before the (empty) range.
  int64_t old_no = hunk.old_count == 0 ? hunk.old_start + 1 : hunk.old_start;
  int64_t new_no = hunk.new_count == 0 ? hunk.new_start + 1 : hunk.new_start;
  auto missing = [&](int at) {
    return Error(at, "hunk at line " + std::to_string(header.number) +
                         " ends early: " + std::to_string(old_left) + " old and " +
                         std::to_string(new_left) + " new lines missing");
  };
  while (old_left > 0 || new_left > 0) {
    if (cursor_.AtEnd()) return missing(header.number);
    Line l = cursor_.Peek();
    char c = l.text.empty() ? ' ' : l.text[0];
    DiffLine dl;
    dl.source_line = l.number;
    dl.text = l.text.empty() ? std::string() : std::string(l.text.substr(1));
    if (c == '\\') {
      if (hunk.lines.empty())
        return Error(l.number, "\"\\ No newline at end of file\" before any line");
      hunk.lines.back().no_newline_at_end = true;
      cursor_.Next();
      continue;
    }
    if (c == ' ') {
      if (old_left == 0 || new_left == 0) return missing(l.number);
      dl.kind = DiffLineKind::kContext;
      dl.old_line = old_no++;
      dl.new_line = new_no++;
      dl.anchor = dl.new_line;
      --old_left;
      --new_left;
    } else if (c == '-') {
      if (old_left == 0)
        return Error(l.number, "more deleted lines than the hunk header at line " +
                                   std::to_string(header.number) + " says");
      dl.kind = DiffLineKind::kDelete;
      dl.old_line = old_no++;
      dl.anchor = new_no < 1 ? 1 : new_no;
      --old_left;
    } else if (c == '+') {
      if (new_left == 0)
        return Error(l.number, "more added lines than the hunk header at line " +
                                   std::to_string(header.number) + " says");
      dl.kind = DiffLineKind::kAdd;
      dl.new_line = new_no++;
      dl.anchor = dl.new_line;
      --new_left;
    } else {
      return missing(l.number);
    }
    cursor_.Next();
    hunk.lines.push_back(std::move(dl));
  }
  if (!cursor_.AtEnd() && StartsWith(cursor_.Peek().text, "\\")) {
    if (hunk.lines.empty())
      return Error(cursor_.Peek().number, "\"\\ No newline at end of file\" before any line");
    hunk.lines.back().no_newline_at_end = true;
    cursor_.Next();
  }
  file->hunks.push_back(std::move(hunk));
  return Status::Ok();
}

// "diff --git a/x b/x", either name C-quoted; both may stay empty (renames name their
// paths in the extended headers).
Status Parser::ParseGitLine(const Line& first, FileHeaders* h) {
  std::string_view rest = TrimCr(first.text.substr(11));
  if (!rest.empty() && rest[0] == '"') {
    size_t used = 0;
    auto a = Unquote(rest, &used);
    if (!a.ok()) return Error(first.number, a.status().message());
    h->git_a = *a;
    rest.remove_prefix(used);
    if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    AV_ASSIGN_OR_RETURN(h->git_b, ParsePathField(rest, first.number, false));
  } else {
    size_t q = rest.find(" \"");
    if (q != std::string_view::npos) {
      h->git_a = std::string(rest.substr(0, q));
      AV_ASSIGN_OR_RETURN(h->git_b, ParsePathField(rest.substr(q + 1), first.number, false));
    } else {
      SplitSameNames(rest, &h->git_a, &h->git_b);
    }
  }
  return Status::Ok();
}

// git's extended headers (modes, similarity, rename/copy, index, binary markers), up to
// the first line that is none of them.
Status Parser::ParseExtendedHeaders(FileDiff* file, FileHeaders* h) {
  while (!cursor_.AtEnd()) {
    Line l = cursor_.Peek();
    std::string_view t = TrimCr(l.text);
    auto value = [&](std::string_view prefix) { return t.substr(prefix.size()); };
    if (StartsWith(t, "old mode ")) {
      file->old_mode = std::string(value("old mode "));
    } else if (StartsWith(t, "new mode ")) {
      file->new_mode = std::string(value("new mode "));
    } else if (StartsWith(t, "deleted file mode ")) {
      h->deleted_file = true;
      file->old_mode = std::string(value("deleted file mode "));
    } else if (StartsWith(t, "new file mode ")) {
      h->new_file = true;
      file->new_mode = std::string(value("new file mode "));
    } else if (StartsWith(t, "similarity index ") || StartsWith(t, "dissimilarity index ")) {
      std::string_view v =
          value(StartsWith(t, "similarity") ? "similarity index " : "dissimilarity index ");
      int64_t pct = 0;
      if (!ReadNumber(&v, &pct) || v != "%" || pct > 100)
        return Error(l.number, "bad similarity index");
      if (StartsWith(t, "similarity")) file->similarity = static_cast<int>(pct);
    } else if (StartsWith(t, "rename from ")) {
      AV_ASSIGN_OR_RETURN(h->rename_from, ParsePathField(value("rename from "), l.number, false));
    } else if (StartsWith(t, "rename to ")) {
      AV_ASSIGN_OR_RETURN(h->rename_to, ParsePathField(value("rename to "), l.number, false));
    } else if (StartsWith(t, "copy from ")) {
      AV_ASSIGN_OR_RETURN(h->copy_from, ParsePathField(value("copy from "), l.number, false));
    } else if (StartsWith(t, "copy to ")) {
      AV_ASSIGN_OR_RETURN(h->copy_to, ParsePathField(value("copy to "), l.number, false));
    } else if (StartsWith(t, "index ")) {
      // "index abc..def 100644": hashes only; nothing to keep.
    } else if (StartsWith(t, "Binary files ") && t.size() >= 7 &&
               t.substr(t.size() - 7) == " differ") {
      file->binary = true;
    } else if (t == "GIT binary patch") {
      file->binary = true;
      cursor_.Next();
      // Base85 lines never contain a space, so the next "diff --git " ends the data.
      while (!cursor_.AtEnd() && !StartsWith(cursor_.Peek().text, "diff --git ")) cursor_.Next();
      return Status::Ok();
    } else {
      return Status::Ok();
    }
    cursor_.Next();
  }
  return Status::Ok();
}

// "--- a/x" and "+++ b/x", then a hunk must follow (a plain diff needs them; git's may
// have none: a mode change, a binary file, a pure rename).
Status Parser::ParseUnifiedHeader(const Line& first, FileHeaders* h) {
  if (!cursor_.AtEnd() && StartsWith(cursor_.Peek().text, "--- ")) {
    Line minus = cursor_.Next();
    if (cursor_.AtEnd() || !StartsWith(cursor_.Peek().text, "+++ ")) {
      return Error(minus.number, "\"---\" line not followed by \"+++\"");
    }
    Line plus = cursor_.Next();
    AV_ASSIGN_OR_RETURN(h->minus_path, ParsePathField(minus.text.substr(4), minus.number, true));
    AV_ASSIGN_OR_RETURN(h->plus_path, ParsePathField(plus.text.substr(4), plus.number, true));
    h->have_minus = true;
    if (!cursor_.AtEnd() && !StartsWith(cursor_.Peek().text, "@@ ")) {
      return Error(cursor_.Peek().number,
                   "expected a hunk (\"@@ -A,B +C,D @@\") after the file header");
    }
  } else if (!h->git) {
    return Error(first.number, "expected \"--- \" (a file header)");
  }
  return Status::Ok();
}

// The file's two names and its status. Names: ---/+++ first, then rename/copy headers,
// then the diff --git line.
Status Parser::ResolveNames(const Line& first, const FileHeaders& h, FileDiff* file) const {
  std::string old_name, new_name;
  bool old_null = false, new_null = false;
  if (h.have_minus) {
    old_null = h.minus_path == "/dev/null";
    new_null = h.plus_path == "/dev/null";
    old_name = old_null ? "" : h.minus_path;
    new_name = new_null ? "" : h.plus_path;
    const bool a_prefix = old_null || StartsWith(old_name, "a/");
    const bool b_prefix = new_null || StartsWith(new_name, "b/");
    if (a_prefix && b_prefix) {
      old_name = StripPrefix(old_name, "a/");
      new_name = StripPrefix(new_name, "b/");
    } else if (!h.git && !old_null && !new_null) {
      // diff -u old/dir/x new/dir/x: drop the differing first component (patch -p1).
      size_t os = old_name.find('/'), ns = new_name.find('/');
      if (os != std::string::npos && ns != std::string::npos && os > 0 && ns > 0 &&
          old_name.substr(0, os) != new_name.substr(0, ns) &&
          old_name.substr(os + 1) == new_name.substr(ns + 1)) {
        old_name = old_name.substr(os + 1);
        new_name = new_name.substr(ns + 1);
      }
    }
  } else {
    old_name = StripPrefix(h.git_a, "a/");
    new_name = StripPrefix(h.git_b, "b/");
  }
  if (!h.rename_from.empty()) old_name = h.rename_from;
  if (!h.rename_to.empty()) new_name = h.rename_to;
  if (!h.copy_from.empty()) old_name = h.copy_from;
  if (!h.copy_to.empty()) new_name = h.copy_to;
  if (h.new_file) old_null = true;
  if (h.deleted_file) new_null = true;
  if (old_null && new_null) return Error(first.number, "both sides of the file are /dev/null");
  file->old_path = old_null ? "" : old_name;
  file->new_path = new_null ? "" : new_name;
  if (file->old_path.empty() && file->new_path.empty()) {
    return Error(first.number, "cannot tell the file's name from its headers");
  }
  if (!file->old_path.empty()) AV_RETURN_IF_ERROR(CheckPath(file->old_path, first.number));
  if (!file->new_path.empty()) AV_RETURN_IF_ERROR(CheckPath(file->new_path, first.number));

  if (old_null) {
    file->status = FileStatus::kAdded;
  } else if (new_null) {
    file->status = FileStatus::kDeleted;
  } else if (!h.rename_from.empty() || !h.rename_to.empty()) {
    file->status = FileStatus::kRenamed;
  } else if (!h.copy_from.empty() || !h.copy_to.empty()) {
    file->status = FileStatus::kCopied;
  } else if (!file->old_mode.empty() && !file->new_mode.empty() && file->hunks.empty() &&
             !file->binary) {
    file->status = FileStatus::kModeChanged;
  }
  return Status::Ok();
}

Result<FileDiff> Parser::ParseFile(size_t raw_begin) {
  FileDiff file;
  const Line first = cursor_.Peek();
  file.source_line = first.number;
  FileHeaders h;
  h.git = StartsWith(first.text, "diff --git ");
  if (h.git) {
    cursor_.Next();
    AV_RETURN_IF_ERROR(ParseGitLine(first, &h));
    AV_RETURN_IF_ERROR(ParseExtendedHeaders(&file, &h));
  }
  AV_RETURN_IF_ERROR(ParseUnifiedHeader(first, &h));
  while (!cursor_.AtEnd() && StartsWith(cursor_.Peek().text, "@@ ")) {
    if (!h.have_minus)
      return Error(cursor_.Peek().number, "hunk without \"---\"/\"+++\" file header");
    AV_RETURN_IF_ERROR(ParseHunk(&file));
  }
  AV_RETURN_IF_ERROR(ResolveNames(first, h, &file));
  file.raw = std::string(text_.substr(raw_begin, cursor_.position() - raw_begin));
  return file;
}

Result<Diff> Parser::Parse() {
  Diff diff;
  diff.source = source_;
  if (text_.size() > kMaxDiffBytes) {
    return InvalidInput(source_ + ": diff is larger than " + std::to_string(kMaxDiffBytes >> 20) +
                        " MiB");
  }
  std::optional<size_t> pending;  // start of "diff -u a b"/"Only in" lines owned by the next file
  int pending_line = 0;
  while (!cursor_.AtEnd()) {
    Line l = cursor_.Peek();
    const bool file_start = StartsWith(l.text, "diff --git ") || IsPlainFileStart(cursor_);
    if (file_start) {
      if (diff.files.size() >= kMaxDiffFiles) {
        return Error(l.number, "more than " + std::to_string(kMaxDiffFiles) + " files");
      }
      size_t begin = pending.value_or(l.begin);
      if (diff.files.empty()) diff.preamble = std::string(text_.substr(0, begin));
      AV_ASSIGN_OR_RETURN(FileDiff file, ParseFile(begin));
      diff.files.push_back(std::move(file));
      pending.reset();
      continue;
    }
    if (StartsWith(l.text, "diff --cc ") || StartsWith(l.text, "diff --combined ")) {
      return Unsupported(source_ + ":" + std::to_string(l.number) +
                         ": combined (merge) diffs are not supported; diff against one parent");
    }
    if (IsHeaderLike(l.text)) {
      if (!pending) {
        pending = l.begin;
        pending_line = l.number;
      }
      cursor_.Next();
      continue;
    }
    if (diff.files.empty() && !pending) {
      cursor_.Next();  // preamble (a commit message)
      continue;
    }
    if (!pending && TrimCr(l.text) == "-- ") {
      // git format-patch's signature ("-- ", the git version, a blank line) and, in a
      // series, the next patch's mail header, message and diffstat: up to the next file.
      FileDiff& last = diff.files.back();
      while (!cursor_.AtEnd()) {
        const std::string_view t = cursor_.Peek().text;
        if (StartsWith(t, "diff --git ") || IsPlainFileStart(cursor_)) break;
        last.trailer += std::string(
            text_.substr(cursor_.Peek().begin, cursor_.Peek().end - cursor_.Peek().begin));
        cursor_.Next();
      }
      continue;
    }
    return Error(l.number, "unexpected line outside a file's hunks: \"" +
                               Printable(TrimCr(l.text).substr(0, 60)) + "\"");
  }
  if (diff.files.empty() && !pending) diff.preamble = std::string(text_);
  if (pending) {
    // Trailing "Only in ..." lines: keep them with the last file so nothing is lost.
    if (diff.files.empty()) {
      diff.preamble = std::string(text_);
    } else {
      diff.files.back().raw += std::string(text_.substr(*pending));
    }
    (void)pending_line;
  }
  return diff;
}

Result<Diff> ParseUnifiedDiff(std::string_view text, const std::string& source_name) {
  Parser parser(text, source_name);
  return parser.Parse();
}

std::string WriteUnifiedDiff(const Diff& diff, std::span<const size_t> file_indices) {
  std::string out;
  for (size_t i : file_indices) {
    if (i < diff.files.size()) out += diff.files[i].raw;
  }
  return out;
}

std::string WriteUnifiedDiff(const Diff& diff) {
  std::string out = diff.preamble;
  for (const FileDiff& f : diff.files) {
    out += f.raw;
    out += f.trailer;
  }
  return out;
}

}  // namespace av
