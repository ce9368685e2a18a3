// Named-barrier ids of the split-KV decode kernel (attnverify test fixture).
#pragma once

enum BarrierIds : int {
    kScaleReady = 0,
    kProbsReady = 1,
    kOutIssued = 2,
    kScoresReady = 3,
};
