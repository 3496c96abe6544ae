// The assertion of the C++ tests: prints what failed, where, and exits non-zero,
// in every build type (assert() would vanish under NDEBUG in Release builds).
#pragma once

#include <cstdio>
#include <cstdlib>

#define ENVPOOL_CHECK(cond)                                                                 \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (false)
