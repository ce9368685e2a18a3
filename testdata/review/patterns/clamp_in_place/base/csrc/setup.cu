// Synthetic fixture: a block count clamped in place, and one clamped into a new name.
struct Params { int hw; int per_block; int per_tile; };

void setup(Params& p, int n, int tiles) {
  int blocks = n / 4;
  p.per_block = (p.hw + blocks - 1) / blocks;
  int used = tiles / 2;
  p.per_tile = (p.hw + tiles - 1) / tiles;
}
