// Which files of a component diff the agent sends to the model: what a kernel reviewer
// reads (kernel and host code, build files, tests and their tolerances, configs), never
// drawings, binaries or generated files, and not documentation. A file not sent is named
// in the request with the reason, so the model knows it changed; it cannot be cited (its
// lines are not in the request's context). doc/agent.md "What is sent". Pure functions.
#pragma once

#include <string>
#include <string_view>

#include "diff/diff.h"

namespace av {

enum class SentFileClass {
  kCode,       // sent: sources, build files, tests, configs
  kDoc,        // documentation: .md, .rst, .txt, docs/ folders, LICENSE, CHANGELOG
  kDrawing,    // .svg, images, PDFs, diagram sources (.drawio, .excalidraw)
  kBinary,     // git says binary, or a NUL byte in a line
  kGenerated,  // lock files, minified or protobuf output, "@generated" / "DO NOT EDIT"
};

std::string_view SentFileClassName(SentFileClass c);  // "code", "documentation", ...

struct SentFileDecision {
  SentFileClass cls = SentFileClass::kCode;
  bool send() const { return cls == SentFileClass::kCode; }
  std::string why;  // for a file not sent: "drawing (.svg)", "generated (package-lock.json)"
};

SentFileDecision DecideSentFile(const FileDiff& file);

}  // namespace av
