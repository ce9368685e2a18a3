// CsvReader: a streaming RFC 4180 reader for profiler exports (ncu, nsys, plain timing
// CSV). It reads a stream in 64 KiB chunks and keeps one record at a time, so a 50 MB
// export costs one record of memory; a record or field past the caps is an error naming
// the line, never an unbounded allocation. Quoted fields may hold commas, quotes ("") and
// line breaks; a stray quote inside an unquoted field is kept as text (ncu rule rows).
// Lines before the table (ncu's ==PROF== preamble, the program's stdout) are read raw
// with NextLine(). Not thread-safe; one reader per stream.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "core/status.h"

namespace av::profile {

class CsvReader {
 public:
  // `shown` names the file in messages ("ncu_head.csv").
  CsvReader(std::istream& in, std::string shown);

  static constexpr size_t kMaxFieldBytes = 1 << 20;  // a demangled name is ~2 KB
  static constexpr size_t kMaxFields = 4096;         // a raw page has ~1500 metric columns

  // The next record into `fields`; false at the end of the stream. A final line without
  // a newline is a record. An empty line is a record of one empty field.
  Result<bool> Next(std::vector<std::string>* fields);
  // The next physical line, without its line break (\n or \r\n); false at the end.
  Result<bool> NextLine(std::string* line);
  // 1-based line on which the last record or line began ("FILE:LINE: ...").
  size_t line() const { return record_line_; }
  const std::string& shown() const { return shown_; }
  // "FILE:LINE: what", for messages about the last record.
  Status ErrorHere(const std::string& what) const;

 private:
  int Peek();  // -1 at the end
  int Get();
  bool Fill();

  std::istream& in_;
  std::string shown_;
  std::string buf_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t record_line_ = 0;
  bool eof_ = false;
};

}  // namespace av::profile
