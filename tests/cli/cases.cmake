# The CLI tests: each runs the real c3advisor (from the source root, so that paths in
# messages are stable) through run_cli_test.cmake.
#   c3_cli_test(NAME [RC code] [GOLDEN file] [STDOUT_CONTAINS text] [STDERR_CONTAINS text]
#               ARGS arg...)
# GOLDEN names a file of tests/cli/golden/ that stdout must match as JSON. The target
# c3_update_goldens rewrites every golden file from the current binary (docs/cli.md).

set(C3_CLI_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/run_cli_test.cmake)
set(C3_GOLDEN_DIR ${CMAKE_CURRENT_LIST_DIR}/golden)
set(C3_CLI_FIXTURES tests/cli/fixtures)
set(C3_UPDATE_GOLDEN_COMMANDS "")

function(c3_cli_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "RC;GOLDEN;STDOUT_CONTAINS;STDERR_CONTAINS" "ARGS")
  if(NOT DEFINED T_RC)
    set(T_RC 0)
  endif()
  set(defines -DEXE=$<TARGET_FILE:c3advisor> -DWORKDIR=${PROJECT_SOURCE_DIR} -DEXPECT_RC=${T_RC})
  foreach(stream IN ITEMS STDOUT STDERR)
    if(DEFINED T_${stream}_CONTAINS)
      list(APPEND defines "-D${stream}_CONTAINS=${T_${stream}_CONTAINS}")
    endif()
  endforeach()
  if(DEFINED T_GOLDEN)
    list(APPEND defines -DGOLDEN=${C3_GOLDEN_DIR}/${T_GOLDEN})
    set(C3_UPDATE_GOLDEN_COMMANDS ${C3_UPDATE_GOLDEN_COMMANDS}
        COMMAND ${CMAKE_COMMAND} ${defines} -DUPDATE=ON -P ${C3_CLI_SCRIPT} -- ${T_ARGS}
        PARENT_SCOPE)
    list(APPEND defines -DJSON_DIFF=$<TARGET_FILE:c3_json_diff>
         -DACTUAL=${CMAKE_CURRENT_BINARY_DIR}/actual/${T_GOLDEN})
  endif()
  add_test(NAME cli.${name} COMMAND ${CMAKE_COMMAND} ${defines} -P ${C3_CLI_SCRIPT} -- ${T_ARGS})
  set_tests_properties(cli.${name} PROPERTIES LABELS cli)
endfunction()

# ---- golden JSON documents ----
c3_cli_test(advise_json GOLDEN advise_mi300x_cb1_all_gather_896MiB.json
  ARGS advise --profile mi300x --gemm 8192x8192x8192:bf16 --collective all_gather:896MiB --json)
c3_cli_test(sweep_paper_json GOLDEN sweep_mi300x_paper.json
  ARGS sweep --profile mi300x --scenarios paper --json)
c3_cli_test(profiles_json GOLDEN profiles.json ARGS profiles --json)
c3_cli_test(plan_json GOLDEN plan_mi300x_llama70b_fsdp.json
  ARGS plan --profile mi300x --trace data/traces/llama70b_fsdp.yaml --json)

# ---- text outputs and help ----
c3_cli_test(advise_text STDOUT_CONTAINS "recommended  "
  ARGS advise --gemm 8192x57344x8192 --collective all_to_all:4GiB)
c3_cli_test(advise_default_ranks STDOUT_CONTAINS "on 8 ranks"
  ARGS advise --gemm 8192x8192x8192 --collective reduce_scatter:1GiB)
c3_cli_test(advise_gemm_class STDOUT_CONTAINS "8192x8192x8192:fp8, memory_bound"
  ARGS advise --gemm 8192x8192x8192:fp8 --gemm-class memory_bound --collective all_gather:1GiB)
c3_cli_test(sweep_text STDOUT_CONTAINS "averages: fraction of ideal" ARGS sweep)
c3_cli_test(sweep_csv STDOUT_CONTAINS "name,m,n,k,dtype,collective,size_bytes,ranks"
  ARGS sweep --csv --ranks 4)
c3_cli_test(sweep_file STDOUT_CONTAINS "g2_1G"
  ARGS sweep --scenarios tests/unit/fixtures/scenarios_small.yaml)
c3_cli_test(plan_text STDOUT_CONTAINS "step total"
  ARGS plan --profile h200_sxm --trace data/traces/llama405b_fsdp.yaml)
c3_cli_test(profiles_text STDOUT_CONTAINS "mi300x" ARGS profiles)
c3_cli_test(profiles_dir STDOUT_CONTAINS "small" ARGS profiles --profile-dir tests/unit/fixtures/profiles)
c3_cli_test(version STDOUT_CONTAINS "${PROJECT_VERSION}" ARGS --version)
c3_cli_test(help STDOUT_CONTAINS "advise" ARGS --help)
foreach(command IN ITEMS advise sweep plan profiles)
  c3_cli_test(help_${command} STDOUT_CONTAINS "Examples:" ARGS ${command} --help)
endforeach()

# ---- bad input: exit code 2, one line naming the problem ----
c3_cli_test(bad_profile_table RC 2
  STDERR_CONTAINS "c3advisor: error: ${C3_CLI_FIXTURES}/profiles/bad_table.yaml:50: tables.gemm_slowdown.compute_bound.points[2]: x must increase (got 32 after 64)"
  ARGS advise --profile ${C3_CLI_FIXTURES}/profiles/bad_table.yaml --gemm 1024x1024x1024
       --collective all_gather:1MiB)
c3_cli_test(bad_trace_repeat RC 2
  STDERR_CONTAINS "c3advisor: error: ${C3_CLI_FIXTURES}/bad_repeat_trace.yaml:7: entries[1].repeat: must be > 0 (got 0)"
  ARGS plan --trace ${C3_CLI_FIXTURES}/bad_repeat_trace.yaml)
c3_cli_test(bad_scenarios_syntax RC 2
  STDERR_CONTAINS "c3advisor: error: ${C3_CLI_FIXTURES}/bad_syntax_scenarios.yaml:8: illegal flow end"
  ARGS sweep --scenarios ${C3_CLI_FIXTURES}/bad_syntax_scenarios.yaml)
c3_cli_test(missing_trace RC 2
  STDERR_CONTAINS "c3advisor: error: no/such/trace.yaml: cannot read"
  ARGS plan --trace no/such/trace.yaml)
c3_cli_test(unknown_profile RC 2
  STDERR_CONTAINS "c3advisor: error: unknown profile 'nope': neither an embedded profile (h100_sxm, h200_sxm, mi300x)"
  ARGS advise --profile nope --gemm 8192x8192x8192 --collective all_gather:1GiB)
c3_cli_test(unknown_scenarios RC 2 STDERR_CONTAINS "unknown scenarios 'papr'"
  ARGS sweep --scenarios papr)
c3_cli_test(bad_gemm RC 2 STDERR_CONTAINS "c3advisor: error: GEMM shape '8192x8192'"
  ARGS advise --gemm 8192x8192 --collective all_gather:1GiB)
c3_cli_test(bad_size RC 2 STDERR_CONTAINS "c3advisor: error: "
  ARGS advise --gemm 8192x8192x8192 --collective all_gather:0MiB)
c3_cli_test(bad_collective RC 2 STDERR_CONTAINS "unknown collective 'all_gathr'"
  ARGS advise --gemm 8192x8192x8192 --collective all_gathr:1GiB)
c3_cli_test(bad_gemm_class RC 2 STDERR_CONTAINS "io_bound"
  ARGS advise --gemm 8192x8192x8192 --gemm-class io_bound --collective all_gather:1GiB)
c3_cli_test(one_rank RC 2 STDERR_CONTAINS "ranks must be at least 2"
  ARGS advise --gemm 8192x8192x8192 --collective all_gather:1GiB --ranks 1)
c3_cli_test(sweep_one_rank RC 2 STDERR_CONTAINS "scenario mb1_896M (all_gather): "
  ARGS sweep --ranks 1)
c3_cli_test(missing_option RC 2 STDERR_CONTAINS "--gemm is required"
  ARGS advise --collective all_gather:1GiB)
c3_cli_test(bad_option_value RC 2 STDERR_CONTAINS "--ranks"
  ARGS advise --gemm 8192x8192x8192 --collective all_gather:1GiB --ranks many)
c3_cli_test(json_and_csv RC 2 STDERR_CONTAINS "excludes" ARGS sweep --json --csv)
c3_cli_test(no_subcommand RC 2
  STDERR_CONTAINS "c3advisor: error: a subcommand is required (advise, sweep, plan, profiles, calibrate, measure)" ARGS)
c3_cli_test(unknown_subcommand RC 2 STDERR_CONTAINS "not expected: frobnicate" ARGS frobnicate)
c3_cli_test(profile_dir_missing RC 2 STDERR_CONTAINS "is not a directory"
  ARGS profiles --profile-dir no/such/dir)
c3_cli_test(profile_dir_bad_file RC 2 STDERR_CONTAINS "${C3_CLI_FIXTURES}/profiles/bad_table.yaml:50: "
  ARGS profiles --profile-dir ${C3_CLI_FIXTURES}/profiles)

add_custom_target(c3_update_goldens ${C3_UPDATE_GOLDEN_COMMANDS}
  DEPENDS c3advisor
  COMMENT "Rewriting tests/cli/golden/ from the current c3advisor"
  VERBATIM)

# measure: bad input and a small real run on the simulator
c3_cli_test(measure_unknown_scenario RC 2 STDERR_CONTAINS "--only: no scenario named 'nope'"
  ARGS measure --backend sim --only nope --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_unknown_backend RC 2 STDERR_CONTAINS "unknown"
  ARGS measure --backend frob --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_sim RC 0 STDOUT_CONTAINS "measurements of 2 scenarios (0 failed)"
  ARGS measure --backend sim --only cb1_896M --out ${CMAKE_CURRENT_BINARY_DIR}/measure-sim.json)
