# smoke_errors.cmake — bad arguments, unreadable and corrupt files: every case
# must exit non-zero with one "zcoll: error:" line on stderr.
include(${CMAKE_CURRENT_LIST_DIR}/smoke_common.cmake)

zcoll_ok(compress -i "${DATA}" -o "${WORK}/good.zc" --type f32 --abs 0.01)
file(SIZE "${WORK}/good.zc" good_size)

# command-line errors
zcoll_fails("subcommand")
zcoll_fails("frobnicate" frobnicate)
zcoll_fails("--type" compress -i "${DATA}" -o "${WORK}/x.zc" --rel 1e-3)
zcoll_fails("f8" compress -i "${DATA}" -o "${WORK}/x.zc" --type f8 --rel 1e-3)
zcoll_fails("error bound is required" compress -i "${DATA}" -o "${WORK}/x.zc" --type f32)
zcoll_fails("excludes" compress -i "${DATA}" -o "${WORK}/x.zc" --type f32 --abs 1 --rel 1)
zcoll_fails("positive finite" compress -i "${DATA}" -o "${WORK}/x.zc" --type f32 --rel -1)
zcoll_fails("positive finite" eval -i "${DATA}" --type f32 --abs inf)
zcoll_fails("--threads" decompress -i "${WORK}/good.zc" -o "${WORK}/x.f32" --threads -1)
zcoll_fails("chunk size" compress -i "${DATA}" -o "${WORK}/x.zc" --type f32 --rel 1e-3
            --chunk-size 1000)
zcoll_fails("--repeat" eval -i "${DATA}" --type f32 --rel 1e-3 --repeat 0)
zcoll_fails("dims 17x96x191 hold 311712 values, not n = 313344" compress -i "${DATA}"
            -o "${WORK}/x.zc" --type f32 --rel 1e-3 --codec dense --dims 17x96x191)
zcoll_fails("a dimension is 0" eval -i "${DATA}" --type f32 --rel 1e-3 --dims 17x0x192)
zcoll_fails("positive integers separated by 'x'" eval -i "${DATA}" --type f32 --rel 1e-3
            --dims 17x96x)
zcoll_fails("at most 8 dimensions" eval -i "${DATA}" --type f32 --rel 1e-3
            --dims 1x1x1x1x1x1x17x96x192)
zcoll_fails("excludes" add "${WORK}/good.zc" "${WORK}/good.zc" -o "${WORK}/x.zc" --mean
            --scale 3)
zcoll_fails("--scale" add "${WORK}/good.zc" "${WORK}/good.zc" -o "${WORK}/x.zc" --scale 0)
zcoll_fails("at least two" add "${WORK}/good.zc" -o "${WORK}/x.zc")

# unreadable input, unwritable output, wrong sizes
zcoll_fails("cannot open.*No such file" compress -i "${WORK}/missing.f32" -o "${WORK}/x.zc"
            --type f32 --rel 1e-3)
zcoll_fails("cannot open.*No such file" info -i "${WORK}/missing.zc")
zcoll_fails("not a regular file" info -i "${WORK}")
zcoll_fails("cannot create" compress -i "${DATA}" -o "${WORK}/no/such/dir.zc" --type f32
            --rel 1e-3)
file(WRITE "${WORK}/odd.f32" "abcdefg")  # 7 bytes
zcoll_fails("not a multiple of the 4-byte f32" compress -i "${WORK}/odd.f32" -o "${WORK}/x.zc"
            --type f32 --rel 1e-3)
file(WRITE "${WORK}/odd.f64" "abcdefghijkl")  # 12 bytes
zcoll_fails("not a multiple of the 8-byte f64" eval -i "${WORK}/odd.f64" --type f64 --rel 1e-3)
file(WRITE "${WORK}/empty.f32" "")
zcoll_fails("empty" eval -i "${WORK}/empty.f32" --type f32 --rel 1e-3)

# not a stream at all: a raw data file
zcoll_fails("corrupt.*bad magic" decompress -i "${DATA}" -o "${WORK}/x.f32")
zcoll_fails("corrupt.*bad magic" info -i "${DATA}")
# an empty stream file
zcoll_fails("truncated" decompress -i "${WORK}/empty.f32" -o "${WORK}/x.f32")

# truncated and byte-flipped streams, made with dd (coreutils)
find_program(DD dd)
if(DD)
  math(EXPR cut "${good_size} - 100")
  execute_process(COMMAND "${DD}" if=${WORK}/good.zc of=${WORK}/cut.zc bs=${cut} count=1
                  RESULT_VARIABLE rc ERROR_QUIET)
  zcoll_fails("truncated" decompress -i "${WORK}/cut.zc" -o "${WORK}/x.f32")
  zcoll_fails("truncated" info -i "${WORK}/cut.zc")
  # overwrite byte 32 (low byte of the quantum) with 'X': the header checksum breaks
  file(WRITE "${WORK}/x.txt" "X")
  file(COPY_FILE "${WORK}/good.zc" "${WORK}/flip.zc")
  execute_process(COMMAND "${DD}" if=${WORK}/x.txt of=${WORK}/flip.zc bs=1 seek=32 count=1
                          conv=notrunc ERROR_QUIET)
  zcoll_fails("corrupt.*checksum" decompress -i "${WORK}/flip.zc" -o "${WORK}/x.f32")
  zcoll_fails("corrupt.*checksum" add "${WORK}/good.zc" "${WORK}/flip.zc" -o "${WORK}/x.zc")
  # the format version byte (offset 4)
  file(COPY_FILE "${WORK}/good.zc" "${WORK}/ver.zc")
  execute_process(COMMAND "${DD}" if=${WORK}/x.txt of=${WORK}/ver.zc bs=1 seek=4 count=1
                          conv=notrunc ERROR_QUIET)
  zcoll_fails("version" info -i "${WORK}/ver.zc")
else()
  message(STATUS "dd not found: truncated/flipped stream cases skipped")
endif()
