# --- architecture checks (tests/arch; issue 33): function length, circles between files, runtime/
# naming no extension. Each scans the sources (comments and literals stripped) in about a second
# against an allowlist of today's known cases that must stay true (it only shrinks).
# Included by tests/CMakeLists.txt.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(ARCH_DIR ${CMAKE_CURRENT_SOURCE_DIR}/arch)
  add_test(NAME arch_function_lengths COMMAND ${Python3_EXECUTABLE} ${ARCH_DIR}/check_function_lengths.py)
  add_test(NAME arch_include_cycles COMMAND ${Python3_EXECUTABLE} ${ARCH_DIR}/check_include_cycles.py)
  add_test(NAME arch_runtime_names COMMAND ${Python3_EXECUTABLE} ${ARCH_DIR}/check_runtime_names.py)
  add_test(NAME arch_scanner_selftest COMMAND ${Python3_EXECUTABLE} ${ARCH_DIR}/selftest.py)
  set_tests_properties(arch_function_lengths arch_include_cycles arch_runtime_names
    arch_scanner_selftest PROPERTIES TIMEOUT 60 LABELS arch)
endif()
