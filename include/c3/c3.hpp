// c3/c3.hpp: the whole public API of c3advisor.
#pragma once

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/model.hpp"
#include "c3/profile.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
