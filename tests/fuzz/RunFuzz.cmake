# Runs the fuzzer for a bounded time over a corpus seeded with the project's PTX files. A crash
# fails the test; its input is left in WORK/ (copy it to tests/fuzz/regressions/ as a test).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
file(GLOB_RECURSE seeds ${SEEDS}/*.ptx ${KERNEL_PTX}/*.ptx ${REGRESSIONS}/*)
set(n 0)
foreach(s IN LISTS seeds)
  file(SIZE ${s} sz)
  if(sz LESS 200000)
    math(EXPR n "${n} + 1")
    file(COPY_FILE ${s} ${WORK}/corpus/seed_${n})
  endif()
endforeach()
message(STATUS "fuzz: ${n} seed files, ${SECONDS} s")
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -max_len=65536 -timeout=10 -rss_limit_mb=2048
          -artifact_prefix=${WORK}/ -print_final_stats=1 ${WORK}/corpus
  WORKING_DIRECTORY ${WORK}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer found a problem (exit ${rc}); the input is in ${WORK}")
endif()
