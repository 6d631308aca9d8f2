// hom_doc_test.cc — zcoll_doc_combine (decompress-operate-compress, fused per
// chunk) for SUM, PROD, MAX and MIN against the exact operation on the ORIGINAL
// values, within the reported error_bound plus the rounding of the operation in T.
//
// The reported bound (zcoll.h): SUM ea+eb, MAX/MIN max(ea,eb), PROD
// max_i(|b'_i| ea + (|a'_i| + ea) eb), plus one compression bound eb_single =
// quantum / (2 (1 - slack)); "the rounding of the operation itself in float (half
// an ulp) comes on top". So with r = fl_T(a' op b') the test allows
//     |y - (a op b)| <= (eb_reported + u·|r|)·(1 + 4u) + denorm_min
// (the factor covers the second-order term u·|op - r| and the double rounding of
// the reported bound, a few 2^-53 relative), and checks the
// re-encoding separately: |y - r| <= eb_single, or y == r bit for bit in a raw chunk.
#include "hom_util.h"

namespace {

using namespace ht;

class HomDoc : public testing::TestWithParam<Config> {};


template <typename T>
T apply(zcoll_op op, T x, T y) {
  switch (op) {
    case ZCOLL_OP_SUM: return x + y;
    case ZCOLL_OP_PROD: return x * y;
    case ZCOLL_OP_MAX: return std::isnan(x) || std::isnan(y) ? x + y : (x > y ? x : y);
    case ZCOLL_OP_MIN: return std::isnan(x) || std::isnan(y) ? x + y : (x < y ? x : y);
  }
  return x;
}

// y - exact(a op b), exact to ~2^-100 relative (double-double).
double exact_error(zcoll_op op, double y, double a, double b) {
  double hi, lo;
  switch (op) {
    case ZCOLL_OP_SUM: two_sum(a, b, &hi, &lo); break;
    case ZCOLL_OP_PROD:
      hi = a * b;
      lo = std::fma(a, b, -hi);
      break;
    case ZCOLL_OP_MAX: hi = a > b ? a : b, lo = 0; break;
    default: hi = a < b ? a : b, lo = 0; break;
  }
  double s, e;
  two_sum(y, -hi, &s, &e);
  return s + (e - lo);
}

template <typename T>
double eb_single_of(double quantum) {
  const double slack = std::is_same<T, float>::value ? 1.0 / 64.0 : 1.0 / 1048576.0;
  return quantum / (2.0 * (1.0 - slack));
}

template <typename T>
void check_doc(const std::vector<T>& xa, const std::vector<T>& xb, const Bytes& za, const Bytes& zb,
               zcoll_op op, int threads, const std::string& what) {
  const std::string w = what + " " + zcoll_op_name(op);
  Bytes out = doc(za, zb, op, threads);
  ASSERT_FALSE(out.empty()) << w;
  const zcoll_info ia = inspect(za), ib = inspect(zb), io = inspect(out);
  ASSERT_GT(io.n, 0u) << w << ": the result must be a readable stream";
  EXPECT_EQ(io.divisor, 1u) << w;
  EXPECT_EQ(io.terms, ia.terms + ib.terms) << w;
  EXPECT_EQ(bits_of(io.quantum), bits_of(ia.quantum)) << w;
  const double ea = ia.error_bound, eb = ib.error_bound, es = eb_single_of<T>(ia.quantum);
  const std::vector<T> da = decompress<T>(za), db = decompress<T>(zb),
                       y = decompress<T>(out, threads);
  double prior = 0;
  switch (op) {
    case ZCOLL_OP_SUM: prior = ea + eb; break;
    case ZCOLL_OP_MAX:
    case ZCOLL_OP_MIN: prior = std::max(ea, eb); break;
    case ZCOLL_OP_PROD:
      for (size_t i = 0; i < da.size(); ++i)
        if (std::isfinite(da[i]) && std::isfinite(db[i]))
          prior =
              std::max(prior, std::fabs(double(db[i])) * ea + (std::fabs(double(da[i])) + ea) * eb);
      break;
  }
  EXPECT_DOUBLE_EQ(io.error_bound, prior + es) << w;
  StreamDump d = dump(out);
  const double u = unit_roundoff<T>();
  size_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const T r = apply(op, da[i], db[i]);
    const bool raw = d.chunks[i / io.chunk_size].raw;
    const double exact_ieee = apply<double>(op, xa[i], xb[i]);
    bool ok;
    std::string why;
    if (!std::isfinite(exact_ieee) || !std::isfinite(r)) {
      ok = same_bits(y[i], r) &&
           (std::isnan(exact_ieee) ? std::isnan(y[i]) : double(y[i]) == exact_ieee);
      why = "IEEE";
    } else {
      const double err = std::fabs(exact_error(op, y[i], xa[i], xb[i]));
      const double tol = (io.error_bound + u * std::fabs(double(r))) * (1 + 4 * u) +
                         double(std::numeric_limits<T>::denorm_min());
      ok = err <= tol;
      why = "|err| " + std::to_string(err) + " > " + std::to_string(tol);
      // the re-encoding of r itself
      if (raw)
        ok = ok && same_bits(y[i], r);
      else
        ok = ok && std::fabs(double(y[i]) - double(r)) <= es;
    }
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << w << ": value " << i << ": a = " << xa[i] << ", b = " << xb[i]
                    << ", a' = " << da[i] << ", b' = " << db[i] << ", got " << y[i]
                    << ", fl(a' op b') = " << r << " (" << why << ", chunk "
                    << (raw ? "raw" : "quantized") << ")";
  }
  EXPECT_EQ(bad, 0u) << w;
}

template <typename T>
void random_doc(int threads) {
  const size_t n = 4 * 1024 + 55;
  struct Spec {
    Kind a, b;
    double amp_b, eb;
  };
  const Spec specs[] = {
      {Kind::kSmooth, Kind::kSmooth, 1, 1e-3},
      {Kind::kSmooth, Kind::kNoisy, 2, 1e-4},
      {Kind::kNoisy, Kind::kWalk, 0.5, 1e-2},
      {Kind::kSparse, Kind::kMixedScales, 1, 1e-2},
  };
  uint64_t seed = 300;
  for (const Spec& s : specs) {
    const std::vector<T> xa = make_data<T>(s.a, n, ++seed),
                         xb = make_data<T>(s.b, n, ++seed, s.amp_b);
    Bytes za = compress(xa, s.eb, 1024, threads), zb = compress(xb, s.eb, 1024, threads);
    for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_PROD, ZCOLL_OP_MAX, ZCOLL_OP_MIN})
      check_doc<T>(xa, xb, za, zb, op, threads, std::string(kind_name(s.a)) + "," + kind_name(s.b));
  }
}
TEST_P(HomDoc, RandomPairsAllOps) { HT_DISPATCH(GetParam(), random_doc); }

template <typename T>
void real_doc(int threads) {
  const size_t month = 73 * 144;
  std::vector<float> fa = load_f32("ferret_fnoc-uwnd_132x73x144.f32", 0, 3 * month);
  std::vector<float> fb = load_f32("ferret_fnoc-vwnd_132x73x144.f32", 0, 3 * month);
  if (fb.size() != 3 * month)  // v wind only in the shared set: use later u months
    fb = load_f32("ferret_fnoc-uwnd_132x73x144.f32", 60 * month, 3 * month);
  if (fa.size() != 3 * month || fb.size() != 3 * month) GTEST_SKIP() << "no FNOC wind data";
  const std::vector<T> xa = convert<T>(fa), xb = convert<T>(fb);
  const double eb = 1e-3 * std::max(value_range(xa), value_range(xb));
  Bytes za = compress(xa, eb, 0, threads), zb = compress(xb, eb, 0, threads);
  for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_PROD, ZCOLL_OP_MAX, ZCOLL_OP_MIN})
    check_doc<T>(xa, xb, za, zb, op, threads, "FNOC wind");
}
TEST_P(HomDoc, RealDataAllOps) { HT_DISPATCH(GetParam(), real_doc); }

// DOC inputs that are themselves sums (eb = 2 eb0) and means (divisor 2): the
// output has divisor 1 and the values of the represented data.
template <typename T>
void doc_of_sums(int threads) {
  const size_t n = 3 * 1024;
  const std::vector<T> x1 = make_data<T>(Kind::kSmooth, n, 401),
                       x2 = make_data<T>(Kind::kSmooth, n, 402),
                       x3 = make_data<T>(Kind::kWalk, n, 403);
  Bytes z1 = compress(x1, 1e-3, 1024), z2 = compress(x2, 1e-3, 1024), z3 = compress(x3, 1e-3, 1024);
  Bytes s12 = hom_add(z1, z2, threads);
  Bytes s33 = hom_add(z3, z3, threads);
  std::vector<T> x12(n), x33(n);
  for (size_t i = 0; i < n; ++i) x12[i] = x1[i] + x2[i], x33[i] = x3[i] + x3[i];
  // x12 = fl_T(x1 + x2): its half-ulp rounding (<= 2^-22 here) is far inside the
  // slack of the codes (|x - q*quantum| <= quantum/2 = eb*(1 - slack) per input)
  Bytes out = doc(s12, s33, ZCOLL_OP_MAX, threads);
  EXPECT_EQ(inspect(out).terms, 4u);
  check_doc<T>(x12, x33, s12, s33, ZCOLL_OP_MAX, threads, "max of sums");
  // means
  ASSERT_EQ(zcoll_hom_set_divisor(s12.data(), s12.size(), 2), ZCOLL_SUCCESS);
  ASSERT_EQ(zcoll_hom_set_divisor(s33.data(), s33.size(), 2), ZCOLL_SUCCESS);
  std::vector<T> m12(n), m33(n);
  for (size_t i = 0; i < n; ++i) m12[i] = x12[i] / 2, m33[i] = x33[i] / 2;
  check_doc<T>(m12, m33, s12, s33, ZCOLL_OP_SUM, threads, "sum of means");
}
TEST_P(HomDoc, InputsThatAreSumsAndMeans) { HT_DISPATCH(GetParam(), doc_of_sums); }

INSTANTIATE_TEST_SUITE_P(Configs, HomDoc, testing::ValuesIn(all_configs()), config_name);

// NaN and Inf in raw chunks through every op: IEEE results, and the output is a
// valid stream (its error_bound must stay finite: parse_header rejects others).
template <typename T>
void doc_specials() {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> xa = make_data<T>(Kind::kSmooth, 3 * 1024, 501),
                 xb = make_data<T>(Kind::kSmooth, 3 * 1024, 502);
  xa[10] = inf;                                         // chunk 0
  xb[1024 + 20] = std::numeric_limits<T>::quiet_NaN();  // chunk 1
  xa[2048 + 30] = -inf;
  xb[2048 + 30] = inf;  // chunk 2
  Bytes za = compress(xa, 1e-3, 1024), zb = compress(xb, 1e-3, 1024);
  for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_PROD, ZCOLL_OP_MAX, ZCOLL_OP_MIN}) {
    const std::string w = std::string("specials ") + zcoll_op_name(op);
    Bytes out(bound_of(za));
    size_t size = 0;
    ASSERT_EQ(zcoll_doc_combine(za.data(), za.size(), zb.data(), zb.size(), op, out.data(),
                                out.size(), &size, 1),
              ZCOLL_SUCCESS)
        << w;
    out.resize(size);
    zcoll_info info = ZCOLL_INFO_INITIALIZER;
    const zcoll_status s = zcoll_inspect(out.data(), out.size(), &info);
    EXPECT_EQ(s, ZCOLL_SUCCESS) << w << ": zcoll_doc_combine returned success but its output "
                                << "is not a valid stream: " << zcoll_last_error();
    if (s != ZCOLL_SUCCESS) continue;
    EXPECT_TRUE(std::isfinite(info.error_bound)) << w;
    check_doc<T>(xa, xb, za, zb, op, 1, w);
  }
}
TEST(HomDocSpecial, NanInfAllOpsF32) { doc_specials<float>(); }
TEST(HomDocSpecial, NanInfAllOpsF64) { doc_specials<double>(); }

}  // namespace
