// io/bench_file.hpp: the records of `c3advisor bench-collective` and their JSON file
// (declared in c3/measurements.hpp).
#pragma once

#include "c3/measurements.hpp"
