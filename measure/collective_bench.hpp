// measure/collective_bench.hpp: `c3advisor bench-collective`'s procedure (declared in
// c3/measure.hpp; the file format in c3/measurements.hpp).
#pragma once

#include "c3/measure.hpp"
