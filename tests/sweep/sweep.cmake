# --- ptxsim sweep (runtime/sweep, docs/sweep.md): a small grid end to end, with the local backend
# and through a real single-node Slurm (scripts/slurm_local.sh), checked against the stats files
# and in headless Chromium. Included by tests/CMakeLists.txt.
if(TARGET ptxsim_sweep AND NVCC_EXECUTABLE AND TARGET cudart_ptxsim)
  set(SWEEP_TEST_BIN ${CMAKE_CURRENT_BINARY_DIR}/sweep/bin)
  set(SWEEP_TEST_PROGRAMS)
  foreach(prog 01_vecadd 02_saxpy)
    add_custom_command(OUTPUT ${SWEEP_TEST_BIN}/${prog}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${SWEEP_TEST_BIN}
      COMMAND ${NVCC_EXECUTABLE} -cudart shared -arch=sm_75 ${CMAKE_CURRENT_SOURCE_DIR}/kernels/${prog}.cu -o ${SWEEP_TEST_BIN}/${prog}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/${prog}.cu ${CMAKE_CURRENT_SOURCE_DIR}/kernels/test_common.h
      COMMENT "nvcc tests/kernels/${prog}.cu (sweep tests)" VERBATIM)
    list(APPEND SWEEP_TEST_PROGRAMS ${SWEEP_TEST_BIN}/${prog})
  endforeach()
  add_custom_target(sweep_test_programs ALL DEPENDS ${SWEEP_TEST_PROGRAMS})
  find_program(SWEEP_CHROMIUM NAMES chromium chromium-browser google-chrome)
  if(NOT SWEEP_CHROMIUM)
    set(SWEEP_CHROMIUM chromium)
  endif()
  # the chiplet point (tests/sweep/chiplets.toml) runs samples/chiplets/chiplet_stencil (built
  # with the samples, target chiplet_stencil_bin) on 2 chiplets
  set(SWEEP_TEST_CHIPLETS ${PROJECT_BINARY_DIR}/samples/chiplets)
  set(SWEEP_TEST_ARGS $<TARGET_FILE:ptxsim> ${SWEEP_TEST_BIN} ${CMAKE_CURRENT_BINARY_DIR}/sweep/work ${SWEEP_CHROMIUM}
    ${SWEEP_TEST_CHIPLETS})
  add_test(NAME sweep_cli_errors COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_test.sh errors ${SWEEP_TEST_ARGS})
  add_test(NAME sweep_local COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_test.sh local ${SWEEP_TEST_ARGS})
  add_test(NAME sweep_slurm COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_test.sh slurm ${SWEEP_TEST_ARGS})
  set_tests_properties(sweep_local PROPERTIES FIXTURES_SETUP sweep_local_table TIMEOUT 900 SKIP_RETURN_CODE 77)
  # the Slurm sweep's table must equal the local one; the daemons are its own (started, stopped,
  # on a port of their own), so it runs next to other tests: half of its 25 s is spent waiting
  # for Slurm to schedule and report jobs (scripts/slurm_local.sh)
  set_tests_properties(sweep_slurm PROPERTIES FIXTURES_REQUIRED sweep_local_table TIMEOUT 900
    SKIP_RETURN_CODE 77)
  set_tests_properties(sweep_cli_errors PROPERTIES TIMEOUT 120)
endif()
if(TARGET ptxsim_sweep)
  add_executable(ptxsim_sweep_unit_tests ${CMAKE_CURRENT_SOURCE_DIR}/sweep/SweepUnitTest.cpp)
  ptxsim_test_code(ptxsim_sweep_unit_tests)
  target_link_libraries(ptxsim_sweep_unit_tests PRIVATE ptxsim_sweep GTest::gtest_main)
  target_compile_definitions(ptxsim_sweep_unit_tests PRIVATE PTXSIM_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  gtest_discover_tests(ptxsim_sweep_unit_tests DISCOVERY_TIMEOUT 60)
endif()
