// io/query.hpp: Query, one thing a Validator can measure (declared in c3/measurements.hpp).
#pragma once

#include "c3/measurements.hpp"
