# check_launches.cmake — every kernel launch of src/cuda goes through
# ZCOLL_LAUNCH (src/cuda/launch.cuh), the one place with <<<>>>: a launch
# written with <<<>>> elsewhere would compile under nvcc only, and the CUDA
# emulation (label gpu_emu) would not run that code.
#   cmake -DSRC=<src/cuda> -P check_launches.cmake
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE _files ${SRC}/*.cu ${SRC}/*.cuh ${SRC}/*.cc ${SRC}/*.h)
set(_bad "")
foreach(_f ${_files})
  if(_f MATCHES "/launch\\.cuh$")
    continue()
  endif()
  file(STRINGS ${_f} _lines REGEX "<<<")
  foreach(_l ${_lines})
    string(STRIP "${_l}" _l)
    if(NOT _l MATCHES "^//")
      list(APPEND _bad "${_f}: ${_l}")
    endif()
  endforeach()
endforeach()
if(_bad)
  list(JOIN _bad "\n  " _msg)
  message(FATAL_ERROR "kernel launches outside ZCOLL_LAUNCH:\n  ${_msg}")
endif()
message(STATUS "every launch in ${SRC} goes through ZCOLL_LAUNCH")
