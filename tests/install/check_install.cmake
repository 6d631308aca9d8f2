# Install zcoll into a scratch prefix, then build and run a consumer project with
# find_package(zcoll), and check the pkg-config file. Run with cmake -P, passing
# BUILD_DIR (the zcoll build tree), SOURCE_DIR and WORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer"
                        -B "${WORK_DIR}/consumer" -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "building the consumer failed:\n${out}")
endif()
execute_process(COMMAND "${WORK_DIR}/consumer/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(rc)
  message(FATAL_ERROR "the consumer failed (${rc}): ${out}")
endif()
find_program(PKG_CONFIG pkg-config pkgconf)
if(PKG_CONFIG)
  file(GLOB pcdir "${prefix}/lib*/pkgconfig" "${prefix}/lib/*/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "${pcdir}")
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs zcoll RESULT_VARIABLE rc OUTPUT_VARIABLE pc)
  if(rc OR NOT pc MATCHES "-lzcoll")
    message(FATAL_ERROR "pkg-config zcoll failed: ${pc}")
  endif()
endif()
message(STATUS "install check ok: ${out}")
