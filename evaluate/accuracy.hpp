// evaluate/accuracy.hpp: the advice scored against measurements (declared in c3/evaluate.hpp).
#pragma once

#include "c3/evaluate.hpp"
