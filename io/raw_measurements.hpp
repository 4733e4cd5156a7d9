// io/raw_measurements.hpp: the raw-measurements JSON file (declared in c3/measurements.hpp).
#pragma once

#include "c3/measurements.hpp"
