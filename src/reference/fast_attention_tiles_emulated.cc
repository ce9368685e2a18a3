// The bf16 tile kernels on EmulatedTiles (tile_registers.h): the same programs and steps as
// the AMX build, in portable C++, for tests on any CPU and FastOptions::tiles = kEmulated.
#include "reference/fast_attention_tiles_impl.h"

namespace av::fast_attention {

bool RunTileUnitEmulated(const Context<double>& cx, const Unit& u, TileScratch& ts) {
  return RunTileUnit<EmulatedTiles>(cx, u, ts);
}

}  // namespace av::fast_attention
