#include "profile/csv_reader.h"

#include <utility>

namespace av::profile {

CsvReader::CsvReader(std::istream& in, std::string shown) : in_(in), shown_(std::move(shown)) {}

bool CsvReader::Fill() {
  if (eof_) return false;
  buf_.resize(64 << 10);
  in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.resize(static_cast<size_t>(in_.gcount()));
  pos_ = 0;
  if (buf_.empty()) eof_ = true;
  return !buf_.empty();
}

int CsvReader::Peek() {
  if (pos_ >= buf_.size() && !Fill()) return -1;
  return static_cast<unsigned char>(buf_[pos_]);
}

int CsvReader::Get() {
  int c = Peek();
  if (c >= 0) {
    ++pos_;
    if (c == '\n') ++line_;
  }
  return c;
}

Status CsvReader::ErrorHere(const std::string& what) const {
  return InvalidInput(shown_ + ":" + std::to_string(record_line_) + ": " + what);
}

Result<bool> CsvReader::NextLine(std::string* line) {
  line->clear();
  record_line_ = line_;
  if (Peek() < 0) return false;
  for (int c = Get(); c >= 0 && c != '\n'; c = Get()) {
    if (line->size() >= kMaxFieldBytes) return ErrorHere("line longer than 1 MiB");
    line->push_back(static_cast<char>(c));
  }
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return true;
}

Result<bool> CsvReader::Next(std::vector<std::string>* fields) {
  fields->clear();
  record_line_ = line_;
  if (Peek() < 0) return false;
  std::string field;
  bool quoted = false;      // inside a quoted field
  bool was_quoted = false;  // this field began with a quote
  while (true) {
    int c = Get();
    if (quoted) {
      if (c < 0) return ErrorHere("quoted field not closed before the end of the file");
      if (c == '"') {
        if (Peek() == '"') {
          Get();
          field.push_back('"');
        } else {
          quoted = false;
        }
        continue;
      }
      if (field.size() >= kMaxFieldBytes) return ErrorHere("field longer than 1 MiB");
      field.push_back(static_cast<char>(c));
      continue;
    }
    if (c < 0 || c == '\n' || c == ',') {
      if (c != ',' && !was_quoted && !field.empty() && field.back() == '\r') field.pop_back();
      if (fields->size() >= kMaxFields) return ErrorHere("more than 4096 fields in one record");
      fields->push_back(std::move(field));
      field.clear();
      was_quoted = false;
      if (c != ',') return true;
      continue;
    }
    if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
      continue;
    }
    // A quoted field followed by text ("a"b) keeps the text; so does a bare quote.
    if (c == '\r' && was_quoted && Peek() == '\n') continue;
    if (field.size() >= kMaxFieldBytes) return ErrorHere("field longer than 1 MiB");
    field.push_back(static_cast<char>(c));
  }
}

}  // namespace av::profile
