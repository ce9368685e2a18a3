# The replay driver's own test: a target that traps must fail the run, and the driver must
# leave the input that trapped in <target>.crash. Run by ctest as fuzz_replay.selftest:
#   cmake -DBIN=<replay_selftest binary> -DCORPUS=<dir> -DWORK=<scratch dir> -P replay_selftest.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${BIN} ${CORPUS} 20000 WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "the trapping target passed the replay: ${out}")
endif()
if(NOT err MATCHES "replay_selftest_replay.crash")
  message(FATAL_ERROR "the driver did not name the crash file: ${err}")
endif()
file(READ ${WORK}/replay_selftest_replay.crash crash HEX)
if(NOT crash MATCHES "^7b7d..")
  message(FATAL_ERROR "the crash file does not hold a trapping input: ${crash}")
endif()
message(STATUS "replay driver caught the trap; input kept (${crash})")
