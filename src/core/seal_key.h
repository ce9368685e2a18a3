// The per-user secret that seals evidence/run.json (schema/run_seal.h): 32 random bytes
// in a file only its owner may read, outside every package and hidden from the sandbox
// (core/sandbox.h binds /dev/null over it). Whoever edits a package without this key
// cannot make a ledger that the report accepts as sealed here. HmacSha256Hex is the MAC.
// Format and places: doc/formats/run-json.md "The seal". Any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

// Overrides where the key lives (tests, CI, two machines sharing one key).
inline constexpr const char* kSealKeyEnv = "ATTNVERIFY_KEY_FILE";

struct SealKey {
  std::string path;
  std::string bytes;  // the secret
  std::string id;     // 16 hex digits derived from it: names the key, never reveals it
};

// $ATTNVERIFY_KEY_FILE when set, else $XDG_STATE_HOME/attnverify/run-seal.key, else
// $HOME/.local/state/attnverify/run-seal.key ($HOME unset: the user's home folder from
// the password database); empty when none of them is known.
std::string SealKeyPath();

// The key at `path`. NotFound when there is none; InvalidInput naming the file when it is
// a link, not a regular file, or not 32 to 4096 bytes.
Result<SealKey> ReadSealKey(const std::string& path);

// The key at `path`, made first when there is none: the folder 0700, the file 0600 with
// 32 bytes of getrandom(2), created with O_EXCL (of two processes making it at once, the
// second reads the first's).
Result<SealKey> ReadOrCreateSealKey(const std::string& path);

// HMAC-SHA256 (RFC 2104) of `message` under `key`, 64 lowercase hex digits.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

// Constant-time comparison of two digests of the same length (false when they differ).
bool DigestsEqual(std::string_view a, std::string_view b);

}  // namespace av
