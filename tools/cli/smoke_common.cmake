# smoke_common.cmake — helpers for the CLI smoke tests (included by smoke_*.cmake).
# Expects -DZCOLL=<zcoll executable> -DDATA=<raw f32 file> -DWORK=<scratch dir>.
foreach(_v ZCOLL DATA WORK)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "pass -D${_v}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# zcoll_ok(<args>...): run zcoll, fail the test unless it exits 0; stdout in ZCOLL_OUT.
function(zcoll_ok)
  string(JOIN " " cmd ${ARGN})
  execute_process(COMMAND "${ZCOLL}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "zcoll ${cmd}\n  exit ${rc}\n  stderr: ${err}")
  endif()
  set(ZCOLL_OUT "${out}" PARENT_SCOPE)
endfunction()

# zcoll_fails(<regex> <args>...): zcoll must exit non-zero with exactly one line
# on stderr that matches <regex>.
function(zcoll_fails regex)
  string(JOIN " " cmd ${ARGN})
  execute_process(COMMAND "${ZCOLL}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "zcoll ${cmd}\n  succeeded but must fail")
  endif()
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT lines EQUAL 1 OR NOT err MATCHES "^zcoll: error: ")
    message(FATAL_ERROR "zcoll ${cmd}\n  stderr is not one 'zcoll: error:' line:\n${err}")
  endif()
  if(NOT err MATCHES "${regex}")
    message(FATAL_ERROR "zcoll ${cmd}\n  stderr does not match '${regex}':\n${err}")
  endif()
  message(STATUS "fails as expected: zcoll ${cmd}\n    ${err}")
endfunction()
