# CLI tests of output files and of re-rendering them (after cases.cmake, whose
# c3_cli_test and C3_COLLECTIVES_FILE they use). Killed runs: tests/reliability.

# A file that cannot be written: exit 1, the file named (docs/cli.md, "Output files").
c3_cli_test(measure_unwritable_out RC 1
  STDERR_CONTAINS "c3advisor: error: cannot write no/such/dir/raw.json: No such file or directory"
  ARGS measure --backend sim --only cb1_896M --runs 1 --warmup 0 --out no/such/dir/raw.json)
# calibrate checks its profile path before it measures anything (it writes the profile last).
c3_cli_test(calibrate_unwritable_out RC 1
  STDERR_CONTAINS "c3advisor: error: cannot write no/such/dir/sim.yaml: No such file or directory"
  ARGS calibrate --backend sim --gpus 2 --quick --runs 1 --warmup 0 --out no/such/dir/sim.yaml)

# bench-collective --from FILE --kinds K --transports T shows only those records.
c3_cli_test(bench_collective_from_kinds STDOUT_CONTAINS "# all_gather  transport nccl  ranks 2"
  STDOUT_LACKS "all_to_all"
  ARGS bench-collective --from ${C3_COLLECTIVES_FILE} --transports nccl --kinds all_gather)
c3_cli_test(bench_collective_from_transports STDOUT_CONTAINS "# all_to_all  transport nccl  ranks 2"
  STDOUT_LACKS "transport ce_"
  ARGS bench-collective --from ${C3_COLLECTIVES_FILE} --transports nccl --kinds all_gather,all_to_all)
c3_cli_test(bench_collective_from_json_filtered STDOUT_CONTAINS "\"transport\": \"ce_push_peer\""
  STDOUT_LACKS "\"transport\": \"nccl\""
  ARGS bench-collective --from ${C3_COLLECTIVES_FILE} --transports ce_push_peer --kinds all_gather --json)
c3_cli_test(bench_collective_from_unknown_transport RC 2
  STDERR_CONTAINS "c3advisor: error: ${C3_COLLECTIVES_FILE}: no record of transport 'ce_nope' (the file has transports: nccl, "
  ARGS bench-collective --from ${C3_COLLECTIVES_FILE} --transports nccl,ce_nope)
