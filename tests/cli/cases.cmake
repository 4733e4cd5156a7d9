# The CLI tests: each runs the real c3advisor (from the source root, so that paths in
# messages are stable) through run_cli_test.cmake.
#   c3_cli_test(NAME [RC code] [GOLDEN file] [STDOUT_CONTAINS text] [STDOUT_LACKS text]
#               [STDERR_CONTAINS text] [STDERR_LACKS text] ARGS arg...)
# GOLDEN names a file of tests/cli/golden/ that stdout must match as JSON. The target
# c3_update_goldens rewrites every golden file from the current binary (docs/cli.md).

set(C3_CLI_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/run_cli_test.cmake)
set(C3_GOLDEN_DIR ${CMAKE_CURRENT_LIST_DIR}/golden)
set(C3_CLI_FIXTURES tests/cli/fixtures)
set(C3_UPDATE_GOLDEN_COMMANDS "")

function(c3_cli_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "RC;GOLDEN;STDOUT_CONTAINS;STDOUT_LACKS;STDERR_CONTAINS;STDERR_LACKS" "ARGS")
  if(NOT DEFINED T_RC)
    set(T_RC 0)
  endif()
  set(defines -DEXE=$<TARGET_FILE:c3advisor> -DWORKDIR=${PROJECT_SOURCE_DIR} -DEXPECT_RC=${T_RC})
  foreach(stream IN ITEMS STDOUT STDERR)
    if(DEFINED T_${stream}_CONTAINS)
      list(APPEND defines "-D${stream}_CONTAINS=${T_${stream}_CONTAINS}")
    endif()
  endforeach()
  foreach(stream IN ITEMS STDOUT STDERR)
    if(DEFINED T_${stream}_LACKS)
      list(APPEND defines "-D${stream}_LACKS=${T_${stream}_LACKS}")
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
# validate on the measured 2x H200 paper pairs (docs/accuracy.md): pins the accuracy numbers
set(C3_H200X2_PROFILE data/profiles/h200x2.yaml)
set(C3_PAPER_REPLAY replay:data/measurements/paper-h200x2-2026-11-22.json)
c3_cli_test(validate_paper_json GOLDEN validate_h200x2_paper.json
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2 --json)
# --chained: gated runs (cuda option gate=1) of train pairs priced as in a chain (docs/model.md §4.6):
# 42 of 49 right, against 30 priced alone (the next test); 43 and 31 before the strategy
# corrections of §4.7 (2026-11-27, fourteenth session)
c3_cli_test(validate_chained STDOUT_CONTAINS "decision accuracy       42/49 (85.7%)"
  ARGS validate --profile h200x2 --ranks 2 --chained --scenarios data/scenarios/gate-medium-train.yaml
       --backend replay:data/measurements/gate-medium-train-g2-h200x2-2026-11-26.json)
c3_cli_test(validate_unchained STDOUT_CONTAINS "decision accuracy       30/49 (61.2%)"
  ARGS validate --profile h200x2 --ranks 2 --scenarios data/scenarios/gate-medium-train.yaml
       --backend replay:data/measurements/gate-medium-train-g2-h200x2-2026-11-26.json)
c3_cli_test(validate_chained_json STDOUT_CONTAINS "\"chained\": true"
  ARGS validate --profile h200x2 --ranks 2 --chained --json --scenarios data/scenarios/trace-dependent-train.yaml
       --backend replay:data/measurements/gate-dependent-train-g2-h200x2-2026-11-26.json)

# ---- text outputs and help ----
c3_cli_test(advise_text STDOUT_CONTAINS "recommended  "
  ARGS advise --gemm 8192x57344x8192 --collective all_to_all:4GiB)
c3_cli_test(advise_default_ranks STDOUT_CONTAINS "on 8 ranks"
  ARGS advise --gemm 8192x8192x8192 --collective reduce_scatter:1GiB)
c3_cli_test(advise_gemm_class STDOUT_CONTAINS "8192x8192x8192:fp8, memory_bound"
  ARGS advise --gemm 8192x8192x8192:fp8 --gemm-class memory_bound --collective all_gather:1GiB)
# NVIDIA profiles call compute units SMs (c3::compute_unit_name), AMD ones CUs
c3_cli_test(advise_text_nvidia_sms STDOUT_CONTAINS "coll SMs" STDOUT_LACKS " CUs"
  ARGS advise --profile h200x2 --gemm 8192x8192x8192 --collective all_gather:1GiB --ranks 2)
c3_cli_test(advise_text_amd_cus STDOUT_CONTAINS "coll CUs" STDOUT_LACKS " SMs"
  ARGS advise --profile mi300x --gemm 8192x8192x8192 --collective all_gather:1GiB)
c3_cli_test(sweep_text STDOUT_CONTAINS "averages: fraction of ideal" ARGS sweep)
c3_cli_test(sweep_csv STDOUT_CONTAINS "name,m,n,k,dtype,collective,size_bytes,ranks,dependency,overlap"
  ARGS sweep --csv --ranks 4)
# the columns do not depend on the input: a dependent set has the independent families' too
c3_cli_test(sweep_csv_dependent_same_columns
  STDOUT_CONTAINS "dma_rp_fraction_of_ideal,chunked_strategy,chunked_predicted_s,chunked_speedup,chunked_fraction_of_ideal,recommended_strategy"
  ARGS sweep --csv --profile h200x2 --scenarios data/scenarios/dependent-s2201-n48.yaml)
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
  STDERR_CONTAINS "c3advisor: error: unknown profile 'nope': neither an embedded profile (h100_sxm, h100x2, h200_sxm, "
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
  STDERR_CONTAINS "c3advisor: error: a subcommand is required (advise, sweep, plan, profiles, calibrate, measure, validate, report, bench-collective, scenarios)" ARGS)
c3_cli_test(unknown_subcommand RC 2 STDERR_CONTAINS "not expected: frobnicate" ARGS frobnicate)
c3_cli_test(profile_dir_missing RC 2 STDERR_CONTAINS "is not a directory"
  ARGS profiles --profile-dir no/such/dir)
c3_cli_test(profile_dir_bad_file RC 2 STDERR_CONTAINS "${C3_CLI_FIXTURES}/profiles/bad_table.yaml:50: "
  ARGS profiles --profile-dir ${C3_CLI_FIXTURES}/profiles)
# A profile of one GPU: refused where it is read (it loaded, and only advising failed).
file(READ ${PROJECT_SOURCE_DIR}/data/profiles/h200x2.yaml C3_ONE_GPU)
string(REPLACE "\ngpu_count: 2\n" "\ngpu_count: 1\n" C3_ONE_GPU "${C3_ONE_GPU}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/one-gpu.yaml "${C3_ONE_GPU}")
c3_cli_test(profile_one_gpu RC 2
  STDERR_CONTAINS "c3advisor: error: ${CMAKE_CURRENT_BINARY_DIR}/one-gpu.yaml:4: gpu_count: must be at least 2: a profile describes a node whose GPUs run collectives together"
  ARGS advise --profile ${CMAKE_CURRENT_BINARY_DIR}/one-gpu.yaml --gemm 4096x4096x4096 --collective all_gather:64MiB)
# YAML nested deeper than yaml-cpp reads: the file, the line and what is wrong (it said "bad file").
string(REPEAT "[" 10000 C3_DEEP_OPEN)
string(REPEAT "]" 10000 C3_DEEP_CLOSE)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/deep-scenarios.yaml "schema_version: 1\nname: deep\npairs: ${C3_DEEP_OPEN}${C3_DEEP_CLOSE}\n")
c3_cli_test(yaml_nested_too_deeply RC 2
  STDERR_CONTAINS "c3advisor: error: ${CMAKE_CURRENT_BINARY_DIR}/deep-scenarios.yaml:3: nested too deeply" STDERR_LACKS "bad file"
  ARGS sweep --profile h200x2 --scenarios ${CMAKE_CURRENT_BINARY_DIR}/deep-scenarios.yaml)
string(REPEAT "- " 10000 C3_DEEP_DASHES)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/deep-profile.yaml "schema_version: 1\nname: deep\ngpu:\n  ${C3_DEEP_DASHES}x\n")
c3_cli_test(yaml_nested_too_deeply_block RC 2
  STDERR_CONTAINS "c3advisor: error: ${CMAKE_CURRENT_BINARY_DIR}/deep-profile.yaml:4: nested too deeply" STDERR_LACKS "bad file"
  ARGS advise --profile ${CMAKE_CURRENT_BINARY_DIR}/deep-profile.yaml --gemm 4096x4096x4096 --collective all_gather:64MiB)
# A key given twice in a JSON file: an error naming the file and the key path (nlohmann kept
# the last value): raw measurements, the gate file, `validate --json` for report.
file(READ ${CMAKE_CURRENT_LIST_DIR}/fixtures/replay_median_p1.json C3_DUP_RAW)
string(FIND "${C3_DUP_RAW}" "\"median_s\":" C3_DUP_AT)
string(SUBSTRING "${C3_DUP_RAW}" 0 ${C3_DUP_AT} C3_DUP_HEAD)
string(SUBSTRING "${C3_DUP_RAW}" ${C3_DUP_AT} -1 C3_DUP_TAIL)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/dup-raw.json "${C3_DUP_HEAD}\"median_s\": 1.0, ${C3_DUP_TAIL}")
c3_cli_test(json_duplicate_key_raw RC 2
  STDERR_CONTAINS "c3advisor: error: ${CMAKE_CURRENT_BINARY_DIR}/dup-raw.json: records[0].median_s: duplicate key"
  ARGS validate --profile h200x2 --backend replay:${CMAKE_CURRENT_BINARY_DIR}/dup-raw.json --ranks 2 --only cb1_896M)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/dup-gate.json [=[{"schema_version": 1, "checks": {
  "loose": {"thresholds": [{"metric": "decision_accuracy", "at_least": 0}]},
  "loose": {"thresholds": [{"metric": "decision_accuracy", "at_least": 0.5}]}}}
]=])
c3_cli_test(json_duplicate_key_gate RC 2
  STDERR_CONTAINS "c3advisor: error: ${CMAKE_CURRENT_BINARY_DIR}/dup-gate.json: checks.loose: duplicate key"
  ARGS validate --profile h200x2 --backend replay:data/measurements/paper-h200x2-2026-11-22.json --ranks 2
       --gate ${CMAKE_CURRENT_BINARY_DIR}/dup-gate.json --gate-check loose)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/dup-validate.json [=[{"summary": {"scenarios": 1}, "scenarios": [],
  "summary": {"scenarios": 2}}
]=])
c3_cli_test(json_duplicate_key_report RC 2
  STDERR_CONTAINS "c3advisor: error: ${CMAKE_CURRENT_BINARY_DIR}/dup-validate.json: summary: duplicate key"
  ARGS report --in ${CMAKE_CURRENT_BINARY_DIR}/dup-validate.json --out ${CMAKE_CURRENT_BINARY_DIR}/report-dup)


# measure: bad input and a small real run on the simulator
c3_cli_test(measure_unknown_scenario RC 2 STDERR_CONTAINS "--only: no scenario named 'nope'"
  ARGS measure --backend sim --only nope --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_unknown_backend RC 2 STDERR_CONTAINS "unknown"
  ARGS measure --backend frob --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_gemm_partitions_needs_gemms_only RC 2 STDERR_CONTAINS "--gemm-partitions needs --gemms-only or --isolated-only"
  ARGS measure --backend sim --gemm-partitions --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_gemm_partitions RC 0 STDOUT_CONTAINS "wrote ${CMAKE_CURRENT_BINARY_DIR}/measure-parts.json: 3 measurements of 2 scenarios (0 failed)"
  ARGS measure --overwrite --backend sim --only cb1_896M --gemms-only --gemm-partitions --rp 16,32 --dma-rp 16
  --out ${CMAKE_CURRENT_BINARY_DIR}/measure-parts.json)
# Collectives over more ranks than the backend's GPUs: refused before measuring (exit 2, no
# file); GEMMs alone still run.
c3_cli_test(measure_ranks_beyond_gpus RC 2 STDERR_CONTAINS "cb1_896M: ranks 9 exceed the 8 GPUs of backend 'sim'"
  ARGS measure --backend sim --profile h200_sxm --only cb1_896M --ranks 9 --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_gemms_only_any_ranks STDOUT_CONTAINS "1 measurements of 2 scenarios (0 failed)"
  ARGS measure --overwrite --backend sim --profile h200_sxm --only cb1_896M --ranks 9 --gemms-only
       --out ${CMAKE_CURRENT_BINARY_DIR}/measure-gemms-9.json)
# Every measurement failed (fp8 GEMMs on a profile without an fp8 peak): exit 1, the file kept.
file(READ ${PROJECT_SOURCE_DIR}/data/profiles/h200_sxm.yaml C3_NO_FP8)
string(REGEX REPLACE "\n  fp8: [^\n]*" "" C3_NO_FP8 "${C3_NO_FP8}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/no-fp8.yaml "${C3_NO_FP8}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/fp8-pair.yaml "schema_version: 1
name: fp8-pair
gemms:
  g: {m: 1024, n: 1024, k: 1024, dtype: fp8}
pairs:
  - {name: g_1M, gemm: g, size: 1MiB, ranks: 2, collectives: [all_gather]}
")
c3_cli_test(measure_every_one_failed RC 1
  STDERR_CONTAINS "every one of the 1 measurements failed (their errors are in ${CMAKE_CURRENT_BINARY_DIR}/measure-failed.json)"
  ARGS measure --overwrite --backend sim --profile ${CMAKE_CURRENT_BINARY_DIR}/no-fp8.yaml --gemms-only
       --scenarios ${CMAKE_CURRENT_BINARY_DIR}/fp8-pair.yaml --out ${CMAKE_CURRENT_BINARY_DIR}/measure-failed.json)
c3_cli_test(measure_collective_partitions_needs_isolated_only RC 2 STDERR_CONTAINS "--collective-partitions requires --isolated-only"
  ARGS measure --backend sim --collective-partitions --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_isolated_only_excludes_gemms_only RC 2 STDERR_CONTAINS "excludes --"
  ARGS measure --backend sim --isolated-only --gemms-only --out ${CMAKE_CURRENT_BINARY_DIR}/measure-bad.json)
c3_cli_test(measure_isolated_partitions RC 0 STDOUT_CONTAINS "measure-iso.json: 11 measurements of 2 scenarios (0 failed)"
  ARGS measure --overwrite --backend sim --only cb1_896M --isolated-only --gemm-partitions --collective-partitions --rp 16,32 --dma-rp 16
  --out ${CMAKE_CURRENT_BINARY_DIR}/measure-iso.json)
c3_cli_test(measure_sim RC 0 STDOUT_CONTAINS "measurements of 2 scenarios (0 failed)"
  ARGS measure --overwrite --backend sim --only cb1_896M --out ${CMAKE_CURRENT_BINARY_DIR}/measure-sim.json)
# A file of earlier measurements is never replaced unasked: refused before anything is measured
# (--resume keeps it, --overwrite replaces it; tests/unit/io: RawPeers keeps the file as it was).
set(C3_EARLIER_RUN ${CMAKE_CURRENT_BINARY_DIR}/earlier-run.json)
file(WRITE ${C3_EARLIER_RUN} "{\"schema_version\": 1}")
c3_cli_test(measure_keeps_an_earlier_file RC 2
  STDERR_CONTAINS "c3advisor: error: --out ${C3_EARLIER_RUN} already holds 21 bytes: --resume keeps what it holds and measures the rest, --overwrite replaces it"
  STDOUT_LACKS "wrote" STDERR_LACKS "[1/"
  ARGS measure --backend sim --only cb1_896M --out ${C3_EARLIER_RUN})
c3_cli_test(measure_overwrite_excludes_resume RC 2 STDERR_CONTAINS "--resume excludes --overwrite"
  ARGS measure --backend sim --only cb1_896M --out ${C3_EARLIER_RUN} --resume --overwrite)
c3_cli_test(validate_keeps_an_earlier_file RC 2 STDERR_CONTAINS "--out ${C3_EARLIER_RUN} already holds 21 bytes" STDERR_LACKS "[1/"
  ARGS validate --backend sim --only cb1_896M --out ${C3_EARLIER_RUN})
c3_cli_test(calibrate_keeps_an_earlier_raw_file RC 2 STDERR_CONTAINS "--raw ${C3_EARLIER_RUN} already holds 21 bytes" STDERR_LACKS "[1/"
  ARGS calibrate --backend sim --gpus 2 --quick --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${C3_EARLIER_RUN})
c3_cli_test(bench_collective_keeps_an_earlier_file RC 2
  STDERR_CONTAINS "--out ${C3_EARLIER_RUN} already holds 21 bytes: --resume keeps what it holds and measures the rest, --overwrite replaces it"
  STDERR_LACKS "[1/"
  ARGS bench-collective --backend sim --ranks 2 --sizes 1MiB --out ${C3_EARLIER_RUN})
# calibrate's default raw file (OUT with .raw.json) is checked the same, and named as the default
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/default-raw.raw.json "{\"schema_version\": 1}")
c3_cli_test(calibrate_keeps_an_earlier_default_raw_file RC 2
  STDERR_CONTAINS "the default --raw ${CMAKE_CURRENT_BINARY_DIR}/default-raw.raw.json already holds 21 bytes"
  ARGS calibrate --backend sim --gpus 2 --quick --out ${CMAKE_CURRENT_BINARY_DIR}/default-raw.yaml)
# --resume of an empty file (mktemp's) measures everything, as of a missing one
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/resume-empty.json "")
c3_cli_test(measure_resume_an_empty_file STDOUT_CONTAINS "measurements of 2 scenarios (0 failed)"
  ARGS measure --backend sim --only cb1_896M --runs 1 --warmup 0 --out ${CMAKE_CURRENT_BINARY_DIR}/resume-empty.json --resume)
c3_cli_test(validate_overwrite_needs_out RC 2 STDERR_CONTAINS "--overwrite needs --out FILE (the file to replace)"
  ARGS validate --backend sim --only cb1_896M --overwrite)
c3_cli_test(bench_collective_overwrite_needs_out RC 2 STDERR_CONTAINS "bench-collective: --overwrite needs --out"
  ARGS bench-collective --backend sim --ranks 2 --sizes 1MiB --overwrite)

# ---- validate and report (docs/accuracy.md) ----
# A scenarios file with two pairs measured in the paper replay and one that is not.
set(C3_PARTIAL_SCENARIOS ${CMAKE_CURRENT_BINARY_DIR}/validate-partial.yaml)
file(WRITE ${C3_PARTIAL_SCENARIOS} "schema_version: 1
name: partial
defaults: {dtype: bf16, ranks: 2}
gemms:
  cb1: {m: 8192, n: 8192, k: 8192, gemm_class: compute_bound}
pairs:
  - {name: cb1_896M, gemm: cb1, size: 896MiB, collectives: [all_gather, all_to_all]}
  - {name: cb1_unmeasured, gemm: cb1, size: 100MiB, collectives: [all_gather]}
")
# A gate no model can pass, and one with an unknown metric.
set(C3_STRICT_GATE ${CMAKE_CURRENT_BINARY_DIR}/strict-gate.json)
file(WRITE ${C3_STRICT_GATE} [=[{"schema_version": 1, "checks": {"strict": {"thresholds": [
  {"metric": "decision_accuracy", "at_least": 1.01},
  {"metric": "prediction_error_median", "at_most": 0}]},
 "bad": {"thresholds": [{"metric": "speed", "at_least": 1}]}}}
]=])
c3_cli_test(validate_text STDOUT_CONTAINS "decision accuracy"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2)
c3_cli_test(validate_paper_figures STDOUT_CONTAINS "24/30, worst loss 1.5%  25/30 (83.3%), worst loss 49.3%"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2)
c3_cli_test(validate_no_paper_figures STDOUT_LACKS "the ConCCL paper's published figures"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend replay:data/measurements/heldout-h200x2-2026-11-22.json
       --scenarios data/scenarios/heldout.yaml --ranks 2)
# --gemm-tile: the GEMM's own kernel (264 CTAs of 192x192: 2 waves on 132 SMs, 3 on 124).
c3_cli_test(advise_gemm_tile STDOUT_CONTAINS "rp:8       collective_first  cu                8       124  367.021 us"
  ARGS advise --profile data/profiles/h100x2.yaml --gemm 2048x4608x6144 --collective all_gather:24MiB --ranks 2
       --gemm-tile 192x192)
c3_cli_test(advise_bad_gemm_tile RC 2 STDERR_CONTAINS "c3advisor: error: --gemm-tile '192x0:2': expected TILE_MxTILE_N"
  ARGS advise --profile h100x2 --gemm 2048x4608x6144 --collective all_gather:24MiB --gemm-tile 192x0:2)
# A replay file's recorded kernels (cuBLASLt's choice per shape) are the model's by default.
c3_cli_test(validate_recorded_kernels STDOUT_CONTAINS "gemm kernels: recorded: 127 shapes from the replay file"
  ARGS validate --profile data/profiles/h100x2.yaml --backend replay:data/measurements/generated-s12301-n128-h100x2-2026-11-25.json
       --scenarios data/scenarios/generated-s12301-n128.yaml --ranks 2)
c3_cli_test(validate_profile_kernels STDOUT_CONTAINS "gemm kernels: the profile's (nearest measured shape)"
  ARGS validate --profile data/profiles/h100x2.yaml --backend replay:data/measurements/generated-s12301-n128-h100x2-2026-11-25.json
       --scenarios data/scenarios/generated-s12301-n128.yaml --ranks 2 --gemm-kernels profile)
# GEMM times per shape (docs/model.md §1.2): the profile's table, the file's own times, a time given
c3_cli_test(validate_profile_gemm_times STDOUT_CONTAINS "gemm times: the profile's measured time (gemm_times, "
  ARGS validate --profile data/profiles/h200x2.yaml --backend replay:data/measurements/paper-h200x2-2026-11-22.json --ranks 2)
c3_cli_test(validate_recorded_gemm_times STDOUT_CONTAINS "gemm times: recorded: each pair's GEMM at its own time alone in the replay file (128 pairs"
  ARGS validate --profile data/profiles/h100x2.yaml --backend replay:data/measurements/generated-s12301-n128-h100x2-2026-11-25.json
       --scenarios data/scenarios/generated-s12301-n128.yaml --ranks 2 --gemm-times recorded)
c3_cli_test(advise_gemm_time_given STDOUT_CONTAINS "4096x4096x4096:bf16, compute_bound, 150.000 us (measured: given with the pair)"
  ARGS advise --profile h200x2 --gemm 4096x4096x4096 --collective all_gather:64MiB --gemm-time-us 150)
c3_cli_test(advise_gemm_time_dependent_refused RC 2 STDERR_CONTAINS "--gemm-time-us: a dependent pair's schedules price the GEMM's pieces"
  ARGS advise --profile h200x2 --gemm 4096x4096x4096 --collective all_gather --dependency collective_feeds_gemm --gemm-time-us 150)
c3_cli_test(validate_bad_kernels RC 2 STDERR_CONTAINS "--gemm-kernels"
  ARGS validate --profile h100x2 --backend ${C3_PAPER_REPLAY} --gemm-kernels nearest)
c3_cli_test(validate_only STDOUT_CONTAINS "2 scenarios: profile h200x2"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2 --only cb1_896M)
c3_cli_test(validate_sim STDOUT_CONTAINS "2 scenarios: profile mi300x"
  ARGS validate --backend sim --only cb1_896M --rp 32,64 --dma-rp 8 --runs 2 --warmup 0)
# Live: measured as `measure` does (progress on stderr, the raw file kept with --out), then
# scored as a replay of that file (tests/unit/evaluate: MeasureLive).
c3_cli_test(validate_sim_out STDOUT_CONTAINS "2 scenarios: profile mi300x"
  STDERR_CONTAINS "[20/20] concurrent 8192x8192x8192:bf16 + all_to_all 896MiB dma_rp:8"
  ARGS validate --overwrite --backend sim --only cb1_896M --rp 32,64 --dma-rp 8 --runs 2 --warmup 0
       --out ${CMAKE_CURRENT_BINARY_DIR}/validate-live.json)
c3_cli_test(validate_sim_temporary STDERR_CONTAINS "(temporary: --out FILE keeps them)"
  ARGS validate --backend sim --only cb1_896M --rp 32 --dma-rp 8 --runs 1 --warmup 0)
c3_cli_test(validate_replay_without_file_cv RC 2 STDERR_CONTAINS "replay needs a measurements file"
  ARGS validate --backend replay --cv 3)
c3_cli_test(validate_replay_no_out RC 2 STDERR_CONTAINS "--out, --resume, --overwrite and --dma-variant are for a live backend"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --out ${CMAKE_CURRENT_BINARY_DIR}/x.json)
c3_cli_test(validate_resume_needs_out RC 2 STDERR_CONTAINS "--resume needs --out FILE"
  ARGS validate --backend sim --resume)
c3_cli_test(validate_sim_bad_variant RC 2 STDERR_CONTAINS "backend 'sim' has no dma variant 'bogus'"
  ARGS validate --backend sim --only cb1_896M --dma-variant bogus --out ${CMAKE_CURRENT_BINARY_DIR}/validate-bogus.json)
c3_cli_test(validate_skip_missing STDOUT_CONTAINS "cb1_unmeasured (all_gather): no isolated collective measurement"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY}
       --scenarios ${C3_PARTIAL_SCENARIOS} --skip-missing)
c3_cli_test(validate_gate_passes STDOUT_CONTAINS "check 'paper-h200x2': every threshold met"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate data/accuracy-gate.json --gate-check paper-h200x2)
c3_cli_test(validate_help STDOUT_CONTAINS "Examples:" ARGS validate --help)
c3_cli_test(report_help STDOUT_CONTAINS "Examples:" ARGS report --help)
c3_cli_test(report_svg
  STDOUT_CONTAINS "fraction_of_ideal_by_collective.svg: Fraction of ideal speedup by collective (series: base, sp, rp(best), dma, dma_rp(best), advisor, oracle)"
  ARGS report --in tests/cli/golden/validate_h200x2_paper.json --out ${CMAKE_CURRENT_BINARY_DIR}/report
       --raw data/measurements/calibration-h200x2-2026-11-21.json)
# bad input: exit 2, one line naming the problem
c3_cli_test(validate_missing_file RC 2 STDERR_CONTAINS "c3advisor: error: no/such.json: cannot read"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend replay:no/such.json --ranks 2)
c3_cli_test(validate_missing_scenarios RC 2
  STDERR_CONTAINS "lacks measurements for 30 of 30 scenarios (the file has concurrent measurements at ranks 2 only: try --ranks 2): mb1_896M (all_gather): no isolated collective measurement"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY})
c3_cli_test(validate_missing_one RC 2
  STDERR_CONTAINS "lacks measurements for 1 of 3 scenarios: cb1_unmeasured (all_gather): "
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --scenarios ${C3_PARTIAL_SCENARIOS})
# An unknown live backend is refused before a temporary raw file is made (none left in /tmp).
c3_cli_test(validate_unknown_backend RC 2 STDERR_CONTAINS "unknown backend 'frob'"
  STDERR_LACKS "raw measurements"
  ARGS validate --backend frob --ranks 2)
c3_cli_test(validate_replay_without_file RC 2 STDERR_CONTAINS "replay needs a measurements file"
  ARGS validate --backend replay --ranks 2)
# replay:A+B+C: the median over files of the same pairs, one process each (docs/cli.md). The
# fixtures are cb1_896M of the 2026-11-22 paper file with the all_gather pair's dma, rp:32 and
# sp times changed: each file alone has another oracle (dma, rp:32, sp), the median dma_rp:8.
set(C3_REPLAY_MEDIAN replay:${C3_CLI_FIXTURES}/replay_median_p1.json+${C3_CLI_FIXTURES}/replay_median_p2.json+${C3_CLI_FIXTURES}/replay_median_p3.json)
c3_cli_test(validate_replay_median STDOUT_CONTAINS "c_long cb bw    1.83x  dma_rp:8  dma   22.2%  NO"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_REPLAY_MEDIAN} --ranks 2 --only cb1_896M)
c3_cli_test(validate_replay_median_says_so
  STDOUT_CONTAINS "replays the median over 3 files: ${C3_CLI_FIXTURES}/replay_median_p1.json, ${C3_CLI_FIXTURES}/replay_median_p2.json, "
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_REPLAY_MEDIAN} --ranks 2 --only cb1_896M)
c3_cli_test(validate_replay_one_file_no_median STDOUT_LACKS "replays the median"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend replay:${C3_CLI_FIXTURES}/replay_median_p1.json --ranks 2
       --only cb1_896M)
c3_cli_test(validate_replay_empty_part RC 2
  STDERR_CONTAINS "replay:${C3_CLI_FIXTURES}/replay_median_p1.json+: an empty file name"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend replay:${C3_CLI_FIXTURES}/replay_median_p1.json+ --ranks 2)
c3_cli_test(validate_rp_with_replay RC 2 STDERR_CONTAINS "--rp and --dma-rp choose what a live backend measures"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2 --rp 8)
c3_cli_test(validate_unknown_scenario RC 2 STDERR_CONTAINS "--only: no scenario named 'nope'"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2 --only nope)
c3_cli_test(validate_missing_backend RC 2 STDERR_CONTAINS "--backend is required" ARGS validate)
c3_cli_test(validate_gate_unknown_check RC 2 STDERR_CONTAINS "checks: no check named 'nope'"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate data/accuracy-gate.json --gate-check nope)
c3_cli_test(validate_gate_bad_metric RC 2 STDERR_CONTAINS "checks.bad.thresholds[0].metric: unknown accuracy metric 'speed'"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate ${C3_STRICT_GATE} --gate-check bad)
# a gate the data does not meet: exit 1, each failed threshold named
c3_cli_test(validate_gate_fails RC 1
  STDERR_CONTAINS "check 'strict' failed: decision_accuracy "
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate ${C3_STRICT_GATE} --gate-check strict)
# --update-gate: a check the file has is rewritten from the run (the file is written at
# configure time with the check, so a second ctest run finds it again); a file that is not a
# gate file is an error naming it, and nothing is written.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/gate-update.json [=[{"schema_version": 1, "checks": {
  "paper": {"thresholds": [{"metric": "decision_accuracy", "at_least": 0, "tolerance": 0.05}]}}}
]=])
c3_cli_test(validate_update_gate_rewrites STDOUT_CONTAINS "check 'paper' rewritten from this run"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate ${CMAKE_CURRENT_BINARY_DIR}/gate-update.json --gate-check paper --update-gate)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/gate-not-json.json "not a gate file\n")
c3_cli_test(validate_update_gate_bad_file RC 2 STDERR_CONTAINS "gate-not-json.json: not valid JSON"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate ${CMAKE_CURRENT_BINARY_DIR}/gate-not-json.json --gate-check paper --update-gate)
c3_cli_test(report_missing_in RC 2 STDERR_CONTAINS "c3advisor: error: no/such.json: cannot read"
  ARGS report --in no/such.json --out ${CMAKE_CURRENT_BINARY_DIR}/report-bad)
c3_cli_test(report_not_validate RC 2
  STDERR_CONTAINS "c3advisor: error: tests/cli/golden/profiles.json: summary: missing"
  ARGS report --in tests/cli/golden/profiles.json --out ${CMAKE_CURRENT_BINARY_DIR}/report-bad)
# report --in checks the document's schema_version, as every versioned JSON file read.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/validate-unversioned.json [=[{"summary": {"scenarios": 0}, "scenarios": []}
]=])
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/validate-v2.json [=[{"schema_version": 2, "summary": {"scenarios": 0}, "scenarios": []}
]=])
c3_cli_test(report_in_unversioned RC 2
  STDERR_CONTAINS "validate-unversioned.json: schema_version: missing"
  ARGS report --in ${CMAKE_CURRENT_BINARY_DIR}/validate-unversioned.json --out ${CMAKE_CURRENT_BINARY_DIR}/report-bad)
c3_cli_test(report_in_other_version RC 2
  STDERR_CONTAINS "validate-v2.json: schema_version: unsupported (this build reads 1)"
  ARGS report --in ${CMAKE_CURRENT_BINARY_DIR}/validate-v2.json --out ${CMAKE_CURRENT_BINARY_DIR}/report-bad)
# an output directory that cannot be made: exit 1, like any output that cannot be written
c3_cli_test(report_unwritable_out RC 1
  STDERR_CONTAINS "c3advisor: error: --out tests/cli/cases.cmake/charts: cannot create the directory"
  ARGS report --in tests/cli/golden/validate_h200x2_paper.json --out tests/cli/cases.cmake/charts)
c3_cli_test(report_bad_field_type RC 2
  STDERR_CONTAINS "c3advisor: error: tests/cli/fixtures/bad_validate_strategies.json: not a `validate --json` document"
  ARGS report --in tests/cli/fixtures/bad_validate_strategies.json --out ${CMAKE_CURRENT_BINARY_DIR}/report-bad)

# The SVG files `report` writes are well-formed (every <svg>, <g>, <text>, <title>
# closed) and hold the expected series: a script generated here, run by ctest.
set(C3_SVG_CHECK ${CMAKE_CURRENT_BINARY_DIR}/check_report_svg.cmake)
file(WRITE ${C3_SVG_CHECK} [=[
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${EXE} report --in ${IN} --out ${OUT} --raw ${RAW}
  WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "report failed (${rc}): ${err}")
endif()
set(expect
  "fraction_of_ideal_by_collective.svg|base,sp,rp(best),dma,dma_rp(best),advisor,oracle"
  "fraction_of_ideal_by_overlap.svg|base,sp,rp(best),dma,dma_rp(best),advisor,oracle"
  "predicted_vs_measured.svg|serial,base,sp,rp,dma,dma_rp"
  "gemm_slowdown_vs_sms_removed.svg|8192x8192x8192:bf16"
  "collective_time_vs_ctas.svg|all_gather 1GiB x2")
foreach(entry IN LISTS expect)
  string(REPLACE "|" ";" parts "${entry}")
  string(REPLACE "," ";" parts "${parts}")
  list(GET parts 0 name)
  list(REMOVE_AT parts 0)
  file(READ ${OUT}/${name} svg)
  if(NOT svg MATCHES "^<\\?xml[^>]*>\n<svg " OR NOT svg MATCHES "</svg>\n$")
    message(FATAL_ERROR "${name}: not one <svg> document")
  endif()
  foreach(tag IN ITEMS svg g text title)
    string(REGEX MATCHALL "<${tag}[ >]" opened "${svg}")
    string(REGEX MATCHALL "</${tag}>" closed "${svg}")
    list(LENGTH opened n_open)
    list(LENGTH closed n_closed)
    if(NOT n_open EQUAL n_closed)
      message(FATAL_ERROR "${name}: ${n_open} <${tag}> but ${n_closed} </${tag}>")
    endif()
  endforeach()
  foreach(series IN LISTS parts)
    string(FIND "${svg}" "<g class=\"series\" data-series=\"${series}\">" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: no series '${series}'")
    endif()
  endforeach()
  foreach(piece IN ITEMS "class=\"title\"" "class=\"x-label\"" "class=\"y-label\"" "class=\"legend-entry\"")
    string(FIND "${svg}" "${piece}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: lacks ${piece}")
    endif()
  endforeach()
endforeach()
]=])
add_test(NAME cli.report_svg_well_formed
  COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:c3advisor> -DWORKDIR=${PROJECT_SOURCE_DIR}
    -DIN=tests/cli/golden/validate_h200x2_paper.json -DOUT=${CMAKE_CURRENT_BINARY_DIR}/report-check
    -DRAW=data/measurements/calibration-h200x2-2026-11-21.json -P ${C3_SVG_CHECK})
set_tests_properties(cli.report_svg_well_formed PROPERTIES LABELS cli)

# The accuracy gate (scripts/accuracy-gate.sh, data/accuracy-gate.json): fails when the
# advice on the committed replay data gets worse than the thresholds. Deterministic.
add_test(NAME accuracy_gate COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/accuracy-gate.sh)
set_tests_properties(accuracy_gate PROPERTIES
  ENVIRONMENT "C3ADVISOR=$<TARGET_FILE:c3advisor>" LABELS accuracy)

# ---- bench-collective (docs/collectives.md) ----
set(C3_COLLECTIVES_FILE data/measurements/collectives-h200x2-2026-11-22.json)
# re-rendering committed 2x H200 measurements pins the file format and the table
c3_cli_test(bench_collective_from_json GOLDEN bench_collective_nccl_ce_probe_h200x2.json
  ARGS bench-collective --from data/measurements/nccl-ce-probe-h200x2-2026-11-22.json --json)
c3_cli_test(bench_collective_from_table STDOUT_CONTAINS "    4294967296   2147483648     5524.64    777.42    388.71       0"
  ARGS bench-collective --from ${C3_COLLECTIVES_FILE})
c3_cli_test(bench_collective_sim STDOUT_CONTAINS "# all_to_all  transport ce  ranks 2"
  ARGS bench-collective --overwrite --backend sim --profile h200x2 --ranks 2 --transports all -b 64KiB -e 1MiB -f 4
       --runs 2 --warmup 0 --out ${CMAKE_CURRENT_BINARY_DIR}/bench-sim.json
       --chart-dir ${CMAKE_CURRENT_BINARY_DIR}/bench-charts)
# --from re-renders a file: the measuring options would be ignored, so they are refused
c3_cli_test(bench_collective_from_with_out RC 2 STDERR_CONTAINS "--from excludes --out"
  ARGS bench-collective --from ${C3_COLLECTIVES_FILE} --out ${CMAKE_CURRENT_BINARY_DIR}/never.json)
# A transport the backend lacks is refused before measuring (each of its rows would fail).
c3_cli_test(bench_collective_unknown_variant RC 2
  STDERR_CONTAINS "c3advisor: error: --transports: backend 'sim' has no transport 'ce_pull_peer' (it has: nccl, ce, or all)"
  ARGS bench-collective --backend sim --ranks 2 --transports ce_pull_peer --sizes 1MiB --runs 1 --warmup 0)
c3_cli_test(bench_collective_bad_size RC 2 STDERR_CONTAINS "c3advisor: error: "
  ARGS bench-collective --backend sim --ranks 2 --sizes 0)
c3_cli_test(bench_collective_bad_range RC 2 STDERR_CONTAINS "maximum size 1024 is below the minimum 4096"
  ARGS bench-collective --backend sim --ranks 2 -b 4KiB -e 1KiB)
c3_cli_test(bench_collective_one_rank RC 2 STDERR_CONTAINS "--ranks"
  ARGS bench-collective --backend sim --ranks 1)
c3_cli_test(bench_collective_no_backend RC 2 STDERR_CONTAINS "--backend is required (or --from FILE)"
  ARGS bench-collective)
c3_cli_test(bench_collective_bad_file RC 2
  STDERR_CONTAINS "c3advisor: error: ${C3_CLI_FIXTURES}/bad_bench.json: records[0].size_bytes: must be > 0"
  ARGS bench-collective --from ${C3_CLI_FIXTURES}/bad_bench.json)
c3_cli_test(bench_collective_not_a_bench RC 2 STDERR_CONTAINS "type: missing"
  ARGS bench-collective --from data/measurements/paper-h200x2-2026-11-22.json)
c3_cli_test(bench_collective_help STDOUT_CONTAINS "Examples:" ARGS bench-collective --help)

# ---- calibrate --collectives (docs/calibration.md) ----
c3_cli_test(calibrate_collectives_missing RC 2
  STDERR_CONTAINS "c3advisor: error: no/such/collectives.json: cannot read"
  ARGS calibrate --backend sim --gpus 2 --quick --out ${CMAKE_CURRENT_BINARY_DIR}/calibrate-bad.yaml
       --collectives no/such/collectives.json)
c3_cli_test(calibrate_collectives_other_device RC 2
  STDERR_CONTAINS "was measured on 'NVIDIA H200 x2', not on the calibrated device 'simulated mi300x'"
  ARGS calibrate --backend sim --gpus 2 --quick --out ${CMAKE_CURRENT_BINARY_DIR}/calibrate-bad.yaml
       --collectives ${C3_COLLECTIVES_FILE})
c3_cli_test(calibrate_help STDOUT_CONTAINS "--collectives" ARGS calibrate --help)

# ---- calibrate --dma-variant NAME the backend cannot run: NAME's curves from --collectives ----
set(C3_CALIBRATION_REPLAY replay:data/measurements/calibration-h200x2-2026-11-22.json)
set(C3_TORCH_COLLECTIVES data/measurements/collectives-torch-h200x2-2026-11-23.json)
c3_cli_test(calibrate_shipped_dma
  STDERR_CONTAINS "note: collectives.all_to_all.dma: torch_symm_pull from ${C3_TORCH_COLLECTIVES}, 15 sizes: 337.877768 GB/s, latency 214.886714 us"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/calibrate-shipped.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/calibrate-shipped.raw.json
       --dma-variant torch_symm_pull --collectives ${C3_TORCH_COLLECTIVES})
# the profile calibrated that way (docs/calibration.md): the advice names torch_symm_pull where
# copy engines win, and NCCL where its floor (about 0.1 ms) makes them lose
c3_cli_test(advise_h200x2_torch_dma STDOUT_CONTAINS "\"implementation\": \"torch_symm_pull\""
  ARGS advise --profile h200x2-torch --gemm 8192x8192x8192 --collective all_gather:896MiB --ranks 2 --json)
c3_cli_test(advise_h200x2_torch_json GOLDEN advise_h200x2_torch_8192_all_gather_32MiB.json
  ARGS advise --profile h200x2-torch --gemm 8192x8192x8192 --collective all_gather:32MiB --ranks 2 --json)
c3_cli_test(calibrate_shipped_dma_without_file RC 2
  STDERR_CONTAINS "c3advisor: error: backend 'replay' has no dma variant 'torch_symm_pull' (it has: ce_push_batch_ovl); a copy-engine implementation that runs elsewhere is calibrated from its bench-collective measurements: --collectives FILE"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/never.raw.json
       --dma-variant torch_symm_pull)
c3_cli_test(calibrate_dma_pairs_without_shipped_variant RC 2
  STDERR_CONTAINS "c3advisor: error: --dma-pairs: pairs of a copy-engine implementation the backend cannot run need its --dma-variant NAME and its --collectives FILE (docs/calibration.md)"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/never.raw.json
       --dma-pairs data/measurements/torch-pairs-s1101-n87-h200x2-2026-11-26-run31.json)
# Every file a fit reads is checked before anything is measured: missing, or listed as test.
c3_cli_test(calibrate_missing_pairs_before_measuring RC 2
  STDERR_CONTAINS "c3advisor: error: no/such/pairs.json: cannot read: No such file or directory"
  STDERR_LACKS "[1/"
  ARGS calibrate --backend sim --gpus 2 --quick --runs 1 --warmup 0 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml
       --pairs no/such/pairs.json)
c3_cli_test(calibrate_test_hedge_set_before_measuring RC 2
  STDERR_CONTAINS "generated-s24401-n128-h200x2-2026-11-28.json is listed as test in data/splits.yaml: test files are only scored (validate), never used by calibrate --hedge-pairs"
  STDERR_LACKS "[1/"
  ARGS calibrate --backend sim --gpus 2 --quick --runs 1 --warmup 0 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml
       --hedge-pairs data/measurements/dependent-s2201-n48-h200x2-2026-11-23.json+data/measurements/generated-s24401-n128-h200x2-2026-11-28.json)
c3_cli_test(calibrate_shipped_dma_missing_kind RC 2
  STDERR_CONTAINS "c3advisor: error: ${C3_CLI_FIXTURES}/collectives_torch_no_all_to_all.json: records[].kind: no 'torch_symm_pull' record of all_to_all (its kinds in the file: all_gather)"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/never.raw.json
       --dma-variant torch_symm_pull --collectives ${C3_CLI_FIXTURES}/collectives_torch_no_all_to_all.json)
c3_cli_test(calibrate_shipped_dma_missing_transport RC 2
  STDERR_CONTAINS "c3advisor: error: ${C3_TORCH_COLLECTIVES}: records[].transport: no record of 'ce_pull_peer' (the file's transports: nccl, torch_symm_pull)"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/never.raw.json
       --dma-variant ce_pull_peer --collectives ${C3_TORCH_COLLECTIVES})

# calibrate --chained prices the --pairs chained in the fits (docs/calibration.md); without pairs it has nothing to price
c3_cli_test(calibrate_chained_needs_pairs RC 2 STDERR_CONTAINS "--chained requires --pairs"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --chained)
# calibrate --schedule-corrections fits one factor per group of decomposed schedules (docs/model.md 7.4)
c3_cli_test(calibrate_schedule_corrections_needs_pairs RC 2 STDERR_CONTAINS "--schedule-corrections requires --pairs"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --schedule-corrections)
c3_cli_test(calibrate_schedule_corrections
  STDERR_CONTAINS "note: schedule_corrections: 33 groups of at least 4 schedules, rms relative error 0.084697 -> 0.081323"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/calibrate-corrections.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/calibrate-corrections.raw.json
       --pairs data/measurements/dependent-s2201-n48-h200x2-2026-11-23.json --schedule-corrections)
# calibrate --strategy-correction-pairs fits one factor per group of an independent pair's
# strategies (docs/model.md 4.7), last, from its own train files; a test file is refused
c3_cli_test(calibrate_strategy_corrections
  STDERR_CONTAINS "note: strategy_corrections: 20 groups of at least 20 strategies predicted at 100.000000 us or more, from 1080 observations"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/strategy-corrections.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/strategy-corrections.raw.json
       --strategy-correction-pairs data/measurements/generated-s3301-n128-h200x2-2026-11-23.json)
# with --pairs as well, the independent kinds' errors are computed again with the corrections and
# the dependent pairs' hedge errors (chunked and chunked_partitioned) kept as the pairs gave them
c3_cli_test(calibrate_strategy_corrections_keep_the_hedge_errors
  STDERR_CONTAINS "with the strategy corrections; kept from the dependent pairs: chunked 0.025370, chunked_partitioned 0.043023"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/strategy-corrections-kept.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/strategy-corrections-kept.raw.json
       --pairs data/measurements/paper-h200x2-2026-11-22.json --pairs data/measurements/dependent-s2201-n48-h200x2-2026-11-23.json
       --strategy-correction-pairs data/measurements/generated-s3301-n128-h200x2-2026-11-23.json)
c3_cli_test(calibrate_strategy_corrections_min_needs_pairs RC 2
  STDERR_CONTAINS "--strategy-correction-min-us requires --strategy-correction-pairs"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --strategy-correction-min-us 50)
c3_cli_test(calibrate_strategy_corrections_negative_min RC 2 STDERR_CONTAINS "Value -1 not in range"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml
       --strategy-correction-pairs data/measurements/generated-s3301-n128-h200x2-2026-11-23.json --strategy-correction-min-us -1)
c3_cli_test(calibrate_strategy_corrections_refuses_test RC 2
  STDERR_CONTAINS "never used by calibrate --strategy-correction-pairs"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/never-sc.raw.json
       --strategy-correction-pairs data/measurements/generated-s19201-n128-h200x2-2026-11-27.json)
# calibrate --hedge-pairs fits a hedge error per family of dependent pairs (docs/model.md, "The
# recommendation"), last, from sets of train files: FILE, or the median over FILE1+FILE2; a test
# file is refused, also inside a set
c3_cli_test(calibrate_schedule_hedges
  STDERR_CONTAINS "note: schedule_hedges: 2 families of at least 20 pairs, from 2 sets (gemm_feeds_collective all_to_all 0.015000,"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/hedges.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/hedges.raw.json
       --pairs data/measurements/dependent-s2201-n48-h200x2-2026-11-23.json
       --hedge-pairs data/measurements/dependent-s21101-n40-h200x2-2026-11-28.json+data/measurements/dependent-s21101-n40-repeat1-h200x2-2026-11-28.json
       --hedge-pairs data/measurements/dependent-s21301-n40-h200x2-2026-11-28.json)
# ... chosen with the queued copy-engine steps' terms when they are given (set before the hedges,
# docs/model.md "The recommendation"): the same sets give the combine all-to-alls another error
c3_cli_test(calibrate_schedule_hedges_see_dma_steps
  STDERR_CONTAINS "note: schedule_hedges: 2 families of at least 20 pairs, from 2 sets (gemm_feeds_collective all_to_all 0.017500,"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/hedges-dma-steps.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/hedges-dma-steps.raw.json
       --pairs data/measurements/dependent-s2201-n48-h200x2-2026-11-23.json
       --hedge-pairs data/measurements/dependent-s21101-n40-h200x2-2026-11-28.json+data/measurements/dependent-s21101-n40-repeat1-h200x2-2026-11-28.json
       --hedge-pairs data/measurements/dependent-s21301-n40-h200x2-2026-11-28.json
       --dma-step-latency-us 3 --dma-step-min-us 50)
c3_cli_test(calibrate_schedule_hedges_refuse_test RC 2
  STDERR_CONTAINS "never used by calibrate --hedge-pairs"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/never-hedges.raw.json
       --hedge-pairs data/measurements/dependent-s21301-n40-h200x2-2026-11-28.json+data/measurements/dependent-s24201-n40-h200x2-2026-11-28.json)
# calibrate --dma-step-latency-us / --dma-step-min-us set the queued copy-engine steps' terms as
# given, after the fits and before the hedges (docs/model.md §7.3); the threshold needs the latency; a negative one is refused
c3_cli_test(calibrate_dma_steps
  STDERR_CONTAINS "note: chunk_dma_step_min_s: 50.000000 us (given)"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/dma-steps.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/dma-steps.raw.json
       --dma-step-latency-us 3 --dma-step-min-us 50)
c3_cli_test(calibrate_dma_step_min_needs_latency RC 2
  STDERR_CONTAINS "--dma-step-min-us requires --dma-step-latency-us"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml
       --dma-step-min-us 50)
c3_cli_test(calibrate_dma_step_nan RC 2
  STDERR_CONTAINS "--dma-step-latency-us must be a finite number >= 0"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml
       --raw ${CMAKE_CURRENT_BINARY_DIR}/never-dma-step.raw.json --dma-step-latency-us nan)
c3_cli_test(calibrate_dma_step_negative RC 2
  STDERR_CONTAINS "--dma-step-latency-us: Value -1 not in range"
  ARGS calibrate --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml
       --dma-step-latency-us -1)
# advise --json reports the hedge error beside the model's expected error: an MoE combine, whose
# family's hedge error (0.01) is below the model's (0.0252)
c3_cli_test(advise_dependent_family_hedge_error
  STDOUT_CONTAINS "\"hedge_error\": 0.01"
  ARGS advise --profile h200x2 --gemm 16384x4096x14336 --collective all_to_all:128MiB
       --dependency gemm_feeds_collective --ranks 2 --json)
# a dependent pair whose pick and runner-up are schedules in an SM partition: the expected error
# is the profile's chunked_partitioned (docs/model.md, "The recommendation"), not its chunked
c3_cli_test(advise_dependent_partitioned_expected_error
  STDOUT_CONTAINS "\"expected_error\": 0.04719420006569586"
  ARGS advise --profile h200x2 --gemm 8192x8192x2048 --collective reduce_scatter:128MiB
       --dependency gemm_feeds_collective --ranks 2 --json)
# the embedded queued-ahead profile, fitted that way from gated runs at 4 ranks, asked chained
c3_cli_test(advise_h200x4_queued_chained STDOUT_CONTAINS "h200x4-queued (4x NVIDIA H200)"
  ARGS advise --profile h200x4-queued --chained --gemm 4096x4096x4096 --collective all_gather:64MiB)
c3_cli_test(advise_h200x4_queued_unchained_note
  STDERR_CONTAINS "note: profile 'h200x4-queued' was fitted for queued-ahead work (its train pairs priced chained, docs/calibration.md): pass --chained to price independent pairs the same way"
  ARGS advise --profile h200x4-queued --gemm 4096x4096x4096 --collective all_gather:64MiB)

# last, so that it rewrites the golden file of every case above
add_custom_target(c3_update_goldens ${C3_UPDATE_GOLDEN_COMMANDS}
  DEPENDS c3advisor
  COMMENT "Rewriting tests/cli/golden/ from the current c3advisor"
  VERBATIM)

# ---- domain limits (docs/model.md §6): outside a profile is an error or a warning ----
c3_cli_test(ranks_beyond_the_node RC 2
  STDERR_CONTAINS "ranks: 1000000 exceed the 8 GPUs of the one node profile 'mi300x' covers"
  ARGS advise --profile mi300x --gemm 8192x8192x8192 --collective all_gather:1MiB --ranks 1000000)
c3_cli_test(half_a_byte RC 2 STDERR_CONTAINS "a size in bytes must be a whole number"
  ARGS advise --profile mi300x --gemm 8192x8192x8192 --collective all_gather:0.5)
c3_cli_test(plan_beyond_the_node RC 2 STDERR_CONTAINS "exceed the 2 GPUs of the one node profile 'h200x2'"
  ARGS plan --profile h200x2 --trace data/traces/llama70b_fsdp.yaml)
c3_cli_test(tiny_gemm_has_a_floor STDOUT_CONTAINS "GEMM         1x1x1:bf16, memory_bound, 15.000 us"
  ARGS advise --profile mi300x --gemm 1x1x1 --collective all_gather:1MiB)
c3_cli_test(extrapolation_warns STDOUT_CONTAINS "warning      all_gather 16GiB on cu is outside the measured curve"
  ARGS advise --profile h200x2 --gemm 8192x8192x8192 --collective all_gather:16GiB --ranks 2)
c3_cli_test(extrapolation_warns_json STDOUT_CONTAINS "is outside the measured curve"
  ARGS advise --profile h200x2 --gemm 8192x8192x8192 --collective all_gather:16GiB --ranks 2 --json)

# ---- issue 11: generated scenarios, the train/test manifest, baselines, cross-validation ----
set(C3_SPLITS_PAPER_TEST tests/cli/fixtures/splits_paper_test.yaml)
c3_cli_test(scenarios_generate STDOUT_CONTAINS "6 pairs from 3 models"
  ARGS scenarios generate --seed 7 --count 6 --catalog tests/unit/fixtures/catalog_small.yaml
       --out ${CMAKE_CURRENT_BINARY_DIR}/generated-s7.yaml)
c3_cli_test(scenarios_generate_repo_catalog STDOUT_CONTAINS "40 pairs from 18 models"
  ARGS scenarios generate --seed 1 --count 40 --out ${CMAKE_CURRENT_BINARY_DIR}/generated-s1.yaml)
c3_cli_test(scenarios_generate_bad_catalog RC 2 STDERR_CONTAINS "catalog_bad.yaml:"
  ARGS scenarios generate --seed 1 --count 4 --catalog tests/cli/fixtures/catalog_bad.yaml
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
c3_cli_test(scenarios_generate_needs_seed RC 2 STDERR_CONTAINS "--seed is required"
  ARGS scenarios generate --count 4 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
c3_cli_test(scenarios_needs_subcommand RC 2 STDERR_CONTAINS "subcommand" ARGS scenarios)
# A test set of pairs no train file measured (docs/scenarios.md, "Excluding pairs").
c3_cli_test(scenarios_generate_exclude
  STDOUT_CONTAINS "excluded: the 6 pairs of 1 scenario sets (--exclude tests/unit/fixtures/generated_small_s7_n6.yaml)"
  ARGS scenarios generate --seed 7 --count 6 --catalog tests/unit/fixtures/catalog_small.yaml
       --exclude tests/unit/fixtures/generated_small_s7_n6.yaml --out ${CMAKE_CURRENT_BINARY_DIR}/generated-s7-novel.yaml)
c3_cli_test(scenarios_generate_exclude_split STDOUT_CONTAINS "scenario sets (--exclude-split train)"
  ARGS scenarios generate --seed 7 --count 6 --exclude-split train --out ${CMAKE_CURRENT_BINARY_DIR}/generated-s7-train-novel.yaml)
# Both splits: every measured set, one listed for both splits counted once (the repeated option
# and the comma list alike, each split named once in the order given).
c3_cli_test(scenarios_generate_exclude_both_splits STDOUT_CONTAINS "scenario sets (--exclude-split train,test)"
  ARGS scenarios generate --seed 7 --count 6 --exclude-split train,test --out ${CMAKE_CURRENT_BINARY_DIR}/generated-s7-all-novel.yaml)
c3_cli_test(scenarios_overlap_both_splits
  STDOUT_CONTAINS "6 of 6 pairs are among the 36 pairs of 2 scenario sets (--exclude-split train,test --splits tests/cli/fixtures/splits_both.yaml)"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml --splits tests/cli/fixtures/splits_both.yaml
       --exclude-split train,test)
c3_cli_test(scenarios_overlap_split_repeated
  STDOUT_CONTAINS "among the 36 pairs of 2 scenario sets (--exclude-split test,train --splits"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml --splits tests/cli/fixtures/splits_both.yaml
       --exclude-split test --exclude-split train --exclude-split test)
c3_cli_test(scenarios_overlap_train_split_only
  STDOUT_CONTAINS "among the 6 pairs of 1 scenario sets (--exclude-split train --splits"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml --splits tests/cli/fixtures/splits_both.yaml
       --exclude-split train)
c3_cli_test(scenarios_overlap_set_counted_once
  STDOUT_CONTAINS "among the 6 pairs of 1 scenario sets (--exclude-split train --splits tests/cli/fixtures/splits_both.yaml --exclude tests/unit/fixtures/generated_small_s7_n6.yaml)"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml --splits tests/cli/fixtures/splits_both.yaml
       --exclude-split train --exclude tests/unit/fixtures/generated_small_s7_n6.yaml)
c3_cli_test(scenarios_overlap_bad_split_in_list RC 2 STDERR_CONTAINS "--exclude-split: dev not in"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml --exclude-split train,dev)
c3_cli_test(scenarios_overlap_split_set_missing RC 2
  STDERR_CONTAINS "(listed for the test split by tests/cli/fixtures/splits_missing_set.yaml)"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml
       --splits tests/cli/fixtures/splits_missing_set.yaml --exclude-split train,test)
c3_cli_test(scenarios_generate_exclude_missing RC 2 STDERR_CONTAINS "/nonexistent/seen.yaml"
  ARGS scenarios generate --seed 7 --count 6 --exclude /nonexistent/seen.yaml --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
c3_cli_test(scenarios_overlap STDOUT_CONTAINS "6 of 6 pairs are among the 6 pairs of 1 scenario sets"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml
       --exclude tests/unit/fixtures/generated_small_s7_n6.yaml)
c3_cli_test(scenarios_overlap_json STDOUT_CONTAINS "\"against_sets\": 1"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml --exclude paper --json)
c3_cli_test(scenarios_overlap_needs_a_set RC 2 STDERR_CONTAINS "give --exclude FILE or --exclude-split SPLIT"
  ARGS scenarios overlap --scenarios tests/unit/fixtures/generated_small_s7_n6.yaml)
c3_cli_test(scenarios_generate_exclude_bad_split RC 2 STDERR_CONTAINS "--exclude-split: dev not in"
  ARGS scenarios generate --seed 7 --count 6 --exclude-split dev --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
# issue 12: dependent pairs. The committed files are what the generator writes (the same
# seed and options give the same bytes; the independent draws are unchanged by the option).
c3_cli_test(scenarios_generate_dependent STDOUT_CONTAINS "48 pairs from 18 models"
  ARGS scenarios generate --seed 2201 --count 48 --ranks 2 --dependency any --min-serial-us 100
       --max-serial-us 30000 --out ${CMAKE_CURRENT_BINARY_DIR}/dependent-s2201-n48.yaml)
c3_cli_test(scenarios_generate_s1101 STDOUT_CONTAINS "160 pairs from 18 models"
  ARGS scenarios generate --seed 1101 --count 160 --out ${CMAKE_CURRENT_BINARY_DIR}/generated-s1101-n160.yaml)
foreach(generated IN ITEMS dependent-s2201-n48 generated-s1101-n160)
  add_test(NAME cli.scenarios_reproduce_${generated}
           COMMAND ${CMAKE_COMMAND} -E compare_files ${PROJECT_SOURCE_DIR}/data/scenarios/${generated}.yaml
                   ${CMAKE_CURRENT_BINARY_DIR}/${generated}.yaml)
  set_tests_properties(cli.scenarios_reproduce_${generated} PROPERTIES LABELS cli
                       FIXTURES_REQUIRED c3_generated_${generated})
endforeach()
set_tests_properties(cli.scenarios_generate_dependent PROPERTIES FIXTURES_SETUP c3_generated_dependent-s2201-n48)
set_tests_properties(cli.scenarios_generate_s1101 PROPERTIES FIXTURES_SETUP c3_generated_generated-s1101-n160)
c3_cli_test(scenarios_generate_dependent_one_direction STDOUT_CONTAINS "6 pairs from 3 models"
  ARGS scenarios generate --seed 3 --count 6 --catalog tests/unit/fixtures/catalog_small.yaml
       --dependency gemm_feeds_collective --out ${CMAKE_CURRENT_BINARY_DIR}/dependent-gfc.yaml)
c3_cli_test(scenarios_generate_bad_dependency RC 2 STDERR_CONTAINS "--dependency: feeds not in"
  ARGS scenarios generate --seed 3 --count 6 --dependency feeds --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
# An entry the profile cannot advise names the trace file and the entry.
c3_cli_test(plan_entry_beyond_profile RC 2
  STDERR_CONTAINS "c3advisor: error: data/traces/llama70b_fsdp.yaml: trace entry 'fwd_qkv__ag_next_wqkv': ranks: 8 exceed the 2 GPUs"
  ARGS plan --profile h200x2 --trace data/traces/llama70b_fsdp.yaml)
# A profile or scenarios path that is not there says why (not "unknown profile").
c3_cli_test(advise_missing_profile_file RC 2
  STDERR_CONTAINS "c3advisor: error: no/such/profile.yaml: cannot read: No such file or directory"
  ARGS advise --profile no/such/profile.yaml --gemm 8192x8192x8192 --collective all_gather:1GiB)
c3_cli_test(sweep_missing_scenarios_file RC 2
  STDERR_CONTAINS "c3advisor: error: missing.yaml: cannot read: No such file or directory"
  ARGS sweep --scenarios missing.yaml)
# A bad option value: one line, "c3advisor: error: --OPTION: ...", exit 2 (not CLI11's 300-digit range).
c3_cli_test(measure_zero_runs RC 2
  STDERR_CONTAINS "c3advisor: error: --runs: must be a number > 0, got '0' (see c3advisor --help, or c3advisor SUBCOMMAND --help)"
  STDERR_LACKS "Run with --help"
  ARGS measure --backend sim --runs 0 --out ${CMAKE_CURRENT_BINARY_DIR}/never.json)
# A leading zero is decimal, not octal: --runs 010 is 10 runs (CLI11 alone read 8)
c3_cli_test(bench_collective_leading_zero_is_decimal STDOUT_CONTAINS "--runs 10 --warmup 0"
  ARGS bench-collective --backend sim --profile h200x2 --ranks 2 --transports nccl --sizes 1MiB --runs 010 --warmup 00 --json)
# A seed CLI11 alone would wrap (-1) or clamp (2^64) to 2^64 - 1: refused, so that two seeds
# never give one file.
c3_cli_test(scenarios_generate_negative_seed RC 2 STDERR_CONTAINS "--seed: must be a whole number from 0 to 18446744073709551615 (2^64 - 1), got '-1'"
  ARGS scenarios generate --seed -1 --count 6 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
c3_cli_test(scenarios_generate_seed_past_64_bits RC 2 STDERR_CONTAINS "got '18446744073709551616'"
  ARGS scenarios generate --seed 18446744073709551616 --count 6 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
c3_cli_test(scenarios_generate_bad_serial_window RC 2 STDERR_CONTAINS "need 0 <= --min-serial-us <= --max-serial-us"
  ARGS scenarios generate --seed 3 --count 6 --dependency any --min-serial-us 500 --max-serial-us 100
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml)
c3_cli_test(sweep_dependent STDOUT_CONTAINS "48 scenarios on h200x2"
  ARGS sweep --profile h200x2 --scenarios data/scenarios/dependent-s2201-n48.yaml)
c3_cli_test(sweep_dependent_bad_size RC 2
  STDERR_CONTAINS "scenarios_dependent_bad.yaml:9: pairs[1].size: dependency collective_feeds_gemm"
  ARGS sweep --profile h200x2 --scenarios tests/cli/fixtures/scenarios_dependent_bad.yaml)
c3_cli_test(validate_says_split STDOUT_CONTAINS "split: train (data/splits.yaml)"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2)
c3_cli_test(validate_says_test_split STDOUT_CONTAINS "split: test (${C3_SPLITS_PAPER_TEST})"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2 --splits ${C3_SPLITS_PAPER_TEST})
c3_cli_test(validate_baselines STDOUT_CONTAINS "dma_else_sp"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2)
c3_cli_test(validate_cv STDOUT_CONTAINS "5-fold cross-validation"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2 --cv 5)
c3_cli_test(validate_cv_refuses_test RC 2 STDERR_CONTAINS "is listed as test in ${C3_SPLITS_PAPER_TEST}"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2 --cv 5
       --splits ${C3_SPLITS_PAPER_TEST})
c3_cli_test(calibrate_refuses_test_replay RC 2 STDERR_CONTAINS "is listed as test in ${C3_SPLITS_PAPER_TEST}"
  ARGS calibrate --backend ${C3_PAPER_REPLAY} --gpus 2 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml
       --splits ${C3_SPLITS_PAPER_TEST})
# replay:A+B: every file is checked; a median over a train and a test file is neither split.
c3_cli_test(validate_replay_mixed_splits RC 2
  STDERR_CONTAINS "replay files of different splits: data/measurements/heldout-h200x2-2026-11-22.json is train, data/measurements/paper-h200x2-2026-11-22.json is test"
  ARGS validate --profile ${C3_H200X2_PROFILE} --ranks 2 --splits ${C3_SPLITS_PAPER_TEST}
       --backend replay:data/measurements/heldout-h200x2-2026-11-22.json+data/measurements/paper-h200x2-2026-11-22.json)
c3_cli_test(calibrate_refuses_test_replay_among_several RC 2
  STDERR_CONTAINS "data/measurements/paper-h200x2-2026-11-22.json is listed as test in ${C3_SPLITS_PAPER_TEST}"
  ARGS calibrate --backend replay:data/measurements/heldout-h200x2-2026-11-22.json+data/measurements/paper-h200x2-2026-11-22.json
       --gpus 2 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --splits ${C3_SPLITS_PAPER_TEST})
c3_cli_test(calibrate_refuses_test_collectives RC 2 STDERR_CONTAINS "never used by calibrate --collectives"
  ARGS calibrate --backend sim --gpus 2 --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --quick
       --collectives data/measurements/collectives-h200x2-2026-11-22.json --splits ${C3_SPLITS_PAPER_TEST})
# a gate check bound to the test split fails on training data, and passes on test data
set(C3_SPLIT_GATE ${CMAKE_CURRENT_BINARY_DIR}/split-gate.json)
file(WRITE ${C3_SPLIT_GATE} [=[{"schema_version": 1, "checks": {"on-test": {"split": "test", "thresholds": [
  {"metric": "decision_accuracy", "at_least": 0.5}]}}}
]=])
c3_cli_test(validate_gate_split_mismatch RC 1 STDERR_CONTAINS "is bound to the test split, but the measurements scored are train"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate ${C3_SPLIT_GATE} --gate-check on-test)
c3_cli_test(validate_gate_split_test STDOUT_CONTAINS "check 'on-test': every threshold met"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate ${C3_SPLIT_GATE} --gate-check on-test --splits ${C3_SPLITS_PAPER_TEST})

# a check recorded on 48 scenarios fails on the paper's 30 (other measurements than its command's)
set(C3_COUNT_GATE ${CMAKE_CURRENT_BINARY_DIR}/count-gate.json)
file(WRITE ${C3_COUNT_GATE} [=[{"schema_version": 1, "checks": {"on-48": {"scenarios": 48, "thresholds": [
  {"metric": "decision_accuracy", "at_least": 0.5}]}}}
]=])
c3_cli_test(validate_gate_scenario_count RC 1
  STDERR_CONTAINS "check 'on-48' was recorded on 48 scenarios, these are 30 (not the measurements of its command)"
  ARGS validate --profile ${C3_H200X2_PROFILE} --backend ${C3_PAPER_REPLAY} --ranks 2
       --gate ${C3_COUNT_GATE} --gate-check on-48)

# Dependent pairs end to end on the simulator: serial and the decomposed schedules measured
# (validator/dependent_plan.hpp's schedule) and validated against the h200x2 profile.
c3_cli_test(validate_sim_dependent STDOUT_CONTAINS "chunked:4:dma"
  ARGS validate --profile h200x2 --backend sim --scenarios ${CMAKE_SOURCE_DIR}/data/scenarios/tp2-dependent.yaml
       --only ag_small,rs_llama3_8b_mlp_down --chunks 2,4 --runs 2 --warmup 0)
# a decomposed recommendation comes with the model's pipeline (docs/model.md §7.2); others without
c3_cli_test(advise_dependent_pipeline STDOUT_CONTAINS "pipeline     GEMM jobs end at 475.326 us, 928.968 us; steps at 225.013 us"
  ARGS advise --profile h200x2 --gemm 8192x5120x8192 --collective all_gather --dependency collective_feeds_gemm)
c3_cli_test(advise_dependent_pipeline_json STDOUT_CONTAINS "\"pipeline\": ["
  ARGS advise --profile h200x2 --gemm 8192x5120x8192 --collective all_gather --dependency collective_feeds_gemm --json)
c3_cli_test(advise_independent_no_pipeline STDOUT_LACKS "pipeline"
  ARGS advise --profile h200x2 --gemm 8192x5120x8192 --collective all_gather:256MiB --json)
c3_cli_test(advise_dependent_wrong_size RC 2 STDERR_CONTAINS "m x k"
  ARGS advise --profile h200x2 --gemm 8192x5120x8192 --collective all_gather:1GiB --dependency collective_feeds_gemm)
c3_cli_test(advise_dependent_bad_kind RC 2 STDERR_CONTAINS "all_gather or all_to_all"
  ARGS advise --profile h200x2 --gemm 8192x5120x8192 --collective reduce_scatter --dependency collective_feeds_gemm)
# a dependent pair keeps its own schedule: never priced as a chained pair (docs/model.md §4.6)
c3_cli_test(advise_dependent_chained RC 2
  STDERR_CONTAINS "c3advisor: error: --chained: a dependent pair is priced by its own schedule (docs/model.md §7), not as a chained pair (§4.6)"
  ARGS advise --profile h200x2 --gemm 8192x5120x8192 --collective all_gather --dependency collective_feeds_gemm --chained)

# ---- the hip backend, when built (C3_ENABLE_HIP; CI builds it on Debian's HIP without a GPU) ----
if(C3_ENABLE_HIP)
  c3_cli_test(hip_bad_option RC 2 STDERR_CONTAINS "hip backend: unknown option 'bogus'"
    ARGS measure --backend hip:2,bogus=1 --only cb1_896M --out ${CMAKE_CURRENT_BINARY_DIR}/hip-bad.json)
  c3_cli_test(hip_bad_fault RC 2 STDERR_CONTAINS "hip backend option fault: oom@N or timeout@N"
    ARGS validate --backend hip:2,fault=drop_piece@1 --only cb1_896M)
  c3_cli_test(hip_bad_trace RC 2 STDERR_CONTAINS "hip backend option trace: expected an integer >= 0, got '-1'"
    ARGS validate --backend hip:2,trace=-1 --only cb1_896M)
  c3_cli_test(hip_no_gate RC 2 STDERR_CONTAINS "hip backend: option 'gate' (gated runs) is the cuda backend's only"
    ARGS validate --backend hip:2,gate=1 --only cb1_896M)
  c3_cli_test(hip_no_device RC 1 STDERR_CONTAINS "no HIP device"
    ARGS validate --backend hip:2 --only cb1_896M)
endif()
# --batched-step-pairs: one file fitted for chunk_batch_reread alone, after the calibration
# (2x H200 calibration replay; the small gemm_feeds_collective pairs of seed 15701, run65).
c3_cli_test(calibrate_batched_step_pairs STDERR_CONTAINS "note: chunk_batch_reread: 0.000000 -> 0.2"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/batched.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/batched.raw.json
       --batched-step-pairs data/measurements/dependent-gfc-s15701-n32-r1-h200x2-2026-11-26.json)
c3_cli_test(calibrate_batched_step_pairs_nothing_to_fit RC 2
  STDERR_CONTAINS "no decomposed schedule whose batched step GEMM is memory-bound (nothing to fit)"
  ARGS calibrate --overwrite --backend ${C3_CALIBRATION_REPLAY} --gpus 2 --base-profile h200_sxm --dma-variant ce_push_batch_ovl
       --out ${CMAKE_CURRENT_BINARY_DIR}/never.yaml --raw ${CMAKE_CURRENT_BINARY_DIR}/never2.raw.json
       --batched-step-pairs data/measurements/dependent-s2201-n48-h200x2-2026-11-23.json)
