// attnverify: the command-line entry point. Everything lives in the command table
// (cli/commands.cc); main only hands over argv.
#include "cli/commands.h"

int main(int argc, char** argv) { return av::cli::Main(argc, argv); }
