#include "launch.h"

int Launch(const Args& args) {
  try {
    return LaunchFast(args);
  } catch (...) {
    return LaunchSlow(args);
  }
}
