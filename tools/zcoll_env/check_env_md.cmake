# check_env_md.cmake — fail when docs/env.md is not what the registry generates.
#   cmake -DZCOLL_ENV=zcoll-env -DENV_MD=docs/env.md -DOUT=generated.md -P check_env_md.cmake
execute_process(COMMAND ${ZCOLL_ENV} --markdown OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${ZCOLL_ENV} --markdown failed (${rc})")
endif()
file(READ ${OUT} generated)
file(READ ${ENV_MD} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR
    "docs/env.md is stale: it differs from the registry (src/core/config.cc).\n"
    "Regenerate it:  ${ZCOLL_ENV} --markdown > ${ENV_MD}\n"
    "(the generated text is in ${OUT}; diff -u ${ENV_MD} ${OUT})")
endif()
