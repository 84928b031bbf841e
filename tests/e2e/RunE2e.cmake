# Runs one e2e program (PROGRAM, with the environment ctest gives it) and passes when it exits
# with 0 and prints "PASS <name>". Its output is echoed so `ctest --output-on-failure` shows it.
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT ${TIMEOUT})
message("${out}")
if(err)
  message("stderr:\n${err}")
endif()
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} exited with '${rc}'")
endif()
if(NOT out MATCHES "(^|\n)PASS ")
  message(FATAL_ERROR "${PROGRAM} did not print PASS")
endif()
