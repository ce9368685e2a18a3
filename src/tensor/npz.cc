#include "tensor/npz.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <set>

#include "core/byte_reader.h"
#include "tensor/npy.h"

namespace av {
namespace {

// Record signatures and fixed sizes from PKWARE's APPNOTE.TXT (sections 4.3.7-4.3.16).
constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kEndSize = 22;
constexpr size_t kMaxCommentSize = 0xFFFF;  // so the end record lies in the last 65557 bytes
constexpr size_t kZip64LocatorSize = 20;
constexpr size_t kZip64EndSize = 56;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kLocalHeaderSize = 30;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kUseZip64 = 0xFFFFFFFF;
// Flag bits 0 (encrypted), 6 (strong encryption) and 13 (encrypted directory).
constexpr uint16_t kEncryptedFlags = (1u << 0) | (1u << 6) | (1u << 13);
constexpr uint16_t kStored = 0;
constexpr uint16_t kDeflated = 8;
// Deflate expands at most 1032:1 (a 258-byte match coded in 2 bits); a member claiming
// more is lying, and we will not allocate for it.
constexpr uint64_t kMaxDeflateRatio = 1032;

// A window into another buffer that keeps it alive: stored members are views of the
// archive's mapping, so reading them copies nothing.
class SliceBuffer final : public Buffer {
 public:
  SliceBuffer(std::shared_ptr<const Buffer> parent, size_t offset, size_t size)
      : parent_(std::move(parent)), offset_(offset), size_(size) {}
  const std::byte* data() const override {
    return parent_->data() == nullptr ? nullptr : parent_->data() + offset_;
  }
  size_t size() const override { return size_; }

 private:
  std::shared_ptr<const Buffer> parent_;
  size_t offset_;
  size_t size_;
};

// A member name from the file, safe for a message.
std::string Quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < std::min<size_t>(s.size(), 80); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != 0x7f && c != '\\') {
      out += static_cast<char>(c);  // keeps UTF-8 names readable
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > 80) out += "...";
  return out + "'";
}

std::string Hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", v);
  return text;
}

template <typename T>
std::optional<T> ReadAt(std::string_view file, uint64_t offset) {
  ByteReader reader(file);
  T value;
  if (offset > file.size() || !reader.Seek(static_cast<size_t>(offset)) ||
      !reader.ReadLittleEndian(&value)) {
    return std::nullopt;
  }
  return value;
}

std::string MethodName(uint16_t method) {
  switch (method) {
    case 9:
      return "9 (deflate64)";
    case 12:
      return "12 (bzip2)";
    case 14:
      return "14 (LZMA)";
    case 93:
      return "93 (zstd)";
    case 95:
      return "95 (xz)";
    default:
      return std::to_string(method);
  }
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Names are used as keys and may later name output files: nothing absolute, no "..".
std::optional<std::string> CheckMemberName(std::string_view name) {
  if (name.empty()) return "has an empty name";
  if (name.find('\0') != std::string_view::npos) return "has a NUL byte in its name";
  const bool drive = name.size() >= 2 && name[1] == ':' &&
                     ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'));
  if (name[0] == '/' || name[0] == '\\' || drive) return "has an absolute path";
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("/\\", start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start) == "..") return "has '..' in its path";
    start = end + 1;
  }
  return std::nullopt;
}

struct Directory {
  uint64_t entries = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Finds the end-of-central-directory record (and the ZIP64 one, when present) and
// returns where the central directory lies.
Result<Directory> FindDirectory(std::string_view file, const std::string& name) {
  if (file.size() < kEndSize) {
    return InvalidInput(name + ": file is too short (" + std::to_string(file.size()) +
                        " bytes) to be a ZIP archive");
  }
  // Search backwards; prefer a record whose comment ends exactly at the end of the file,
  // so "PK\5\6" inside a comment is not mistaken for the record.
  const size_t lowest =
      file.size() > kEndSize + kMaxCommentSize ? file.size() - kEndSize - kMaxCommentSize : 0;
  std::optional<size_t> end, fallback;
  for (size_t pos = file.size() - kEndSize + 1; pos-- > lowest;) {
    if (ReadAt<uint32_t>(file, pos) != kEndSignature) continue;
    const size_t record = kEndSize + *ReadAt<uint16_t>(file, pos + 20);
    if (record == file.size() - pos) {
      end = pos;
      break;
    }
    if (!fallback && record < file.size() - pos) fallback = pos;
  }
  if (!end) end = fallback;
  if (!end) {
    std::string hint = file.starts_with("\x93NUMPY") ? " (it is an .npy file)" : "";
    return InvalidInput(name +
                        ": not a ZIP archive: no end-of-central-directory record in the "
                        "last " +
                        std::to_string(kEndSize + kMaxCommentSize) + " bytes" + hint);
  }
  const uint16_t disk = *ReadAt<uint16_t>(file, *end + 4);
  const uint16_t directory_disk = *ReadAt<uint16_t>(file, *end + 6);
  const uint16_t disk_entries = *ReadAt<uint16_t>(file, *end + 8);
  Directory dir;
  dir.entries = *ReadAt<uint16_t>(file, *end + 10);
  dir.size = *ReadAt<uint32_t>(file, *end + 12);
  dir.offset = *ReadAt<uint32_t>(file, *end + 16);
  const Status multi_disk =
      Unsupported(name + ": multi-disk (split) ZIP archives are not supported");
  uint64_t directory_end = *end;  // the central directory must end before this record

  if (*end >= kZip64LocatorSize &&
      ReadAt<uint32_t>(file, *end - kZip64LocatorSize) == kZip64LocatorSignature) {
    const size_t locator = *end - kZip64LocatorSize;
    const uint32_t zip64_disk = *ReadAt<uint32_t>(file, locator + 4);
    const uint64_t zip64_end = *ReadAt<uint64_t>(file, locator + 8);
    const uint32_t total_disks = *ReadAt<uint32_t>(file, locator + 16);
    if (zip64_disk != 0 || total_disks > 1) return multi_disk;
    if (zip64_end > locator || locator - zip64_end < kZip64EndSize ||
        ReadAt<uint32_t>(file, zip64_end) != kZip64EndSignature) {
      return InvalidInput(name + ": the ZIP64 locator points to byte " + std::to_string(zip64_end) +
                          ", where there is no ZIP64 end record");
    }
    if (*ReadAt<uint32_t>(file, zip64_end + 16) != 0 ||
        *ReadAt<uint32_t>(file, zip64_end + 20) != 0 ||
        *ReadAt<uint64_t>(file, zip64_end + 24) != *ReadAt<uint64_t>(file, zip64_end + 32)) {
      return multi_disk;
    }
    dir.entries = *ReadAt<uint64_t>(file, zip64_end + 32);
    dir.size = *ReadAt<uint64_t>(file, zip64_end + 40);
    dir.offset = *ReadAt<uint64_t>(file, zip64_end + 48);
    directory_end = zip64_end;
  } else if (disk != 0 || directory_disk != 0 || disk_entries != dir.entries) {
    return multi_disk;
  }
  if (dir.offset > directory_end || dir.size > directory_end - dir.offset) {
    return InvalidInput(
        name + ": the central directory (" + std::to_string(dir.size) + " bytes at byte " +
        std::to_string(dir.offset) + ") does not lie before the end record at byte " +
        std::to_string(directory_end) + " (truncated file, or data prepended to the archive)");
  }
  if (dir.entries > dir.size / kCentralHeaderSize) {
    return InvalidInput(name + ": the end record claims " + std::to_string(dir.entries) +
                        " entries but the central directory has room for " +
                        std::to_string(dir.size / kCentralHeaderSize));
  }
  return dir;
}

// Inflates a raw deflate stream into exactly `size` bytes.
Result<std::shared_ptr<const Buffer>> Inflate(std::string_view compressed, uint64_t size,
                                              const std::string& what) {
  std::shared_ptr<OwnedBuffer> out;
  try {
    out = std::make_shared<OwnedBuffer>(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    return IoError(what + ": cannot allocate " + std::to_string(size) + " bytes to inflate it");
  }
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return Internal(what + ": zlib inflateInit2 failed");
  struct Ender {
    z_stream* zs;
    ~Ender() { inflateEnd(zs); }
  } ender{&zs};
  // zlib counts in 32-bit uInt; feed members over 4 GiB in pieces.
  constexpr size_t kChunk = size_t{1} << 30;
  const auto* in = reinterpret_cast<const Bytef*>(compressed.data());
  auto* dst = reinterpret_cast<Bytef*>(out->mutable_data());
  Bytef spill = 0;  // one byte past the end: inflate writing here means the size lied
  size_t in_pos = 0;
  size_t out_pos = 0;
  while (true) {
    const bool full = out_pos == size;
    zs.next_in = const_cast<Bytef*>(in + in_pos);
    zs.avail_in = static_cast<uInt>(std::min(compressed.size() - in_pos, kChunk));
    zs.next_out = full ? &spill : dst + out_pos;
    zs.avail_out = full ? 1 : static_cast<uInt>(std::min<uint64_t>(size - out_pos, kChunk));
    const uInt avail_out = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const size_t consumed = static_cast<size_t>(zs.next_in - (in + in_pos));
    const size_t produced = avail_out - zs.avail_out;
    in_pos += consumed;
    if (full && produced > 0) {
      return InvalidInput(what + ": inflates to more than the " + std::to_string(size) +
                          " bytes the directory records");
    }
    out_pos += produced;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
      return InvalidInput(what + ": corrupt deflate data (" +
                          std::string(zs.msg != nullptr ? zs.msg : "no detail") + ")");
    }
    if (rc == Z_MEM_ERROR) return Internal(what + ": out of memory while inflating");
    if (consumed == 0 && produced == 0) {
      return InvalidInput(what + ": deflate data ends before the end of the stream");
    }
  }
  if (out_pos != size) {
    return InvalidInput(what + ": inflates to " + std::to_string(out_pos) +
                        " bytes but the directory records " + std::to_string(size));
  }
  return std::shared_ptr<const Buffer>(std::move(out));
}

// One central directory record (APPNOTE 4.3.12), sizes and offset widened to 64 bits.
struct CentralEntry {
  uint32_t crc = 0;
  uint16_t flags = 0, method = 0;
  uint64_t compressed = 0, uncompressed = 0, local = 0;
  uint32_t start_disk = 0;
  std::string_view filename;
};

// Reads the record at `cd`'s position and checks its member name; `entry` names the record
// in errors, `name` the archive.
Result<CentralEntry> ReadCentralEntry(ByteReader& cd, const std::string& name,
                                      const std::string& entry, size_t entry_offset) {
  CentralEntry e;
  uint32_t signature = 0, compressed32 = 0, uncompressed32 = 0, attributes = 0, local32 = 0;
  uint16_t made_by = 0, needed = 0, time = 0, date = 0, name_size = 0, extra_size = 0,
           comment_size = 0, disk = 0, internal = 0;
  std::string_view extra;
  if (!cd.ReadLittleEndian(&signature) || !cd.ReadLittleEndian(&made_by) ||
      !cd.ReadLittleEndian(&needed) || !cd.ReadLittleEndian(&e.flags) ||
      !cd.ReadLittleEndian(&e.method) || !cd.ReadLittleEndian(&time) ||
      !cd.ReadLittleEndian(&date) || !cd.ReadLittleEndian(&e.crc) ||
      !cd.ReadLittleEndian(&compressed32) || !cd.ReadLittleEndian(&uncompressed32) ||
      !cd.ReadLittleEndian(&name_size) || !cd.ReadLittleEndian(&extra_size) ||
      !cd.ReadLittleEndian(&comment_size) || !cd.ReadLittleEndian(&disk) ||
      !cd.ReadLittleEndian(&internal) || !cd.ReadLittleEndian(&attributes) ||
      !cd.ReadLittleEndian(&local32) || !cd.ReadBytes(name_size, &e.filename) ||
      !cd.ReadBytes(extra_size, &extra) || !cd.Skip(comment_size)) {
    return InvalidInput(entry + " (byte " + std::to_string(entry_offset) +
                        ") runs past the end of the central directory");
  }
  if (signature != kCentralHeaderSignature) {
    return InvalidInput(entry + " (byte " + std::to_string(entry_offset) + ") has a bad signature");
  }
  const std::string member = name + ": member " + Quote(e.filename);
  if (auto bad = CheckMemberName(e.filename)) return InvalidInput(member + " " + *bad);
  e.compressed = compressed32;
  e.uncompressed = uncompressed32;
  e.local = local32;
  e.start_disk = disk;
  if (compressed32 != kUseZip64 && uncompressed32 != kUseZip64 && local32 != kUseZip64 &&
      disk != 0xFFFF) {
    return e;
  }
  // ZIP64 extra field (APPNOTE 4.5.3): holds, in this order, only the values whose 32-bit
  // fields are 0xFFFFFFFF (numpy's savez writes it with force_zip64=True).
  ByteReader fields(extra);
  std::optional<std::string_view> zip64;
  while (fields.remaining() >= 4) {
    uint16_t id = 0, size = 0;
    std::string_view body;
    if (!fields.ReadLittleEndian(&id) || !fields.ReadLittleEndian(&size) ||
        !fields.ReadBytes(size, &body)) {
      return InvalidInput(member + ": an extra field runs past the end of its entry");
    }
    if (id == kZip64ExtraId) zip64 = body;
  }
  if (!zip64) return InvalidInput(member + ": 0xFFFFFFFF sizes but no ZIP64 extra field");
  ByteReader z(*zip64);
  if ((uncompressed32 == kUseZip64 && !z.ReadLittleEndian(&e.uncompressed)) ||
      (compressed32 == kUseZip64 && !z.ReadLittleEndian(&e.compressed)) ||
      (local32 == kUseZip64 && !z.ReadLittleEndian(&e.local)) ||
      (disk == 0xFFFF && !z.ReadLittleEndian(&e.start_disk))) {
    return InvalidInput(member + ": the ZIP64 extra field is too short");
  }
  return e;
}

// What this reader takes: one disk, no encryption, stored or deflated with sizes that can be.
Status CheckStorage(const CentralEntry& e, const std::string& name, const std::string& member) {
  if (e.start_disk != 0) {
    return Unsupported(name + ": multi-disk (split) ZIP archives are not supported");
  }
  if (e.flags & kEncryptedFlags) return Unsupported(member + " is encrypted");
  if (e.method != kStored && e.method != kDeflated) {
    return Unsupported(member + " uses compression method " + MethodName(e.method) +
                       "; only stored (0) and deflate (8) are supported");
  }
  if (e.method == kStored && e.compressed != e.uncompressed) {
    return InvalidInput(member + " is stored but its sizes differ (" +
                        std::to_string(e.compressed) + " vs " + std::to_string(e.uncompressed) +
                        " bytes)");
  }
  if (e.method == kDeflated && e.uncompressed / kMaxDeflateRatio > e.compressed) {
    return InvalidInput(member + " claims " + std::to_string(e.uncompressed) + " bytes from " +
                        std::to_string(e.compressed) +
                        " compressed bytes, more than deflate can expand (1032:1)");
  }
  return Status::Ok();
}

// The member's data offset, from its local header (which repeats the name; its extra field
// may differ from the central one), checked to lie inside the file.
Result<uint64_t> LocateData(std::string_view file, const CentralEntry& e,
                            const std::string& member) {
  ByteReader lh(file);
  uint32_t local_signature = 0;
  uint16_t local_name_size = 0, local_extra_size = 0;
  std::string_view local_name;
  if (e.local > file.size() || !lh.Seek(static_cast<size_t>(e.local)) ||
      !lh.ReadLittleEndian(&local_signature) || !lh.Skip(kLocalHeaderSize - 8) ||
      !lh.ReadLittleEndian(&local_name_size) || !lh.ReadLittleEndian(&local_extra_size) ||
      !lh.ReadBytes(local_name_size, &local_name) || !lh.Skip(local_extra_size)) {
    return InvalidInput(member + ": local header at byte " + std::to_string(e.local) +
                        " runs past the end of the file (" + std::to_string(file.size()) +
                        " bytes)");
  }
  if (local_signature != kLocalHeaderSignature) {
    return InvalidInput(member + ": no local header at byte " + std::to_string(e.local));
  }
  if (local_name != e.filename) {
    return InvalidInput(member + ": the local header names it " + Quote(local_name));
  }
  const uint64_t data_offset = lh.position();
  if (e.compressed > lh.remaining()) {
    return InvalidInput(member + ": its " + std::to_string(e.compressed) + " bytes at byte " +
                        std::to_string(data_offset) + " run past the end of the file (" +
                        std::to_string(file.size()) + " bytes)");
  }
  return data_offset;
}

}  // namespace

Result<NpzArchive> ParseNpz(std::shared_ptr<const Buffer> bytes, const std::string& name) {
  CHECK(bytes != nullptr) << "ParseNpz: null buffer";
  const std::string_view file = bytes->view();
  AV_ASSIGN_OR_RETURN(Directory dir, FindDirectory(file, name));

  NpzArchive archive;
  archive.archive_name_ = name;
  std::set<std::string, std::less<>> filenames;
  std::map<std::string, std::string, std::less<>> listed;  // names() entry -> filename
  ByteReader cd(file.substr(static_cast<size_t>(dir.offset), static_cast<size_t>(dir.size)));
  for (uint64_t i = 0; i < dir.entries; ++i) {
    const std::string entry = name + ": central directory entry " + std::to_string(i);
    const size_t entry_offset = static_cast<size_t>(dir.offset) + cd.position();
    AV_ASSIGN_OR_RETURN(CentralEntry e, ReadCentralEntry(cd, name, entry, entry_offset));
    const std::string_view filename = e.filename;
    const std::string member = name + ": member " + Quote(filename);
    AV_RETURN_IF_ERROR(CheckStorage(e, name, member));
    AV_ASSIGN_OR_RETURN(uint64_t data_offset, LocateData(file, e, member));

    if (!filenames.emplace(filename).second) return InvalidInput(member + " appears twice");
    if (filename.back() == '/') continue;  // a directory entry; savez writes none
    std::string listed_name(EndsWith(filename, ".npy") ? filename.substr(0, filename.size() - 4)
                                                       : filename);
    auto [it, inserted] = listed.emplace(listed_name, std::string(filename));
    if (!inserted) {
      return InvalidInput(member + " and " + Quote(it->second) + " both hold the array " +
                          Quote(listed_name));
    }
    archive.members_.push_back(NpzArchive::Member{listed_name, std::string(filename), e.method,
                                                  e.crc, e.compressed, e.uncompressed,
                                                  data_offset});
    archive.names_.push_back(std::move(listed_name));
  }
  archive.bytes_ = std::move(bytes);
  return archive;
}

Result<NpzArchive> ReadNpz(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> mapped, MappedFile::Open(path));
  return ParseNpz(std::move(mapped), path);
}

const NpzArchive::Member* NpzArchive::Find(std::string_view name) const {
  for (const Member& m : members_) {
    if (m.name == name) return &m;
  }
  for (const Member& m : members_) {
    if (m.filename == name) return &m;
  }
  return nullptr;
}

Result<Tensor> NpzArchive::Get(std::string_view name) const {
  const Member* m = Find(name);
  if (m == nullptr) {
    std::string have;
    for (size_t i = 0; i < names_.size() && i < 20; ++i) have += (i ? ", " : "") + Quote(names_[i]);
    if (names_.size() > 20) have += ", ...";
    return NotFound(archive_name_ + ": no array " + Quote(name) +
                    (names_.empty() ? " (the archive is empty)" : " (it has " + have + ")"));
  }
  const std::string member = archive_name_ + "[" + m->filename + "]";
  if (!EndsWith(m->filename, ".npy")) {
    return Unsupported(member + ": not an .npy member (np.load would return its raw bytes)");
  }
  const std::string_view data = bytes_->view().substr(static_cast<size_t>(m->data_offset),
                                                      static_cast<size_t>(m->compressed_size));
  std::shared_ptr<const Buffer> npy;
  if (m->method == kStored) {
    npy = std::make_shared<SliceBuffer>(bytes_, static_cast<size_t>(m->data_offset), data.size());
  } else {
    AV_ASSIGN_OR_RETURN(npy, Inflate(data, m->uncompressed_size, member));
  }
  // Stored members are checked too: the CRC is the only guard against a corrupt copy,
  // and comparing reads every byte anyway.
  const uint32_t crc =
      static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(npy->data()), npy->size()));
  if (crc != m->crc) {
    return InvalidInput(member + ": CRC-32 of the data is " + Hex32(crc) +
                        " but the directory records " + Hex32(m->crc));
  }
  return ParseNpy(std::move(npy), member);
}

}  // namespace av
