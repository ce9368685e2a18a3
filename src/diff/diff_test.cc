#include "diff/diff.h"

#include <gtest/gtest.h>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

Diff MustParse(std::string_view text) {
  Result<Diff> d = ParseUnifiedDiff(text, "t.diff");
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? std::move(d).value() : Diff();
}

std::string ErrorOf(std::string_view text) {
  Result<Diff> d = ParseUnifiedDiff(text, "t.diff");
  EXPECT_FALSE(d.ok());
  return d.ok() ? "" : d.status().message();
}

TEST(DiffTest, ModifiedFileWithLineNumbers) {
  const char* text =
      "diff --git a/src/x.cu b/src/x.cu\n"
      "index 1111111..2222222 100644\n"
      "--- a/src/x.cu\n"
      "+++ b/src/x.cu\n"
      "@@ -10,4 +10,5 @@ void f() {\n"
      " a\n"
      "-b\n"
      "+B\n"
      "+C\n"
      " d\n"
      " e\n";
  Diff d = MustParse(text);
  ASSERT_EQ(d.files.size(), 1u);
  const FileDiff& f = d.files[0];
  EXPECT_EQ(f.old_path, "src/x.cu");
  EXPECT_EQ(f.new_path, "src/x.cu");
  EXPECT_EQ(f.status, FileStatus::kModified);
  ASSERT_EQ(f.hunks.size(), 1u);
  const Hunk& h = f.hunks[0];
  EXPECT_EQ(h.old_start, 10);
  EXPECT_EQ(h.new_count, 5);
  EXPECT_EQ(h.section, "void f() {");
  ASSERT_EQ(h.lines.size(), 6u);
  EXPECT_EQ(h.lines[1].kind, DiffLineKind::kDelete);
  EXPECT_EQ(h.lines[1].old_line, 11);
  EXPECT_EQ(h.lines[1].new_line, 0);
  EXPECT_EQ(h.lines[1].anchor, 11);
  EXPECT_EQ(h.lines[2].kind, DiffLineKind::kAdd);
  EXPECT_EQ(h.lines[2].new_line, 11);
  EXPECT_EQ(h.lines[3].new_line, 12);
  EXPECT_EQ(h.lines[4].old_line, 12);
  EXPECT_EQ(h.lines[4].new_line, 13);
  EXPECT_EQ(h.lines[4].source_line, 10);
  EXPECT_EQ(f.added_lines(), 2);
  EXPECT_EQ(f.deleted_lines(), 1);
  EXPECT_EQ(WriteUnifiedDiff(d), text);
}

TEST(DiffTest, RenameCopyModeAndBinary) {
  const char* text =
      "diff --git a/old/name.h b/new/name.h\n"
      "similarity index 92%\n"
      "rename from old/name.h\n"
      "rename to new/name.h\n"
      "index 1111111..2222222 100644\n"
      "--- a/old/name.h\n"
      "+++ b/new/name.h\n"
      "@@ -1 +1 @@\n"
      "-x\n"
      "+y\n"
      "diff --git a/pure rename.txt b/moved/pure rename.txt\n"
      "similarity index 100%\n"
      "rename from pure rename.txt\n"
      "rename to moved/pure rename.txt\n"
      "diff --git a/a.h b/b.h\n"
      "similarity index 100%\n"
      "copy from a.h\n"
      "copy to b.h\n"
      "diff --git a/run.sh b/run.sh\n"
      "old mode 100644\n"
      "new mode 100755\n"
      "diff --git a/img.png b/img.png\n"
      "index 1111111..2222222 100644\n"
      "Binary files a/img.png and b/img.png differ\n"
      "diff --git a/blob.bin b/blob.bin\n"
      "new file mode 100644\n"
      "index 0000000..3333333\n"
      "GIT binary patch\n"
      "literal 5\n"
      "McmZQzWMXCj00082)Bpeg\n"
      "\n"
      "literal 0\n"
      "HcmV?d00001\n"
      "\n"
      "diff --git a/gone.cu b/gone.cu\n"
      "deleted file mode 100644\n"
      "index 4444444..0000000\n"
      "--- a/gone.cu\n"
      "+++ /dev/null\n"
      "@@ -1,2 +0,0 @@\n"
      "-int a;\n"
      "-int b;\n"
      "diff --git a/empty.txt b/empty.txt\n"
      "new file mode 100644\n"
      "index 0000000..e69de29\n";
  Diff d = MustParse(text);
  ASSERT_EQ(d.files.size(), 8u);
  EXPECT_EQ(d.files[0].status, FileStatus::kRenamed);
  EXPECT_EQ(d.files[0].similarity, 92);
  EXPECT_EQ(d.files[0].old_path, "old/name.h");
  EXPECT_EQ(d.files[0].new_path, "new/name.h");
  EXPECT_EQ(d.files[1].status, FileStatus::kRenamed);
  EXPECT_EQ(d.files[1].old_path, "pure rename.txt");
  EXPECT_EQ(d.files[1].new_path, "moved/pure rename.txt");
  EXPECT_TRUE(d.files[1].hunks.empty());
  EXPECT_EQ(d.files[2].status, FileStatus::kCopied);
  EXPECT_EQ(d.files[2].new_path, "b.h");
  EXPECT_EQ(d.files[3].status, FileStatus::kModeChanged);
  EXPECT_EQ(d.files[3].old_mode, "100644");
  EXPECT_EQ(d.files[3].new_mode, "100755");
  EXPECT_EQ(d.files[3].path(), "run.sh");
  EXPECT_TRUE(d.files[4].binary);
  EXPECT_EQ(d.files[4].path(), "img.png");
  EXPECT_TRUE(d.files[5].binary);
  EXPECT_EQ(d.files[5].status, FileStatus::kAdded);
  EXPECT_EQ(d.files[5].path(), "blob.bin");
  EXPECT_EQ(d.files[6].status, FileStatus::kDeleted);
  EXPECT_EQ(d.files[6].old_path, "gone.cu");
  EXPECT_EQ(d.files[6].new_path, "");
  EXPECT_EQ(d.files[6].hunks[0].lines[1].anchor, 1);  // a deletion of everything sits at line 1
  EXPECT_EQ(d.files[7].status, FileStatus::kAdded);
  EXPECT_EQ(d.files[7].path(), "empty.txt");
  // Byte-exact: every file's part, and any subset in order.
  EXPECT_EQ(WriteUnifiedDiff(d), text);
  std::vector<size_t> pick = {5};
  EXPECT_EQ(WriteUnifiedDiff(d, pick),
            "diff --git a/blob.bin b/blob.bin\nnew file mode 100644\nindex 0000000..3333333\nGIT "
            "binary patch\n"
            "literal 5\nMcmZQzWMXCj00082)Bpeg\n\nliteral 0\nHcmV?d00001\n\n");
}

TEST(DiffTest, NoNewlineAtEndOfFile) {
  const char* text =
      "--- a/k.py\n"
      "+++ b/k.py\n"
      "@@ -1,2 +1,2 @@\n"
      " x = 1\n"
      "-y = 2\n"
      "\\ No newline at end of file\n"
      "+y = 3\n"
      "\\ No newline at end of file\n";
  Diff d = MustParse(text);
  ASSERT_EQ(d.files.size(), 1u);
  const Hunk& h = d.files[0].hunks[0];
  ASSERT_EQ(h.lines.size(), 3u);
  EXPECT_TRUE(h.lines[1].no_newline_at_end);
  EXPECT_TRUE(h.lines[2].no_newline_at_end);
  EXPECT_FALSE(h.lines[0].no_newline_at_end);
  EXPECT_EQ(d.files[0].new_path, "k.py");
  EXPECT_EQ(WriteUnifiedDiff(d), text);
  // The last line of the input itself without a newline survives too.
  std::string cut = std::string(text).substr(0, std::string(text).size() - 1);
  EXPECT_EQ(WriteUnifiedDiff(MustParse(cut)), cut);
}

TEST(DiffTest, QuotedPathsWithEscapes) {
  const char* text =
      "diff --git \"a/dir/caf\\303\\251 x.cu\" \"b/dir/caf\\303\\251 x.cu\"\n"
      "index 1111111..2222222 100644\n"
      "--- \"a/dir/caf\\303\\251 x.cu\"\n"
      "+++ \"b/dir/caf\\303\\251 x.cu\"\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n";
  Diff d = MustParse(text);
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_EQ(d.files[0].new_path, "dir/caf\xc3\xa9 x.cu");
  EXPECT_EQ(d.files[0].old_path, "dir/caf\xc3\xa9 x.cu");
}

TEST(DiffTest, PlainDiffU) {
  const char* text =
      "diff -u old/src/x.cu new/src/x.cu\n"
      "--- old/src/x.cu\t2024-05-01 10:00:00.000000000 +0000\n"
      "+++ new/src/x.cu\t2024-05-01 10:05:00.000000000 +0000\n"
      "@@ -1,3 +1,3 @@\n"
      " a\n"
      "-b\n"
      "+c\n"
      " d\n"
      "Only in new/src: y.cu\n"
      "--- src/z.h.orig\n"
      "+++ src/z.h\n"
      "@@ -0,0 +1 @@\n"
      "+int z;\n";
  Diff d = MustParse(text);
  ASSERT_EQ(d.files.size(), 2u);
  EXPECT_EQ(d.files[0].new_path, "src/x.cu");  // the differing first component is dropped
  EXPECT_EQ(d.files[1].old_path, "src/z.h.orig");
  EXPECT_EQ(d.files[1].new_path, "src/z.h");
  EXPECT_EQ(d.files[1].hunks[0].lines[0].new_line, 1);
  EXPECT_EQ(WriteUnifiedDiff(d), text);
}

TEST(DiffTest, NoPrefixModeChange) {
  Diff d = MustParse("diff --git run.sh run.sh\nold mode 100644\nnew mode 100755\n");
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_EQ(d.files[0].path(), "run.sh");
  EXPECT_EQ(d.files[0].status, FileStatus::kModeChanged);
}

TEST(DiffTest, PreambleIsKeptApart) {
  const char* text =
      "From abc Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH] tile\n"
      "\n"
      "---\n"
      " x | 2 +-\n"
      "\n"
      "diff --git a/x b/x\n"
      "--- a/x\n"
      "+++ b/x\n"
      "@@ -1 +1 @@\n"
      "-1\n"
      "+2\n";
  Diff d = MustParse(text);
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_EQ(d.preamble.substr(0, 5), "From ");
  EXPECT_EQ(d.files[0].raw.substr(0, 10), "diff --git");
  EXPECT_EQ(WriteUnifiedDiff(d), text);
}

TEST(DiffTest, RejectsUnsafePaths) {
  auto diff_for = [](const std::string& path) {
    return "--- a/" + path + "\n+++ b/" + path + "\n@@ -1 +1 @@\n-a\n+b\n";
  };
  EXPECT_NE(ErrorOf(diff_for("../etc/passwd"))
                .find("t.diff:1: path \"../etc/passwd\" has a \"..\" component"),
            std::string::npos);
  EXPECT_NE(ErrorOf(diff_for("src/../../x")).find("\"..\" component"), std::string::npos);
  EXPECT_NE(ErrorOf("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n")
                .find("t.diff:1: path \"/etc/passwd\" is absolute"),
            std::string::npos);
  EXPECT_NE(ErrorOf("diff --git \"a/x\\ty\" \"b/x\\ty\"\n--- \"a/x\\ty\"\n+++ \"b/x\\ty\"\n@@ -1 "
                    "+1 @@\n-a\n+b\n")
                .find("control character"),
            std::string::npos);
  EXPECT_NE(ErrorOf("diff --git a/x b/x\nrename from ../x\nrename to x\n").find("\"..\" component"),
            std::string::npos);
  // ".." inside a name is fine.
  EXPECT_EQ(MustParse(diff_for("src/a..b/x.cu")).files.size(), 1u);
}

TEST(DiffTest, RejectsMalformedHunks) {
  EXPECT_NE(ErrorOf("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n")
                .find("t.diff:3: hunk at line 3 ends early"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n").find("t.diff:6: unexpected line"),
      std::string::npos);
  EXPECT_NE(ErrorOf("--- a/x\n+++ b/x\n@@ -a +1 @@\n").find("t.diff:3: bad hunk header"),
            std::string::npos);
  EXPECT_NE(ErrorOf("--- a/x\n+++ b/x\n@@ -1,99999999999999999999 +1 @@\n").find("bad hunk header"),
            std::string::npos);
  EXPECT_NE(ErrorOf("--- a/x\n+++ b/x\n@@ -1,200000000 +1 @@\n").find("larger than"),
            std::string::npos);
  EXPECT_NE(ErrorOf("diff --git \"a/x b/x\n").find("unterminated"), std::string::npos);
  EXPECT_NE(ErrorOf("diff --git \"a/\\q\" \"b/x\"\n").find("unknown escape"), std::string::npos);
  EXPECT_NE(ErrorOf("diff --git \"a/\\30\"\n").find("octal"), std::string::npos);
  EXPECT_FALSE(ParseUnifiedDiff("diff --cc x\n", "t.diff").ok());
}

TEST(DiffTest, EmptyAndGarbageInputs) {
  EXPECT_TRUE(MustParse("").files.empty());
  EXPECT_TRUE(MustParse("just a commit message\n").files.empty());
  // Random bytes never crash; they either parse or give an error naming the source.
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 1664525u + 1013904223u;
    const char* pieces[] = {"--- a/x\n",
                            "+++ b/x\n",
                            "@@ -1,2 +1 @@\n",
                            " a\n",
                            "-b\n",
                            "+c\n",
                            "\\ x\n",
                            "diff --git a/y b/y\n",
                            "\"",
                            "\n",
                            "GIT binary patch\n",
                            "rename from z\n"};
    junk += pieces[(x >> 16) % 12];
    if (i % 50 == 0) {
      Result<Diff> d = ParseUnifiedDiff(junk, "j.diff");
      if (!d.ok()) {
        EXPECT_EQ(d.status().message().rfind("j.diff", 0), 0u) << d.status().message();
      } else {
        EXPECT_EQ(WriteUnifiedDiff(*d), junk);
      }
    }
  }
}

TEST(DiffTest, TestdataDiffsRoundTrip) {
  for (const char* name : {"demo_splitk_decode.diff", "flashmla_splitk_refactor.diff",
                           "deepgemm_tile_change.diff", "comments_only.diff", "python_side.diff"}) {
    std::string path = testing::SourceDir() + "/testdata/review/" + name;
    Result<std::string> text = ReadFileToString(path);
    ASSERT_TRUE(text.ok()) << path;
    Result<Diff> d = ParseUnifiedDiff(*text, path);
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_FALSE(d->files.empty()) << name;
    EXPECT_EQ(WriteUnifiedDiff(*d), *text) << name;
  }
}

// `git format-patch` output: mail header and message as the preamble, the "-- " signature
// and, in a series, the next patch's header as trailers; the text round-trips.
TEST(DiffRegression, FormatPatchSignatureTrailerIsAccepted) {
  const std::string patch =
      "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
      "From: A <a@example.com>\nSubject: [PATCH 1/2] one\n\n---\n k.cu | 2 +-\n\n"
      "diff --git a/k.cu b/k.cu\nindex 1111111..2222222 100644\n--- a/k.cu\n+++ b/k.cu\n"
      "@@ -1 +1 @@\n-int a = 1;\n+int a = 2;\n"
      "-- \n2.43.0\n\n"
      "From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH 2/2] two\n\n---\n"
      "diff --git a/m.cu b/m.cu\n--- a/m.cu\n+++ b/m.cu\n@@ -1 +1 @@\n-x\n+y\n"
      "-- \n2.43.0\n\n";
  Result<Diff> d = ParseUnifiedDiff(patch, "series.patch");
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->files.size(), 2u);
  EXPECT_EQ(d->files[0].path(), "k.cu");
  EXPECT_EQ(d->files[1].path(), "m.cu");
  EXPECT_EQ(d->files[0].trailer.rfind("-- \n2.43.0\n", 0), 0u) << d->files[0].trailer;
  EXPECT_NE(d->files[0].trailer.find("[PATCH 2/2]"), std::string::npos);
  EXPECT_EQ(WriteUnifiedDiff(*d), patch);
  // A slice of one file carries no signature.
  const size_t first = 0;
  EXPECT_EQ(WriteUnifiedDiff(*d, std::span<const size_t>(&first, 1)).find("\n-- \n"),
            std::string::npos);
  // Outside a format-patch trailer, stray text is still an error.
  Result<Diff> bad =
      ParseUnifiedDiff("--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-a\n+b\nstray text\n", "x.diff");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.diff:6: unexpected line"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace av
