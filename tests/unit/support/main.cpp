// The unit tests' entry point: the built-in backends registered once, then GoogleTest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "c3/validator.hpp"

int main(int argc, char** argv) {
  c3::register_builtin_backends();
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
