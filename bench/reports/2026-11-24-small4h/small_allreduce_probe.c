/* small_allreduce_probe.c - what one small MPI call costs on the emulated 4-host cluster.
 * Per repeat (max over ranks): the mean of 20 ring exchanges of 8 bytes, the mean of 4
 * back-to-back MPI_Allreduce of 40 doubles (zcoll's settings agreement), and one such
 * allreduce right after a barrier (ranks in step, like the status agreement).
 *   mpicc -O2 small_allreduce_probe.c -o probe
 *   tools/netcluster/netcluster.sh setup 4 500mbit
 *   NETCLUSTER_FINALIZE_GRACE=5 tools/netcluster/netcluster.sh run --mpi mpich 4 -- ./probe
 * Output of the run on 2026-11-24: small_allreduce_probe.out (bench/results/2026-11-24-small4h.tar.xz) */
#include <mpi.h>
#include <stdio.h>
int main(int c,char**v){MPI_Init(&c,&v);int r,N;MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Comm_size(MPI_COMM_WORLD,&N);
 double a[40]={0}; char s[8],rb[8]; int to=(r+1)%N,from=(r-1+N)%N;
 for(int rep=0;rep<12;rep++){
  MPI_Barrier(MPI_COMM_WORLD); double t0=MPI_Wtime();
  for(int i=0;i<20;i++) MPI_Sendrecv(s,8,MPI_BYTE,to,1,rb,8,MPI_BYTE,from,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);
  double lat=(MPI_Wtime()-t0)/20;
  MPI_Barrier(MPI_COMM_WORLD); t0=MPI_Wtime();
  for(int i=0;i<4;i++) MPI_Allreduce(MPI_IN_PLACE,a,40,MPI_DOUBLE,MPI_MAX,MPI_COMM_WORLD);
  double sy=(MPI_Wtime()-t0)/4;
  /* single allreduce after skew: rank-dependent compute */
  MPI_Barrier(MPI_COMM_WORLD); t0=MPI_Wtime(); 
  MPI_Allreduce(MPI_IN_PLACE,a,40,MPI_DOUBLE,MPI_MAX,MPI_COMM_WORLD);
  double one=MPI_Wtime()-t0;
  double x[3]={lat,sy,one},m[3]; MPI_Reduce(x,m,3,MPI_DOUBLE,MPI_MAX,0,MPI_COMM_WORLD);
  if(!r) printf("lat %.2f ms  sync4avg %.2f ms  single %.2f ms\n",m[0]*1e3,m[1]*1e3,m[2]*1e3);
 }
 MPI_Finalize();}
