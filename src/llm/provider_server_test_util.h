// Tests only (header-only, never linked into the library): starts
// tests/provider_server/server.py, the scripted stand-in provider, on 127.0.0.1 with an
// ephemeral port (plain HTTP or HTTPS with a self-signed certificate made by openssl),
// reads back the requests it logged, and stops it when the object dies.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "testing/test_util.h"

extern char** environ;

namespace av::testing {

// /usr/bin/python3, else python3 on PATH; "" when neither runs.
inline std::string FindPython3() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    if (RunShell(std::string(py) + " -c 'import http.server, ssl'").exit_code == 0) return py;
  }
  return "";
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteAll(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

struct TlsFiles {
  std::string cert, key, pin;  // pin: "sha256//<base64>"
  std::string error;           // why they could not be made
};

// A self-signed certificate for IP 127.0.0.1 (EC P-256: fast to make), and its pin.
inline TlsFiles MakeSelfSignedCertificate(const std::string& dir) {
  TlsFiles t;
  t.cert = dir + "/cert.pem";
  t.key = dir + "/key.pem";
  if (RunShell("command -v openssl").exit_code != 0) {
    t.error = "openssl is not installed";
    return t;
  }
  auto r = RunShell(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-keyout '" +
      t.key + "' -out '" + t.cert +
      "' -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1");
  if (r.exit_code != 0) {
    t.error = "openssl req failed: " + r.output;
    return t;
  }
  auto pin = RunShell("openssl x509 -in '" + t.cert +
                      "' -pubkey -noout | openssl pkey -pubin -outform der | "
                      "openssl dgst -sha256 -binary | openssl enc -base64");
  if (pin.exit_code != 0) {
    t.error = "computing the pin failed: " + pin.output;
    return t;
  }
  std::string b64 = pin.output.substr(0, pin.output.find('\n'));
  t.pin = "sha256//" + b64;
  return t;
}

class ProviderServer {
 public:
  ProviderServer() = default;
  ProviderServer(const ProviderServer&) = delete;
  ProviderServer& operator=(const ProviderServer&) = delete;
  ~ProviderServer() { Stop(); }

  // Starts the server with `script` (the JSON text of {"steps": [...]}); "" on success,
  // else why not.
  std::string Start(const std::string& script, const TlsFiles* tls = nullptr) {
    python_ = FindPython3();
    if (python_.empty()) return "no python3 with http.server and ssl";
    WriteAll(dir_.File("script.json"), script);
    log_ = dir_.File("requests.jsonl");
    const std::string port_file = dir_.File("port");
    std::vector<std::string> args = {
        python_,       SourceDir() + "/tests/provider_server/server.py",
        "--script",    dir_.File("script.json"),
        "--log",       log_,
        "--port-file", port_file};
    if (tls != nullptr) {
      args.insert(args.end(), {"--cert", tls->cert, "--key", tls->key});
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawnp(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      pid_ = -1;
      return "could not start " + python_;
    }
    for (int i = 0; i < 400; ++i) {  // up to 20 s on a loaded machine
      std::string text = ReadAll(port_file);
      if (!text.empty()) {
        port_ = std::stoi(text);
        return "";
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return "the server exited before it was ready";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "the server did not report its port";
  }

  void Stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

  int port() const { return port_; }
  std::string Url(bool https = false) const {
    return std::string(https ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
  }
  // Every request logged so far.
  std::vector<nlohmann::json> Requests() const {
    std::vector<nlohmann::json> out;
    std::istringstream in(ReadAll(log_));
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    }
    return out;
  }
  std::string RawLog() const { return ReadAll(log_); }

 private:
  TempDir dir_;
  std::string python_;
  std::string log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace av::testing
