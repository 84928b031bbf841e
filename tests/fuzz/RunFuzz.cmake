# Runs the fuzzer for a bounded time (SECONDS) or number of inputs (RUNS) over a corpus seeded
# with SEEDS/*.ptx, SEEDS/*.fatbin, KERNEL_PTX/*.ptx and REGRESSIONS/*. A crash fails the test;
# its input is left in WORK/ (copy it to REGRESSIONS/ as a test).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
set(globs ${SEEDS}/*.ptx ${SEEDS}/*.fatbin ${REGRESSIONS}/*)
if(KERNEL_PTX)
  list(APPEND globs ${KERNEL_PTX}/*.ptx)
endif()
file(GLOB_RECURSE seeds ${globs})
set(n 0)
foreach(s IN LISTS seeds)
  file(SIZE ${s} sz)
  if(sz LESS 200000)
    math(EXPR n "${n} + 1")
    file(COPY_FILE ${s} ${WORK}/corpus/seed_${n})
  endif()
endforeach()
if(RUNS)
  set(bound -runs=${RUNS} -seed=1) # the same inputs every time
  message(STATUS "fuzz: ${n} seed files, ${RUNS} inputs")
else()
  set(bound -max_total_time=${SECONDS})
  message(STATUS "fuzz: ${n} seed files, ${SECONDS} s")
endif()
execute_process(
  COMMAND ${FUZZER} ${bound} -max_len=65536 -timeout=10 -rss_limit_mb=2048
          -artifact_prefix=${WORK}/ -print_final_stats=1 ${WORK}/corpus
  WORKING_DIRECTORY ${WORK}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer found a problem (exit ${rc}); the input is in ${WORK}")
endif()
