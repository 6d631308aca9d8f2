// smpi_undef.h — force-included after SMPI's smpi_helpers.h in the ZCOLL_SMPI
// build (tools/simscale/smpi_build.cmake): SMPI turns exit(x) into a macro,
// which breaks C++ headers that declare members named exit (CLI11). The
// programs here only call exit() on fatal errors, where ending the whole
// simulation is what is wanted.
#ifdef exit
#undef exit
#endif
