# cmake/Sanitizers.cmake: sanitizer and fuzzing instrumentation for every target of
# the project. Included from the top-level CMakeLists.txt before any target is made,
# so that add_compile_options/add_link_options reach the library, the command line,
# the tests, the benchmarks and the fuzzers alike.
#
#   C3_SANITIZE=""                   no sanitizer (default)
#   C3_SANITIZE="address,undefined"  AddressSanitizer + UndefinedBehaviorSanitizer
#   C3_SANITIZE="thread"             ThreadSanitizer
#
# Findings are fatal: -fno-sanitize-recover=all makes UBSan abort on its first report
# (ASan and TSan stop too when run with halt_on_error=1, as scripts/sanitize.sh does).
# C3_SANITIZER_FLAGS holds the flags, for builds outside this project that link the
# instrumented library (tests/install).
#
# With C3_BUILD_FUZZ=ON (clang only) every target is also compiled with
# -fsanitize=fuzzer-no-link, so that libFuzzer sees coverage inside the library.

set(C3_SANITIZE "" CACHE STRING "Sanitizers for every target: '', 'address,undefined' or 'thread'")
set_property(CACHE C3_SANITIZE PROPERTY STRINGS "" "address,undefined" "thread")

set(C3_SANITIZER_FLAGS "")
if(C3_SANITIZE STREQUAL "address,undefined")
  # float-cast-overflow: in clang's "undefined", not in GCC's.
  set(C3_SANITIZER_FLAGS -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
                         -fno-omit-frame-pointer)
elseif(C3_SANITIZE STREQUAL "thread")
  set(C3_SANITIZER_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT C3_SANITIZE STREQUAL "")
  message(FATAL_ERROR "C3_SANITIZE='${C3_SANITIZE}': use '', 'address,undefined' or 'thread'")
endif()

# clang links UBSan's C++ part (the vptr checks of the C++ library) only into C++ links: a C
# program linking the instrumented library (the C API's tests and consumer) needs it asked for,
# with libstdc++ it depends on.
set(C3_SANITIZER_LINK_FLAGS "")
if(C3_SANITIZE MATCHES "undefined" AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(C3_SANITIZER_LINK_FLAGS -fsanitize-link-c++-runtime -lstdc++)
endif()

if(C3_SANITIZER_FLAGS)
  message(STATUS "c3advisor: sanitizers ${C3_SANITIZE} for every target")
  add_compile_options(${C3_SANITIZER_FLAGS})
  add_link_options(${C3_SANITIZER_FLAGS} ${C3_SANITIZER_LINK_FLAGS})
endif()

if(C3_BUILD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR
      "C3_BUILD_FUZZ=ON needs clang (libFuzzer, -fsanitize=fuzzer); this build uses "
      "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER}. Configure a separate build directory with "
      "-DCMAKE_CXX_COMPILER=clang++ (e.g. clang++-14), or see scripts/fuzz.sh.")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
