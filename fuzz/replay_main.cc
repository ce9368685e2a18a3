// A main() for the fuzz targets in the ordinary test build (no clang, no libFuzzer): it
// feeds a target every file of its seed corpus, then a fixed number of inputs made from
// those seeds by stacked random edits (bit flips, boundary bytes and integers, deleted,
// repeated and truncated ranges, two seeds spliced). The edits come from a fixed seed, so
// a run is the same on every machine and a failure reproduces with the same command.
// It is not coverage-guided: scripts/fuzz runs the same targets under libFuzzer with
// AddressSanitizer and UndefinedBehaviorSanitizer for that.
//
//   <target>_replay CORPUS_DIR [RUNS]      RUNS mutated inputs after the seeds (default 20000)
//
// A crash, trap or uncaught exception writes the input that caused it to
// <target>.crash in the working folder (before the signal takes the process down), so
// `<target>_replay <target>.crash` or the libFuzzer build can replay it.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

// The input being run, for the signal handler (which may only call write()).
const uint8_t* g_current = nullptr;
size_t g_current_size = 0;
int g_crash_fd = -1;
char g_crash_message[512] = "fuzz replay: fatal signal\n";

void OnFatalSignal(int sig) {
  if (g_crash_fd >= 0 && g_current != nullptr) {
    size_t done = 0;
    while (done < g_current_size) {
      ssize_t n = write(g_crash_fd, g_current + done, g_current_size - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
  }
  (void)!write(2, g_crash_message, strlen(g_crash_message));
  signal(sig, SIG_DFL);
  raise(sig);
}

void Run(const Bytes& input) {
  g_current = input.data();
  g_current_size = input.size();
  LLVMFuzzerTestOneInput(input.data(), input.size());
  g_current = nullptr;
}

// splitmix64: small, fast and the same everywhere.
struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }
};

// Bytes that sit on parsers' boundaries: quotes, brackets, separators, digits, signs,
// escapes, line ends, the UTF-8 lead and continuation ranges, the integer edges.
constexpr uint8_t kBoundaryBytes[] = {0x00, 0x01, 0x7f, 0x80, 0xbf, 0xc0, 0xe0, 0xf0, 0xf8,
                                      0xff, '"',  '\'', '\\', '{',  '}',  '[',  ']',  ',',
                                      ':',  '0',  '9',  '-',  '+',  'e',  '.',  '\n', '\r',
                                      '\t', ' ',  '#',  '=',  '(',  ')',  '<',  '>',  '%'};
constexpr uint64_t kBoundaryIntegers[] = {0,          1,           0x7f,       0x80,
                                          0xff,       0x7fff,      0xffff,     0x7fffffff,
                                          0x80000000, 0xffffffff,  1ULL << 32, 1ULL << 40,
                                          1ULL << 62, 1ULL << 63,  ~0ULL,      ~0ULL - 1};

void Mutate(Bytes& b, const std::vector<Bytes>& seeds, Rng& rng) {
  switch (rng.Below(7)) {
    case 0:  // flip a bit
      if (!b.empty()) b[rng.Below(b.size())] ^= static_cast<uint8_t>(1u << rng.Below(8));
      break;
    case 1:  // a boundary byte, replacing or inserted
      if (!b.empty() && rng.Below(2) == 0) {
        b[rng.Below(b.size())] = kBoundaryBytes[rng.Below(std::size(kBoundaryBytes))];
      } else {
        b.insert(b.begin() + static_cast<ptrdiff_t>(rng.Below(b.size() + 1)),
                 kBoundaryBytes[rng.Below(std::size(kBoundaryBytes))]);
      }
      break;
    case 2: {  // a boundary integer over 1, 2, 4 or 8 bytes, little-endian
      size_t width = size_t{1} << rng.Below(4);
      if (b.size() < width) break;
      uint64_t v = kBoundaryIntegers[rng.Below(std::size(kBoundaryIntegers))];
      size_t at = rng.Below(b.size() - width + 1);
      for (size_t i = 0; i < width; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
      break;
    }
    case 3: {  // delete a range
      if (b.empty()) break;
      size_t at = rng.Below(b.size());
      size_t n = std::min(b.size() - at, 1 + rng.Below(16));
      b.erase(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(at + n));
      break;
    }
    case 4: {  // repeat a range in place
      if (b.empty() || b.size() > (1u << 20)) break;
      size_t at = rng.Below(b.size());
      size_t n = std::min(b.size() - at, 1 + rng.Below(64));
      Bytes range(b.begin() + static_cast<ptrdiff_t>(at),
                  b.begin() + static_cast<ptrdiff_t>(at + n));
      b.insert(b.begin() + static_cast<ptrdiff_t>(at), range.begin(), range.end());
      break;
    }
    case 5:  // truncate
      b.resize(rng.Below(b.size() + 1));
      break;
    default: {  // splice: this input's head, another seed's tail
      const Bytes& other = seeds[rng.Below(seeds.size())];
      b.resize(rng.Below(b.size() + 1));
      size_t from = rng.Below(other.size() + 1);
      b.insert(b.end(), other.begin() + static_cast<ptrdiff_t>(from), other.end());
      break;
    }
  }
}

bool ReadFile(const std::filesystem::path& path, Bytes& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

uint64_t NameHash(const std::string& s) {  // FNV-1a: the mutation seed follows the target
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR|FILE [RUNS]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path corpus = argv[1];
  char* end = nullptr;
  const long runs = argc == 3 ? std::strtol(argv[2], &end, 10) : 20000;
  if (argc == 3 && (*end != '\0' || runs < 0)) {
    std::fprintf(stderr, "%s: RUNS must be a count, not '%s'\n", argv[0], argv[2]);
    return 2;
  }
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (std::filesystem::is_directory(corpus, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(corpus, ec)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // a fixed order: the same run everywhere
  } else {
    files.push_back(corpus);
  }
  std::vector<Bytes> seeds;
  for (const auto& f : files) {
    Bytes b;
    if (!ReadFile(f, b)) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], f.c_str());
      return 2;
    }
    seeds.push_back(std::move(b));
  }
  if (seeds.empty()) seeds.push_back({});  // an empty corpus still runs the empty input

  const std::string name = std::filesystem::path(argv[0]).filename().string();
  const std::string crash_path = name + ".crash";
  g_crash_fd = open(crash_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::snprintf(g_crash_message, sizeof g_crash_message,
                "fuzz replay: %s: fatal signal; the input that caused it is in %s/%s\n",
                name.c_str(), std::filesystem::current_path(ec).c_str(), crash_path.c_str());
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}) signal(sig, OnFatalSignal);

  for (const Bytes& s : seeds) Run(s);
  Rng rng{NameHash(name)};
  for (long i = 0; i < runs; ++i) {
    Bytes b = seeds[rng.Below(seeds.size())];
    for (size_t k = 1 + rng.Below(4); k > 0; --k) Mutate(b, seeds, rng);
    Run(b);
  }
  close(g_crash_fd);
  unlink(crash_path.c_str());  // no crash: nothing to keep
  std::printf("%s: %zu seeds and %ld mutated inputs, no crash\n", name.c_str(), seeds.size(), runs);
  return 0;
}
