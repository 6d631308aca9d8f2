! pmpi_fortran_test.f90 — an ordinary Fortran MPI program (use mpi; it knows
! nothing of zcoll) with a small and a large MPI_REAL sum, run by tests/pmpi
! with libzcoll_pmpi.so preloaded. The reference is the same call between
! MPI_PCONTROL(0) and MPI_PCONTROL(1), which the shim passes through (MPICH's
! Fortran PMPI_ALLREDUCE calls the C MPI_Allreduce, so it is no reference
! under a C-level PMPI tool). Argument "lossy": the small sum
! must be bit-identical, the large one within ZCOLL_ERROR_BOUND (abs, with
! ZCOLL_BOUND=result) and not bit-identical (the shim ran); "exact": both
! bit-identical.
program pmpi_fortran_test
  use mpi
  implicit none
  integer, parameter :: nsmall = 100, nlarge = 1048579
  real, allocatable :: a(:), b(:), r(:)
  real :: s, s_out, s_ref
  integer :: ierr, rank, nprocs, i, fails, total
  logical :: lossy
  character(len=32) :: arg, ebtext
  double precision :: eb, worst, allowed, u

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  lossy = trim(arg) == 'lossy'
  eb = 0d0
  call get_environment_variable('ZCOLL_ERROR_BOUND', ebtext)
  if (len_trim(ebtext) > 0) read (ebtext, *) eb
  fails = 0
  u = 2d0**(-24)

  ! a norm: one value
  s = 0.25 * real(rank + 1)
  call MPI_ALLREDUCE(s, s_out, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(0)
  call MPI_ALLREDUCE(s, s_ref, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(1)
  if (s_out /= s_ref) fails = fails + 1

  allocate (a(nlarge), b(nlarge), r(nlarge))
  do i = 1, nlarge
    a(i) = real(5d0 * sin(1d-3 * i + 0.7d0 * rank) + 0.01d0 * mod(i, 5))
  end do
  call MPI_ALLREDUCE(a, b, nsmall, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(0)
  call MPI_ALLREDUCE(a, r, nsmall, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(1)
  if (any(b(1:nsmall) /= r(1:nsmall))) fails = fails + 1

  call MPI_ALLREDUCE(a, b, nlarge, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(0)
  call MPI_ALLREDUCE(a, r, nlarge, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(1)
  worst = maxval(abs(dble(b) - dble(r)))
  if (lossy) then
    allowed = eb + 2d0 * (nprocs + 1) * u * nprocs * 6d0 + 4d0 * u * maxval(abs(dble(r)))
    if (worst > allowed) fails = fails + 1
    if (worst == 0d0) then
      fails = fails + 1
      if (rank == 0) print '(a)', 'lossy run: large sum bit-identical: the shim did not run'
    end if
  else
    if (worst /= 0d0) fails = fails + 1
  end if
  if (rank == 0) print '(a,es10.3,a,es10.3)', 'large sum: max |error| ', worst, ' bound ', eb

  call MPI_ALLREDUCE(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', 'OK'
    else
      print '(a,i0,a)', 'FAIL: ', total, ' failures'
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1
end program pmpi_fortran_test
