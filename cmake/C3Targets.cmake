# c3_library(NAME SOURCES src... [LINKS target...] [PRIVATE_LINKS target...])
# One static library per concept folder (docs/architecture.md): the public headers of
# include/c3 for everyone, the source root for the folder's own internal headers, the
# project's warnings, and a place in the install export. LINKS are the lower layers
# this one builds on; the layering is one-directional (checked by the build: a folder
# that includes a higher layer's header does not link).
set(C3_EXPORTED_TARGETS "" CACHE INTERNAL "")
function(c3_library name)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "" "SOURCES;LINKS;PRIVATE_LINKS")
  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_features(${name} PUBLIC cxx_std_20)
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${C3_WARNINGS}>)
  target_compile_definitions(${name} PRIVATE C3_VERSION="${PROJECT_VERSION}")
  if(L_LINKS)
    target_link_libraries(${name} PUBLIC ${L_LINKS})
  endif()
  if(L_PRIVATE_LINKS)
    target_link_libraries(${name} PRIVATE ${L_PRIVATE_LINKS})
  endif()
  set_target_properties(${name} PROPERTIES OUTPUT_NAME c3advisor_${name})
  string(REGEX REPLACE "^c3_" "" short ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${short})
  set(C3_EXPORTED_TARGETS ${C3_EXPORTED_TARGETS} ${name} CACHE INTERNAL "")
endfunction()
