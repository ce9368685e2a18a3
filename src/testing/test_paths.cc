// Where the tests find the checkout and the programs they run. The build folder's paths
// are compiled into this one file only, so every other test file is the same object in
// every checkout (ccache shares it) and moving a build folder rebuilds one file.
#include "testing/test_util.h"

namespace av::testing {

const char* SourceDirPath() { return ATTNVERIFY_SOURCE_DIR_VALUE; }
const char* AttnverifyBinaryPath() { return ATTNVERIFY_BINARY_VALUE; }
const char* CpuCandidatePath() { return ATTNVERIFY_CPU_CANDIDATE_VALUE; }

}  // namespace av::testing
