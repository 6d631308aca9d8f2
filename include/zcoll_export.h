/*
 * zcoll_export.h — ZCOLL_API marks the functions that libzcoll and libzcoll_mpi
 * export. Both libraries are built with -fvisibility=hidden, so everything else
 * (the C++ internals) stays private to the library that contains it.
 */
#ifndef ZCOLL_EXPORT_H
#define ZCOLL_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define ZCOLL_API __attribute__((visibility("default")))
#else
#define ZCOLL_API
#endif

#endif /* ZCOLL_EXPORT_H */
