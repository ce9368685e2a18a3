#include "launch.h"

int Launch(const Args& args) {
  return LaunchFast(args);
}
