# Runs one c3advisor command and checks it. Called by the tests of cases.cmake:
#   cmake -DEXE=... -DWORKDIR=... -DEXPECT_RC=N [-DGOLDEN=FILE -DJSON_DIFF=TOOL -DACTUAL=FILE]
#         [-DSTDOUT_CONTAINS=TEXT] [-DSTDOUT_LACKS=TEXT] [-DSTDERR_CONTAINS=TEXT] [-DSTDERR_LACKS=TEXT] [-DUPDATE=ON]
#         -P run_cli_test.cmake -- ARG...
# Checks: the exit code; a failing command prints nothing on stdout; stdout and
# stderr contain the given texts, stdout lacks STDOUT_LACKS and stderr STDERR_LACKS; stdout matches GOLDEN
# as JSON (c3_json_diff).
# With UPDATE=ON it writes stdout to GOLDEN instead of comparing.

set(args "")
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND args "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()

execute_process(COMMAND ${EXE} ${args}
  WORKING_DIRECTORY ${WORKDIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "command: c3advisor ${args}\nexit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")

if(NOT rc STREQUAL EXPECT_RC)
  message(FATAL_ERROR "expected exit code ${EXPECT_RC}\n${report}")
endif()
if(NOT EXPECT_RC STREQUAL "0" AND NOT out STREQUAL "")
  message(FATAL_ERROR "a failing command must print nothing on stdout\n${report}")
endif()
foreach(stream IN ITEMS STDOUT STDERR)
  if(stream STREQUAL "STDOUT")
    set(text "${out}")
  else()
    set(text "${err}")
  endif()
  if(DEFINED ${stream}_CONTAINS)
    string(FIND "${text}" "${${stream}_CONTAINS}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${stream} lacks '${${stream}_CONTAINS}'\n${report}")
    endif()
  endif()
  if(DEFINED ${stream}_LACKS)
    string(FIND "${text}" "${${stream}_LACKS}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${stream} has '${${stream}_LACKS}'\n${report}")
    endif()
  endif()
endforeach()

if(DEFINED GOLDEN)
  if(UPDATE)
    file(WRITE ${GOLDEN} "${out}")
    message(STATUS "updated ${GOLDEN}")
    return()
  endif()
  file(WRITE ${ACTUAL} "${out}")
  execute_process(COMMAND ${JSON_DIFF} ${GOLDEN} ${ACTUAL}
    RESULT_VARIABLE diff_rc OUTPUT_VARIABLE diff_out ERROR_VARIABLE diff_err)
  if(diff_rc)
    message(FATAL_ERROR "stdout differs from ${GOLDEN}: ${diff_out}${diff_err}"
      "(regenerate goldens with: cmake --build BUILD --target c3_update_goldens)\n"
      "actual output kept in ${ACTUAL}")
  endif()
endif()
