// SIGINT, SIGTERM and SIGHUP while a provider request is in flight. Ctrl-C, `timeout`, a
// CI cancel and `run`'s stage timeout all end attnverify with one of them; without this
// the attempt's outcome row would never be written. While a ScopedTerminationSignals is
// alive, each of the three (unless it was ignored, as for a background job's SIGINT) is
// only recorded; the transport polls PendingTerminationSignal() and stops the transfer,
// the client writes the attempt's `interrupted` row, and when the last scope ends the
// signal is raised again with the disposition it had, so the process dies of it as it
// would have (exit 130/143/129 from a shell). SIGKILL cannot be caught: the in_flight row
// written before sending stands for that attempt (doc/formats/token-ledger-csv.md).
// Scopes may nest and may live on several threads.
#pragma once

namespace av {

class ScopedTerminationSignals {
 public:
  ScopedTerminationSignals();
  ~ScopedTerminationSignals();
  ScopedTerminationSignals(const ScopedTerminationSignals&) = delete;
  ScopedTerminationSignals& operator=(const ScopedTerminationSignals&) = delete;
};

// The first of SIGINT, SIGTERM, SIGHUP caught under a live scope, else 0.
// Async-signal-safe.
int PendingTerminationSignal();

}  // namespace av
