/* vector_throughput.c — reciprocal throughput (cycles per instruction, 8 independent
 * chains) of the AVX2 instructions the codec kernels are made of, on this core: the
 * cost model of docs/reports/2026-11-25-codec-speed.md. Thread CPU time, so the
 * machine's load matters less; the clock is measured first with 4e9 dependent adds
 * (1 cycle each).
 *   cc -O2 -mavx2 vector_throughput.c -o vt && ./vt */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
static double now(){struct timespec a; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&a); return a.tv_sec+1e-9*a.tv_nsec;}
static double ghz = 2.87;
static void measure_clock(void) {
  unsigned long x = 1;
  double t0 = now();
  for (long i = 0; i < 1000000000; i++)
    __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
  ghz = 4.0 / (now() - t0);
  printf("clock: %.2f GHz (4e9 dependent adds)\n", ghz);
}
#define N 20000000
#define BENCH(name, init, op) { init; double t0=now(); for(long i=0;i<N;i++){ op(x0); op(x1); op(x2); op(x3); op(x4); op(x5); op(x6); op(x7); __asm__ volatile("" : "+x"(x0),"+x"(x1),"+x"(x2),"+x"(x3),"+x"(x4),"+x"(x5),"+x"(x6),"+x"(x7)); } double t=now()-t0; printf("%-28s %.2f cycles/instr (throughput)\n", name, t*ghz*1e9/(8.0*N)); }
int main(){
  measure_clock();
  __m256i idx=_mm256_setr_epi32(7,0,1,2,3,4,5,6), sh=_mm256_set1_epi8(3);
  __asm__ volatile("" : "+x"(idx), "+x"(sh));
  { __m256i x0=_mm256_set1_epi32(1),x1=x0,x2=x0,x3=x0,x4=x0,x5=x0,x6=x0,x7=x0;
#define OPD(x) x=_mm256_permutevar8x32_epi32(x, idx)
    BENCH("vpermd", , OPD)
#define OPP(x) x=_mm256_permute2x128_si256(x, x, 0x01)
    BENCH("vperm2i128", , OPP)
#define OPQ(x) x=_mm256_permute4x64_epi64(x, 0x4E)
    BENCH("vpermq", , OPQ)
#define OPS(x) x=_mm256_shuffle_epi8(x, sh)
    BENCH("vpshufb ymm", , OPS)
#define OPL(x) x=_mm256_slli_si256(x, 4)
    BENCH("vpslldq ymm", , OPL)
#define OPQS(x) x=_mm256_srli_epi64(x, 7)
    BENCH("vpsrlq ymm", , OPQS)
#define OPA(x) x=_mm256_add_epi32(x, idx)
    BENCH("vpaddd ymm", , OPA)
#define OPU(x) x=_mm256_unpacklo_epi8(x, idx)
    BENCH("vpunpcklbw ymm", , OPU)
#define OPSD(x) x=_mm256_shuffle_epi32(x, 0x1B)
    BENCH("vpshufd ymm", , OPSD)
#define OPCV(x) x=_mm256_cvtepi16_epi32(_mm256_castsi256_si128(x))
    BENCH("vpmovsxwd ymm,xmm", , OPCV)
#define OPEX(x) x=_mm256_castsi128_si256(_mm256_extracti128_si256(x,1))
    BENCH("vextracti128", , OPEX)
#define OPMM(x) x=_mm256_set1_epi32(_mm256_movemask_epi8(x))
    BENCH("vpmovmskb+bcast", , OPMM)
  }
  { __m256d x0=_mm256_set1_pd(1),x1=x0,x2=x0,x3=x0,x4=x0,x5=x0,x6=x0,x7=x0;
#define OPC1(x) x=_mm256_cvtepi32_pd(_mm256_castsi256_si128(_mm256_castpd_si256(x)))
    BENCH("vcvtdq2pd ymm,xmm", , OPC1)
#define OPC2(x) x=_mm256_castps_pd(_mm256_castps128_ps256(_mm256_cvtpd_ps(x)))
    BENCH("vcvtpd2ps xmm,ymm", , OPC2)
#define OPC3(x) x=_mm256_cvtps_pd(_mm256_castps256_ps128(_mm256_castpd_ps(x)))
    BENCH("vcvtps2pd ymm,xmm", , OPC3)
#define OPC4(x) x=_mm256_castsi256_pd(_mm256_castsi128_si256(_mm256_cvtpd_epi32(x)))
    BENCH("vcvtpd2dq xmm,ymm", , OPC4)
#define OPM(x) x=_mm256_mul_pd(x, x)
    BENCH("vmulpd ymm", , OPM)
  }
  return 0;
}
