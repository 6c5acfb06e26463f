/*
 * bench/apps/cublas-ref.cu - the cuBLAS reference of bench/apps/run
 * (issue 29, item 3): times, with cuBLAS, the matrix products a
 * PolyBench-ACC application computes, at its sizes and precision.
 *
 *   cublas-ref KIND DIM... [--type float|double] [--reps N]
 *   cublas-ref KIND [DIM...] [--type T] --check        (cuBLAS against the CPU)
 *   cublas-ref KIND [DIM...] [--type T] --check-host   (the same calls run by a
 *                                                       host BLAS: no GPU needed)
 *
 * KIND and its DIMs, in the order of the application's header macros:
 *   gemm NI NJ NK          C = alpha A B + beta C             1 GEMM
 *   2mm NI NJ NK NL        tmp = alpha A B; D = tmp C + beta D 2 GEMMs
 *   3mm NI NJ NK NL NM     E = A B; F = C D; G = E F          3 GEMMs
 *   syrk NI NJ             C = alpha A A^T + beta C           1 GEMM (full C)
 *   syr2k NI NJ            C = alpha (A B^T + B A^T) + beta C 2 GEMMs (full C)
 *   covariance M N         S = X^T X (X: the centred data)    1 GEMM (full S)
 *   correlation M N        the same product (standardised data)
 *
 * The applications compute the whole symmetric result (syrk, syr2k) or a
 * triangle and its mirror (covariance, correlation); cuBLAS's only call
 * that yields the whole matrix is GEMM, which is what is timed
 * (`seconds`).  The one-triangle routines (SYRK, SYR2K: half the
 * arithmetic, half the result) are timed too, for information
 * (`triangle`).  Only the products are timed: covariance's and
 * correlation's O(M N) steps (means, deviations, centring) are not.
 *
 * Timing, as the applications' own POLYBENCH_TIME figure: gettimeofday
 * around the calls and a cudaDeviceSynchronize; one warm-up run first
 * (its time is `first_s`), then --reps runs (default 20): `seconds` is
 * their median, `best_s` the least.  cuBLAS's default math mode: no TF32
 * for float, as the applications compute in full precision.
 *
 * Output: one JSON line on stdout.  Exit status: 0; 1 a check failed;
 * 2 usage; 3 no GPU or a CUDA/cuBLAS error (the line has "error").
 *
 * The check computes the application's result on the CPU in double,
 * straight from the kernels' loops (row-major), and compares each element
 * within 4 * eps * (sum of the reduction lengths) of the sum of the
 * magnitudes of its terms.  Without DIMs it uses small distinct sizes
 * (a transposed operand or a wrong leading dimension shows there).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <sys/time.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

enum Op { GEMM, SYRK, SYR2K };

/* One cuBLAS call, column-major, as cuBLAS takes it.  For SYRK and SYR2K
 * `ta` is the `trans` argument and the lower triangle is filled. */
struct Call {
	Op op;
	bool ta, tb;
	int m, n, k;
	double alpha, beta;
	int a, b, c; /* array ids */
	int lda, ldb, ldc;
	std::string what; /* in the application's row-major terms */
};

struct Plan {
	std::string kind;
	std::vector<std::string> dimnames;
	std::vector<long> dims;
	std::vector<std::string> names; /* arrays */
	std::vector<size_t> lens;
	std::vector<bool> is_output;
	std::vector<Call> full, triangle;
	int out;        /* the array --check compares */
	long ksum;      /* reduction lengths along the longest chain */
	double flop;    /* of the full plan */
	double tri_flop;
};

const double ALPHA = 1.5, BETA = 1.2; /* nonzero where the kernel scales */

int add_array(Plan &p, const char *name, long rows, long cols, bool output)
{
	p.names.push_back(name);
	p.lens.push_back((size_t)rows * (size_t)cols);
	p.is_output.push_back(output);
	return (int)p.names.size() - 1;
}

std::string dims_str(long r, long c)
{
	return std::to_string(r) + "x" + std::to_string(c);
}

/* Row-major C[M x N] = alpha opA(A) opB(B) + beta C, A stored M x K (K x M
 * when ta) with rows of lda elements, B likewise: in column-major terms
 * C^T = opB(B)^T opA(A)^T, which is one GEMM with the operands swapped. */
Call rm_gemm(Plan &p, int C, int A, int B, long M, long N, long K, bool ta, bool tb, long lda, long ldb,
	     long ldc, double alpha, double beta, const std::string &what)
{
	Call x;
	x.op = GEMM;
	x.ta = tb;
	x.tb = ta;
	x.m = (int)N;
	x.n = (int)M;
	x.k = (int)K;
	x.alpha = alpha;
	x.beta = beta;
	x.a = B;
	x.lda = (int)ldb;
	x.b = A;
	x.ldb = (int)lda;
	x.c = C;
	x.ldc = (int)ldc;
	x.what = what;
	p.flop += 2.0 * M * N * K;
	return x;
}

Call tri(Op op, bool trans, long n, long k, int A, long lda, int B, long ldb, int C, long ldc, double alpha,
	 double beta, const std::string &what)
{
	Call x;
	x.op = op;
	x.ta = trans;
	x.tb = false;
	x.m = x.n = (int)n;
	x.k = (int)k;
	x.alpha = alpha;
	x.beta = beta;
	x.a = A;
	x.lda = (int)lda;
	x.b = B;
	x.ldb = (int)ldb;
	x.c = C;
	x.ldc = (int)ldc;
	x.what = what;
	return x;
}

struct Kind {
	const char *name;
	std::vector<const char *> dims;
	std::vector<long> check_dims; /* small and distinct */
};

const Kind KINDS[] = {
	{"gemm", {"NI", "NJ", "NK"}, {37, 53, 29}},
	{"2mm", {"NI", "NJ", "NK", "NL"}, {37, 53, 29, 41}},
	{"3mm", {"NI", "NJ", "NK", "NL", "NM"}, {37, 53, 29, 41, 23}},
	{"syrk", {"NI", "NJ"}, {37, 53}},
	{"syr2k", {"NI", "NJ"}, {37, 53}},
	{"covariance", {"M", "N"}, {37, 53}},
	{"correlation", {"M", "N"}, {37, 53}},
};

const Kind *find_kind(const char *name)
{
	for (const Kind &k : KINDS)
		if (!strcmp(k.name, name))
			return &k;
	return nullptr;
}

/* The calls of KIND at DIMS; P (S or D) names the cuBLAS routines. */
Plan make_plan(const Kind &kd, const std::vector<long> &d, char P)
{
	Plan p;
	p.kind = kd.name;
	for (const char *n : kd.dims)
		p.dimnames.push_back(n);
	p.dims = d;
	p.flop = p.tri_flop = 0;
	std::string g = std::string("cublas") + P + "gemm";
	std::string k = p.kind;
	if (k == "gemm") {
		long NI = d[0], NJ = d[1], NK = d[2];
		int A = add_array(p, "A", NI, NK, false), B = add_array(p, "B", NK, NJ, false);
		int C = add_array(p, "C", NI, NJ, true);
		p.full.push_back(rm_gemm(p, C, A, B, NI, NJ, NK, false, false, NK, NJ, NJ, ALPHA, BETA,
					 g + ": C[" + dims_str(NI, NJ) + "] = alpha A[" + dims_str(NI, NK) + "] B[" +
						 dims_str(NK, NJ) + "] + beta C"));
		p.out = C;
		p.ksum = NK;
	} else if (k == "2mm") {
		long NI = d[0], NJ = d[1], NK = d[2], NL = d[3];
		int A = add_array(p, "A", NI, NK, false), B = add_array(p, "B", NK, NJ, false);
		int C = add_array(p, "C", NJ, NL, false), D = add_array(p, "D", NI, NL, true);
		int T = add_array(p, "tmp", NI, NJ, true);
		p.full.push_back(rm_gemm(p, T, A, B, NI, NJ, NK, false, false, NK, NJ, NJ, ALPHA, 0,
					 g + ": tmp[" + dims_str(NI, NJ) + "] = alpha A[" + dims_str(NI, NK) + "] B[" +
						 dims_str(NK, NJ) + "]"));
		p.full.push_back(rm_gemm(p, D, T, C, NI, NL, NJ, false, false, NJ, NL, NL, 1, BETA,
					 g + ": D[" + dims_str(NI, NL) + "] = tmp[" + dims_str(NI, NJ) + "] C[" +
						 dims_str(NJ, NL) + "] + beta D"));
		p.out = D;
		p.ksum = NK + NJ;
	} else if (k == "3mm") {
		long NI = d[0], NJ = d[1], NK = d[2], NL = d[3], NM = d[4];
		int A = add_array(p, "A", NI, NK, false), B = add_array(p, "B", NK, NJ, false);
		int C = add_array(p, "C", NJ, NM, false), D = add_array(p, "D", NM, NL, false);
		int E = add_array(p, "E", NI, NJ, true), F = add_array(p, "F", NJ, NL, true);
		int G = add_array(p, "G", NI, NL, true);
		p.full.push_back(rm_gemm(p, E, A, B, NI, NJ, NK, false, false, NK, NJ, NJ, 1, 0,
					 g + ": E[" + dims_str(NI, NJ) + "] = A[" + dims_str(NI, NK) + "] B[" +
						 dims_str(NK, NJ) + "]"));
		p.full.push_back(rm_gemm(p, F, C, D, NJ, NL, NM, false, false, NM, NL, NL, 1, 0,
					 g + ": F[" + dims_str(NJ, NL) + "] = C[" + dims_str(NJ, NM) + "] D[" +
						 dims_str(NM, NL) + "]"));
		p.full.push_back(rm_gemm(p, G, E, F, NI, NL, NJ, false, false, NJ, NL, NL, 1, 0,
					 g + ": G[" + dims_str(NI, NL) + "] = E[" + dims_str(NI, NJ) + "] F[" +
						 dims_str(NJ, NL) + "]"));
		p.out = G;
		p.ksum = std::max(NK, NM) + NJ;
	} else if (k == "syrk") {
		long NI = d[0], NJ = d[1];
		int A = add_array(p, "A", NI, NJ, false), C = add_array(p, "C", NI, NI, true);
		p.full.push_back(rm_gemm(p, C, A, A, NI, NI, NJ, false, true, NJ, NJ, NI, ALPHA, BETA,
					 g + ": C[" + dims_str(NI, NI) + "] = alpha A[" + dims_str(NI, NJ) +
						 "] A^T + beta C (whole C)"));
		p.triangle.push_back(tri(SYRK, true, NI, NJ, A, NJ, A, NJ, C, NI, ALPHA, BETA,
					 std::string("cublas") + P + "syrk: one triangle of C[" + dims_str(NI, NI) +
						 "] = alpha A A^T + beta C"));
		p.tri_flop = 1.0 * NI * (NI + 1) * NJ;
		p.out = C;
		p.ksum = NJ;
	} else if (k == "syr2k") {
		long NI = d[0], NJ = d[1];
		int A = add_array(p, "A", NI, NJ, false), B = add_array(p, "B", NI, NJ, false);
		int C = add_array(p, "C", NI, NI, true);
		p.full.push_back(rm_gemm(p, C, A, B, NI, NI, NJ, false, true, NJ, NJ, NI, ALPHA, BETA,
					 g + ": C[" + dims_str(NI, NI) + "] = alpha A[" + dims_str(NI, NJ) + "] B^T + beta C"));
		p.full.push_back(rm_gemm(p, C, B, A, NI, NI, NJ, false, true, NJ, NJ, NI, ALPHA, 1,
					 g + ": C += alpha B[" + dims_str(NI, NJ) + "] A^T (whole C)"));
		p.triangle.push_back(tri(SYR2K, true, NI, NJ, A, NJ, B, NJ, C, NI, ALPHA, BETA,
					 std::string("cublas") + P + "syr2k: one triangle of C[" + dims_str(NI, NI) +
						 "] = alpha (A B^T + B A^T) + beta C"));
		p.tri_flop = 2.0 * NI * (NI + 1) * NJ;
		p.out = C;
		p.ksum = 2 * NJ;
	} else { /* covariance, correlation: data[N x M], row-major */
		long M = d[0], N = d[1];
		int X = add_array(p, "data", N, M, false), S = add_array(p, "symmat", M, M, true);
		p.full.push_back(rm_gemm(p, S, X, X, M, M, N, true, false, M, M, M, 1, 0,
					 g + ": symmat[" + dims_str(M, M) + "] = data^T data, data[" + dims_str(N, M) +
						 "] (whole symmat)"));
		p.triangle.push_back(tri(SYRK, false, M, N, X, M, X, M, S, M, 1, 0,
					 std::string("cublas") + P + "syrk: one triangle of symmat[" + dims_str(M, M) +
						 "] = data^T data"));
		p.tri_flop = 1.0 * M * (M + 1) * N;
		p.out = S;
		p.ksum = N;
	}
	return p;
}

/* ------------------------------------------------------------ the CPU */

/* The application's result, from its kernels' loops (row-major), in
 * double; with ABS, of the magnitudes (|x| for every input and
 * coefficient): the scale each element's rounding error is judged by. */
void cpu_reference(const Plan &p, std::vector<std::vector<double>> &v, bool abs)
{
	auto f = [abs](double x) { return abs ? std::fabs(x) : x; };
	const std::vector<long> &d = p.dims;
	const double alpha = f(ALPHA), beta = f(BETA);
	if (p.kind == "gemm") {
		long NI = d[0], NJ = d[1], NK = d[2];
		std::vector<double> &A = v[0], &B = v[1], &C = v[2];
		for (long i = 0; i < NI; i++)
			for (long j = 0; j < NJ; j++) {
				double c = f(C[i * NJ + j]) * beta;
				for (long k = 0; k < NK; k++)
					c += alpha * f(A[i * NK + k]) * f(B[k * NJ + j]);
				C[i * NJ + j] = c;
			}
	} else if (p.kind == "2mm") {
		long NI = d[0], NJ = d[1], NK = d[2], NL = d[3];
		std::vector<double> &A = v[0], &B = v[1], &C = v[2], &D = v[3], &T = v[4];
		for (long i = 0; i < NI; i++)
			for (long j = 0; j < NJ; j++) {
				double t = 0;
				for (long k = 0; k < NK; k++)
					t += alpha * f(A[i * NK + k]) * f(B[k * NJ + j]);
				T[i * NJ + j] = t;
			}
		for (long i = 0; i < NI; i++)
			for (long j = 0; j < NL; j++) {
				double s = f(D[i * NL + j]) * beta;
				for (long k = 0; k < NJ; k++)
					s += T[i * NJ + k] * f(C[k * NL + j]);
				D[i * NL + j] = s;
			}
	} else if (p.kind == "3mm") {
		long NI = d[0], NJ = d[1], NK = d[2], NL = d[3], NM = d[4];
		std::vector<double> &A = v[0], &B = v[1], &C = v[2], &D = v[3], &E = v[4], &F = v[5], &G = v[6];
		for (long i = 0; i < NI; i++)
			for (long j = 0; j < NJ; j++) {
				double s = 0;
				for (long k = 0; k < NK; k++)
					s += f(A[i * NK + k]) * f(B[k * NJ + j]);
				E[i * NJ + j] = s;
			}
		for (long i = 0; i < NJ; i++)
			for (long j = 0; j < NL; j++) {
				double s = 0;
				for (long k = 0; k < NM; k++)
					s += f(C[i * NM + k]) * f(D[k * NL + j]);
				F[i * NL + j] = s;
			}
		for (long i = 0; i < NI; i++)
			for (long j = 0; j < NL; j++) {
				double s = 0;
				for (long k = 0; k < NJ; k++)
					s += E[i * NJ + k] * F[k * NL + j];
				G[i * NL + j] = s;
			}
	} else if (p.kind == "syrk") {
		long NI = d[0], NJ = d[1];
		std::vector<double> &A = v[0], &C = v[1];
		for (long i = 0; i < NI; i++)
			for (long j = 0; j < NI; j++) {
				double c = f(C[i * NI + j]) * beta;
				for (long k = 0; k < NJ; k++)
					c += alpha * f(A[i * NJ + k]) * f(A[j * NJ + k]);
				C[i * NI + j] = c;
			}
	} else if (p.kind == "syr2k") {
		long NI = d[0], NJ = d[1];
		std::vector<double> &A = v[0], &B = v[1], &C = v[2];
		for (long i = 0; i < NI; i++)
			for (long j = 0; j < NI; j++) {
				double c = f(C[i * NI + j]) * beta;
				for (long k = 0; k < NJ; k++)
					c += alpha * f(A[i * NJ + k]) * f(B[j * NJ + k]) +
					     alpha * f(B[i * NJ + k]) * f(A[j * NJ + k]);
				C[i * NI + j] = c;
			}
	} else {
		long M = d[0], N = d[1];
		std::vector<double> &X = v[0], &S = v[1];
		for (long j1 = 0; j1 < M; j1++)
			for (long j2 = 0; j2 < M; j2++) {
				double s = 0;
				for (long i = 0; i < N; i++)
					s += f(X[i * M + j1]) * f(X[i * M + j2]);
				S[j1 * M + j2] = s;
			}
	}
}

/* A call run on the host with BLAS's definitions (column-major; SYRK and
 * SYR2K fill the lower triangle): --check-host checks the calls' operands,
 * transposes and leading dimensions without a GPU. */
template <typename T> void host_call(const Call &x, std::vector<std::vector<T>> &v)
{
	const T *A = v[x.a].data(), *B = v[x.b].data();
	T *C = v[x.c].data();
	auto opa = [&](long i, long l) { return (double)(x.ta ? A[l + i * x.lda] : A[i + l * x.lda]); };
	auto opb = [&](long l, long j) { return (double)(x.tb ? B[j + l * x.ldb] : B[l + j * x.ldb]); };
	auto opb2 = [&](long i, long l) { return (double)(x.ta ? B[l + i * x.ldb] : B[i + l * x.ldb]); };
	for (long j = 0; j < x.n; j++)
		for (long i = (x.op == GEMM ? 0 : j); i < x.m; i++) {
			double s = 0;
			for (long l = 0; l < x.k; l++) {
				if (x.op == GEMM)
					s += opa(i, l) * opb(l, j);
				else if (x.op == SYRK)
					s += opa(i, l) * opa(j, l);
				else
					s += opa(i, l) * opb2(j, l) + opb2(i, l) * opa(j, l);
			}
			T &c = C[i + j * x.ldc];
			c = (T)(x.alpha * s + (x.beta == 0 ? 0.0 : x.beta * (double)c));
		}
}

/* ------------------------------------------------------------ the GPU */

template <typename T> struct Blas;
template <> struct Blas<float> {
	static const char *name() { return "float"; }
	static cublasStatus_t call(cublasHandle_t h, const Call &x, float *const *d)
	{
		float al = (float)x.alpha, be = (float)x.beta;
		cublasOperation_t ta = x.ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb = x.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
		if (x.op == GEMM)
			return cublasSgemm(h, ta, tb, x.m, x.n, x.k, &al, d[x.a], x.lda, d[x.b], x.ldb, &be, d[x.c], x.ldc);
		if (x.op == SYRK)
			return cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, ta, x.n, x.k, &al, d[x.a], x.lda, &be, d[x.c], x.ldc);
		return cublasSsyr2k(h, CUBLAS_FILL_MODE_LOWER, ta, x.n, x.k, &al, d[x.a], x.lda, d[x.b], x.ldb, &be,
				    d[x.c], x.ldc);
	}
};
template <> struct Blas<double> {
	static const char *name() { return "double"; }
	static cublasStatus_t call(cublasHandle_t h, const Call &x, double *const *d)
	{
		double al = x.alpha, be = x.beta;
		cublasOperation_t ta = x.ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb = x.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
		if (x.op == GEMM)
			return cublasDgemm(h, ta, tb, x.m, x.n, x.k, &al, d[x.a], x.lda, d[x.b], x.ldb, &be, d[x.c], x.ldc);
		if (x.op == SYRK)
			return cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, ta, x.n, x.k, &al, d[x.a], x.lda, &be, d[x.c], x.ldc);
		return cublasDsyr2k(h, CUBLAS_FILL_MODE_LOWER, ta, x.n, x.k, &al, d[x.a], x.lda, d[x.b], x.ldb, &be,
				    d[x.c], x.ldc);
	}
};

double now()
{
	struct timeval tv;
	gettimeofday(&tv, nullptr);
	return tv.tv_sec + tv.tv_usec * 1.0e-6;
}

std::string jstr(const std::string &s)
{
	std::string o = "\"";
	for (char c : s) {
		if (c == '"' || c == '\\')
			o += '\\';
		o += c;
	}
	return o + "\"";
}

std::string jnum(double x)
{
	char b[64];
	snprintf(b, sizeof b, "%.9g", x);
	return b;
}

std::string head(const Plan &p, const char *type)
{
	std::string o = "{\"cublas_ref\": " + jstr(p.kind) + ", \"type\": " + jstr(type) + ", \"dims\": {";
	for (size_t i = 0; i < p.dims.size(); i++)
		o += (i ? ", " : "") + jstr(p.dimnames[i]) + ": " + std::to_string(p.dims[i]);
	return o + "}";
}

std::string calls_json(const std::vector<Call> &cs)
{
	std::string o = "[";
	for (size_t i = 0; i < cs.size(); i++)
		o += (i ? ", " : "") + jstr(cs[i].what);
	return o + "]";
}

int fail_line(const Plan &p, const char *type, const std::string &why)
{
	printf("%s, \"error\": %s}\n", head(p, type).c_str(), jstr(why).c_str());
	fprintf(stderr, "cublas-ref: %s\n", why.c_str());
	return 3;
}

/* Device buffers for the plan's arrays, filled from HOST. */
template <typename T> struct Device {
	std::vector<T *> d;
	std::string err;
	Device(const std::vector<std::vector<T>> &host)
	{
		for (const std::vector<T> &h : host) {
			T *p = nullptr;
			cudaError_t e = cudaMalloc(&p, h.size() * sizeof(T));
			if (e == cudaSuccess)
				e = cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
			if (e != cudaSuccess && err.empty())
				err = std::string("cudaMalloc/cudaMemcpy: ") + cudaGetErrorString(e);
			d.push_back(p);
		}
	}
	~Device()
	{
		for (T *p : d)
			cudaFree(p);
	}
};

template <typename T> std::string run_calls(cublasHandle_t h, const std::vector<Call> &cs, const Device<T> &dev)
{
	for (const Call &x : cs) {
		cublasStatus_t st = Blas<T>::call(h, x, dev.d.data());
		if (st != CUBLAS_STATUS_SUCCESS)
			return x.what + ": " + cublasGetStatusString(st);
	}
	return "";
}

/* Warm-up, then REPS runs, each: synchronize, clock, calls, synchronize,
 * clock.  Returns "" or the error. */
template <typename T>
std::string time_calls(cublasHandle_t h, const std::vector<Call> &cs, const Device<T> &dev, int reps, double &first,
		       double &median, double &best)
{
	std::vector<double> ts;
	for (int r = -1; r < reps; r++) {
		cudaError_t e = cudaDeviceSynchronize();
		if (e != cudaSuccess)
			return std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e);
		double t0 = now();
		std::string err = run_calls<T>(h, cs, dev);
		if (!err.empty())
			return err;
		e = cudaDeviceSynchronize();
		double t1 = now();
		if (e != cudaSuccess)
			return std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e);
		if (r < 0)
			first = t1 - t0;
		else
			ts.push_back(t1 - t0);
	}
	std::sort(ts.begin(), ts.end());
	best = ts[0];
	median = ts.size() % 2 ? ts[ts.size() / 2] : (ts[ts.size() / 2 - 1] + ts[ts.size() / 2]) / 2;
	return "";
}

template <typename T> std::vector<std::vector<T>> inputs(const Plan &p)
{
	std::vector<std::vector<T>> v;
	unsigned long long s = 88172645463325252ULL;
	for (size_t a = 0; a < p.names.size(); a++) {
		std::vector<T> x(p.lens[a]);
		for (T &e : x) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			e = (T)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0); /* [-1, 1) */
		}
		v.push_back(x);
	}
	return v;
}

std::string setup_error(cublasHandle_t *h, std::string &device)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess)
		return std::string("no CUDA device: cudaGetDeviceCount: ") + cudaGetErrorString(e);
	if (n == 0)
		return "no CUDA device";
	cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
		device = prop.name;
	cublasStatus_t st = cublasCreate(h);
	if (st != CUBLAS_STATUS_SUCCESS)
		return std::string("cublasCreate: ") + cublasGetStatusString(st);
	cublasSetMathMode(*h, CUBLAS_DEFAULT_MATH);
	return "";
}

/* Compare the calls' result (on the GPU, or on the host with HOST) with
 * the CPU's; prints the line, returns the exit status. */
template <typename T> int check(const Plan &p, bool host)
{
	const char *type = Blas<T>::name();
	std::vector<std::vector<T>> in = inputs<T>(p);
	std::vector<std::vector<double>> ref, mag;
	for (const std::vector<T> &x : in)
		ref.emplace_back(x.begin(), x.end());
	mag = ref;
	cpu_reference(p, ref, false);
	cpu_reference(p, mag, true);
	double eps = sizeof(T) == 4 ? FLT_EPSILON : DBL_EPSILON;
	double tol = 4.0 * eps * (double)(p.ksum + 2);
	std::string out = head(p, type) + ", \"check\": " + jstr(host ? "host BLAS" : "cuBLAS") +
			  ", \"against\": \"the kernels' loops on the CPU, in double\", \"tol\": " + jnum(tol);
	bool ok = true;
	for (int pass = 0; pass < (p.triangle.empty() ? 1 : 2); pass++) {
		const std::vector<Call> &cs = pass ? p.triangle : p.full;
		std::vector<std::vector<T>> got = in;
		if (host) {
			for (const Call &x : cs)
				host_call<T>(x, got);
		} else {
			cublasHandle_t h;
			std::string device, err = setup_error(&h, device);
			if (!err.empty())
				return fail_line(p, type, err);
			{
				Device<T> dev(in);
				if (!dev.err.empty())
					return fail_line(p, type, dev.err);
				err = run_calls<T>(h, cs, dev);
				cudaError_t e = cudaDeviceSynchronize();
				if (err.empty() && e != cudaSuccess)
					err = std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e);
				for (size_t a = 0; err.empty() && a < got.size(); a++)
					if (p.is_output[a] &&
					    cudaMemcpy(got[a].data(), dev.d[a], got[a].size() * sizeof(T),
						       cudaMemcpyDeviceToHost) != cudaSuccess)
						err = "cudaMemcpy back failed";
			}
			cublasDestroy(h);
			if (!err.empty())
				return fail_line(p, type, err);
		}
		/* row-major elements; the triangle routines fill the upper one (i <= j) */
		long rows = (long)p.dims[0], cols = (long)(p.lens[p.out] / (size_t)rows);
		double worst = 0;
		long bad = 0, compared = 0, first_bad = -1;
		for (long i = 0; i < rows; i++)
			for (long j = pass ? i : 0; j < cols; j++) {
				long e = i * cols + j;
				double err = std::fabs((double)got[p.out][e] - ref[p.out][e]) / std::max(mag[p.out][e], DBL_MIN);
				compared++;
				if (err > worst)
					worst = err;
				if (!(err <= tol)) {
					if (first_bad < 0)
						first_bad = e;
					bad++;
				}
			}
		out += std::string(pass ? ", \"triangle\": " : ", \"full\": ") + "{\"calls\": " + calls_json(cs) +
		       ", \"output\": " + jstr(p.names[p.out]) + ", \"compared\": " + std::to_string(compared) +
		       ", \"wrong\": " + std::to_string(bad) + ", \"max_err\": " + jnum(worst);
		if (first_bad >= 0) {
			out += ", \"first_wrong\": {\"row\": " + std::to_string(first_bad / cols) +
			       ", \"col\": " + std::to_string(first_bad % cols) + ", \"got\": " +
			       jnum((double)got[p.out][first_bad]) + ", \"expected\": " + jnum(ref[p.out][first_bad]) + "}";
		}
		out += "}";
		if (bad)
			ok = false;
	}
	printf("%s, \"ok\": %s}\n", out.c_str(), ok ? "true" : "false");
	if (!ok)
		fprintf(stderr, "cublas-ref: %s: the result differs from the CPU's\n", p.kind.c_str());
	return ok ? 0 : 1;
}

template <typename T> int timed(const Plan &p, int reps)
{
	const char *type = Blas<T>::name();
	cublasHandle_t h;
	std::string device, err = setup_error(&h, device);
	if (!err.empty())
		return fail_line(p, type, err);
	double first = 0, med = 0, best = 0, tfirst = 0, tmed = 0, tbest = 0;
	{
		Device<T> dev(inputs<T>(p));
		if (!dev.err.empty())
			err = dev.err;
		if (err.empty())
			err = time_calls<T>(h, p.full, dev, reps, first, med, best);
		if (err.empty() && !p.triangle.empty())
			err = time_calls<T>(h, p.triangle, dev, reps, tfirst, tmed, tbest);
	}
	cublasDestroy(h);
	if (!err.empty())
		return fail_line(p, type, err);
	std::string o = head(p, type) + ", \"device\": " + jstr(device) + ", \"calls\": " + calls_json(p.full) +
			", \"seconds\": " + jnum(med) + ", \"best_s\": " + jnum(best) + ", \"first_s\": " + jnum(first) +
			", \"reps\": " + std::to_string(reps) + ", \"flop\": " + jnum(p.flop) +
			", \"gflops\": " + jnum(p.flop / med / 1e9);
	if (!p.triangle.empty())
		o += ", \"triangle\": {\"calls\": " + calls_json(p.triangle) + ", \"seconds\": " + jnum(tmed) +
		     ", \"best_s\": " + jnum(tbest) + ", \"first_s\": " + jnum(tfirst) + ", \"flop\": " + jnum(p.tri_flop) +
		     "}";
	o += ", \"math_mode\": \"CUBLAS_DEFAULT_MATH\", \"timing\": \"gettimeofday around the calls and "
	     "cudaDeviceSynchronize, after one warm-up run (first_s); seconds: the median of reps runs, best_s: "
	     "the least\"}";
	printf("%s\n", o.c_str());
	return 0;
}

int usage(const char *why)
{
	if (why)
		fprintf(stderr, "cublas-ref: %s\n", why);
	fprintf(stderr, "usage: cublas-ref KIND DIM... [--type float|double] [--reps N] [--check | --check-host]\n"
			"kinds:");
	for (const Kind &k : KINDS) {
		fprintf(stderr, " %s", k.name);
		for (const char *d : k.dims)
			fprintf(stderr, " %s", d);
		fprintf(stderr, ";");
	}
	fprintf(stderr, "\n");
	return 2;
}

} /* namespace */

int main(int argc, char **argv)
{
	const Kind *kind = nullptr;
	std::vector<long> dims;
	std::string type = "float";
	int reps = 20;
	bool chk = false, chk_host = false;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--type" && i + 1 < argc) {
			type = argv[++i];
			if (type != "float" && type != "double")
				return usage(("--type " + type + ": float or double").c_str());
		} else if (a == "--reps" && i + 1 < argc) {
			char *end;
			long r = strtol(argv[++i], &end, 10);
			if (*end || r < 1 || r > 100000)
				return usage("--reps: a count from 1 to 100000");
			reps = (int)r;
		} else if (a == "--check") {
			chk = true;
		} else if (a == "--check-host") {
			chk_host = true;
		} else if (a == "-h" || a == "--help") {
			usage(nullptr);
			return 0;
		} else if (a.size() > 1 && a[0] == '-') {
			return usage(("unknown option " + a).c_str());
		} else if (!kind) {
			kind = find_kind(a.c_str());
			if (!kind)
				return usage(("unknown kind " + a).c_str());
		} else {
			char *end;
			long v = strtol(a.c_str(), &end, 10);
			if (*end || v < 1 || v > (1L << 20))
				return usage(("size " + a + ": a whole number from 1 to 1048576").c_str());
			dims.push_back(v);
		}
	}
	if (!kind)
		return usage("no kind");
	if (dims.empty() && (chk || chk_host))
		dims = kind->check_dims;
	if (dims.size() != kind->dims.size())
		return usage((std::string(kind->name) + " takes " + std::to_string(kind->dims.size()) + " sizes, not " +
			      std::to_string(dims.size()))
				     .c_str());
	bool dbl = type == "double";
	Plan p = make_plan(*kind, dims, dbl ? 'D' : 'S');
	if (chk_host)
		return dbl ? check<double>(p, true) : check<float>(p, true);
	if (chk)
		return dbl ? check<double>(p, false) : check<float>(p, false);
	return dbl ? timed<double>(p, reps) : timed<float>(p, reps);
}
