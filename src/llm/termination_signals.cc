#include "llm/termination_signals.h"

#include <signal.h>

#include <mutex>

namespace av {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kCount = sizeof(kSignals) / sizeof(kSignals[0]);

volatile sig_atomic_t g_pending = 0;

std::mutex g_mutex;  // guards the two below
int g_scopes = 0;
struct sigaction g_previous[kCount];
bool g_installed[kCount] = {};

void OnSignal(int sig) {
  if (g_pending == 0) g_pending = sig;
}

}  // namespace

ScopedTerminationSignals::ScopedTerminationSignals() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_scopes++ > 0) return;
  for (int i = 0; i < kCount; ++i) {
    g_installed[i] = false;
    if (::sigaction(kSignals[i], nullptr, &g_previous[i]) != 0) continue;
    // An ignored signal stays ignored (nohup, a shell's background job).
    if (!(g_previous[i].sa_flags & SA_SIGINFO) && g_previous[i].sa_handler == SIG_IGN) continue;
    struct sigaction action = {};
    action.sa_handler = &OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocking poll returns, and curl looks at once
    g_installed[i] = ::sigaction(kSignals[i], &action, nullptr) == 0;
  }
}

ScopedTerminationSignals::~ScopedTerminationSignals() {
  int sig = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (--g_scopes > 0) return;
    for (int i = 0; i < kCount; ++i) {
      if (g_installed[i]) ::sigaction(kSignals[i], &g_previous[i], nullptr);
      g_installed[i] = false;
    }
    sig = g_pending;
    g_pending = 0;
  }
  // The row is written: now the signal does what it would have done.
  if (sig != 0) ::raise(sig);
}

int PendingTerminationSignal() { return g_pending; }

}  // namespace av
