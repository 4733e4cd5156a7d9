# Installs the built project into WORK_DIR/prefix, configures and builds the
# consumer in SOURCE_DIR against it, and runs it. Fails on any error.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
# The consumer is built by the same compiler, with the sanitizers the library was
# built with (C3_SANITIZE): an instrumented static library needs their runtime.
set(consumer_flags)
if(CXX_COMPILER)
  list(APPEND consumer_flags -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(C_COMPILER)
  list(APPEND consumer_flags -DCMAKE_C_COMPILER=${C_COMPILER})
endif()
if(SANITIZER_FLAGS)
  string(REPLACE ";" " " flags "${SANITIZER_FLAGS}")
  string(REPLACE ";" " " link_flags "${SANITIZER_LINK_FLAGS}")
  list(APPEND consumer_flags "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_C_FLAGS=${flags}"
       "-DCMAKE_EXE_LINKER_FLAGS=${flags} ${link_flags}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix ${consumer_flags} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "consumer said: ${out}")
if(rc)
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()
if(NOT out MATCHES "recommend")
  message(FATAL_ERROR "the consumer printed no recommendation")
endif()
# The C API from C, linked against the installed libc3advisor.so.
execute_process(COMMAND ${WORK_DIR}/build/consumer_c RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "the C consumer said: ${out}${err}")
if(rc OR NOT out MATCHES "C: recommend")
  message(FATAL_ERROR "the C consumer failed: ${rc}")
endif()
# The installed Python package finds the installed library (python/CMakeLists.txt).
if(PYTHON AND PYTHON_DIR)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK_DIR}/prefix/${PYTHON_DIR} C3ADVISOR_LIBRARY=
    ${PYTHON} -c "import c3advisor, sys; a = c3advisor.Advisor('mi300x').advise(gemm=(8192, 8192, 8192), size='896MiB'); print('python: recommend', a.strategy, c3advisor._capi.find_library())"
    WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "the installed Python package said: ${out}${err}")
  if(rc OR NOT out MATCHES "python: recommend .*${WORK_DIR}/prefix/")
    message(FATAL_ERROR "the installed Python package failed (${rc}) or found a library outside the prefix")
  endif()
endif()
