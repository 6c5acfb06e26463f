/*
 * helpers.c - definitions of the __device__ helpers rewritten kernels call
 * (see helpers.h).  The text is CUDA C++17: `if constexpr` picks the access
 * width at compile time.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/buf.h"
#include "rules/helpers.h"

static const char *const combine_names[COMBINE__COUNT] = { "sum", "fmaxf", "fminf", "max", "min" };

const char *astra_combine_name(enum astra_combine c)
{
	return combine_names[c];
}

void astra_combine_expr(enum astra_combine c, const char *a, const char *b, struct astra_buf *out)
{
	if (c == COMBINE_SUM)
		astra_buf_addf(out, "%s + %s", a, b);
	else
		astra_buf_addf(out, "%s(%s, %s)", combine_names[c], a, b);
}

/* Replace every "@" in tmpl by the placeholder suffix, append to out. */
static void add_tmpl(struct astra_buf *out, const char *tmpl)
{
	for (; *tmpl; tmpl++) {
		if (*tmpl == '@')
			astra_buf_adds(out, ASTRA_SFX);
		else
			astra_buf_addch(out, *tmpl);
	}
}

static const char vec_text[] =
	"/* astra-cc rules: vector access of BYTES bytes (a power of two; 16-byte pieces above 16) */\n"
	"template <int BYTES>\n"
	"__device__ __forceinline__ void astra_@_ld(void *dst, const void *src)\n"
	"{\n"
	"\tif constexpr (BYTES >= 16) {\n"
	"#pragma unroll\n"
	"\t\tfor (int k = 0; k < BYTES / 16; ++k)\n"
	"\t\t\treinterpret_cast<uint4 *>(dst)[k] = reinterpret_cast<const uint4 *>(src)[k];\n"
	"\t} else if constexpr (BYTES == 8) {\n"
	"\t\t*reinterpret_cast<uint2 *>(dst) = *reinterpret_cast<const uint2 *>(src);\n"
	"\t} else if constexpr (BYTES == 4) {\n"
	"\t\t*reinterpret_cast<unsigned *>(dst) = *reinterpret_cast<const unsigned *>(src);\n"
	"\t} else if constexpr (BYTES == 2) {\n"
	"\t\t*reinterpret_cast<unsigned short *>(dst) = *reinterpret_cast<const unsigned short *>(src);\n"
	"\t} else {\n"
	"\t\t*reinterpret_cast<unsigned char *>(dst) = *reinterpret_cast<const unsigned char *>(src);\n"
	"\t}\n"
	"}\n"
	"\n"
	"template <int BYTES>\n"
	"__device__ __forceinline__ void astra_@_ldg(void *dst, const void *src)\n"
	"{\n"
	"\tif constexpr (BYTES >= 16) {\n"
	"#pragma unroll\n"
	"\t\tfor (int k = 0; k < BYTES / 16; ++k)\n"
	"\t\t\treinterpret_cast<uint4 *>(dst)[k] = __ldg(reinterpret_cast<const uint4 *>(src) + k);\n"
	"\t} else if constexpr (BYTES == 8) {\n"
	"\t\t*reinterpret_cast<uint2 *>(dst) = __ldg(reinterpret_cast<const uint2 *>(src));\n"
	"\t} else if constexpr (BYTES == 4) {\n"
	"\t\t*reinterpret_cast<unsigned *>(dst) = __ldg(reinterpret_cast<const unsigned *>(src));\n"
	"\t} else if constexpr (BYTES == 2) {\n"
	"\t\t*reinterpret_cast<unsigned short *>(dst) = __ldg(reinterpret_cast<const unsigned short *>(src));\n"
	"\t} else {\n"
	"\t\t*reinterpret_cast<unsigned char *>(dst) = __ldg(reinterpret_cast<const unsigned char *>(src));\n"
	"\t}\n"
	"}\n"
	"\n"
	"template <int BYTES>\n"
	"__device__ __forceinline__ void astra_@_st(void *dst, const void *src)\n"
	"{\n"
	"\tif constexpr (BYTES >= 16) {\n"
	"#pragma unroll\n"
	"\t\tfor (int k = 0; k < BYTES / 16; ++k)\n"
	"\t\t\treinterpret_cast<uint4 *>(dst)[k] = reinterpret_cast<const uint4 *>(src)[k];\n"
	"\t} else if constexpr (BYTES == 8) {\n"
	"\t\t*reinterpret_cast<uint2 *>(dst) = *reinterpret_cast<const uint2 *>(src);\n"
	"\t} else if constexpr (BYTES == 4) {\n"
	"\t\t*reinterpret_cast<unsigned *>(dst) = *reinterpret_cast<const unsigned *>(src);\n"
	"\t} else if constexpr (BYTES == 2) {\n"
	"\t\t*reinterpret_cast<unsigned short *>(dst) = *reinterpret_cast<const unsigned short *>(src);\n"
	"\t} else {\n"
	"\t\t*reinterpret_cast<unsigned char *>(dst) = *reinterpret_cast<const unsigned char *>(src);\n"
	"\t}\n"
	"}\n"
	"\n"
	"__device__ __forceinline__ bool astra_@_al(const void *p, unsigned long long align)\n"
	"{\n"
	"\treturn (reinterpret_cast<unsigned long long>(p) & (align - 1)) == 0;\n"
	"}\n\n";

static const char tanh_text[] =
	"/* astra-cc rules: hardware tanh approximation (sm_75 and later) */\n"
	"__device__ __forceinline__ float astra_@_tanh(float x)\n"
	"{\n"
	"\tfloat y;\n"
	"\tasm(\"tanh.approx.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n"
	"\treturn y;\n"
	"}\n\n";

static void add_warp(struct astra_buf *out, enum astra_combine c)
{
	struct astra_buf comb = ASTRA_BUF_INIT;
	astra_combine_expr(c, "v", "__shfl_xor_sync(0xffffffffu, v, o)", &comb);
	add_tmpl(out, "/* astra-cc rules: all-reduce over a full warp; every lane gets the result */\n"
		      "template <typename T>\n"
		      "__device__ __forceinline__ T astra_@_wred_");
	astra_buf_addf(out, "%s(T v)\n{\n#pragma unroll\n\tfor (int o = 16; o > 0; o >>= 1)\n\t\tv = %s;\n\treturn v;\n}\n\n",
		       combine_names[c], comb.buf);
	astra_buf_release(&comb);
}

static void add_block(struct astra_buf *out, enum astra_combine c)
{
	struct astra_buf c1 = ASTRA_BUF_INIT, c2 = ASTRA_BUF_INIT;
	astra_combine_expr(c, "v", "u", &c1);
	astra_combine_expr(c, "v", "w[k]", &c2);
	add_tmpl(out, "/*\n"
		      " * astra-cc rules: all-reduce over a 1-D block of any size; every thread gets\n"
		      " * the same value.  Each warp reduces its own lanes (a partial last warp\n"
		      " * included), then every thread combines the per-warp partials in one order.\n"
		      " * fenced: the caller puts a barrier between a call and the next, so the\n"
		      " * barrier that keeps this call from overwriting partials the previous one\n"
		      " * is still reading is not needed.\n"
		      " */\n"
		      "template <typename T>\n"
		      "__device__ __forceinline__ T astra_@_bred_");
	astra_buf_addf(out,
		       "%s(T v, bool fenced = false)\n"
		       "{\n"
		       "\t__shared__ T w[32];\n"
		       "\tconst unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;\n"
		       "\tconst unsigned nw = (blockDim.x + 31u) >> 5;\n"
		       "\tunsigned n = blockDim.x - (wid << 5);\n"
		       "\tif (n > 32u)\n"
		       "\t\tn = 32u;\n"
		       "\tconst unsigned mask = n == 32u ? 0xffffffffu : ((1u << n) - 1u);\n"
		       "#pragma unroll\n"
		       "\tfor (unsigned o = 16; o > 0; o >>= 1) {\n"
		       "\t\tT u = __shfl_down_sync(mask, v, o);\n"
		       "\t\tif (lane + o < n)\n"
		       "\t\t\tv = %s;\n"
		       "\t}\n"
		       "\tif (!fenced)\n"
		       "\t\t__syncthreads(); /* w may still be read by the previous call */\n"
		       "\tif (lane == 0)\n"
		       "\t\tw[wid] = v;\n"
		       "\t__syncthreads();\n"
		       "\tv = w[0];\n"
		       "\tfor (unsigned k = 1; k < nw; ++k)\n"
		       "\t\tv = %s;\n"
		       "\treturn v;\n"
		       "}\n\n",
		       combine_names[c], c1.buf, c2.buf);
	astra_buf_release(&c1);
	astra_buf_release(&c2);
}

static const char h2_text[] =
	"/* astra-cc rules: N conversions between T and float (pairwise overloads below) */\n"
	"template <int N, typename T>\n"
	"__device__ __forceinline__ void astra_@_unpack(float *d, const T *s)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < N; ++i)\n"
	"\t\td[i] = (float)s[i];\n"
	"}\n\n"
	"template <int N, typename T>\n"
	"__device__ __forceinline__ void astra_@_pack(T *d, const float *s)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < N; ++i)\n"
	"\t\td[i] = (T)s[i];\n"
	"}\n\n";

static const char h2_half_text[] =
	"template <int N>\n"
	"__device__ __forceinline__ void astra_@_unpack(float *d, const __half *s)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < N; i += 2) {\n"
	"\t\tconst float2 f = __half22float2(*reinterpret_cast<const __half2 *>(s + i));\n"
	"\t\td[i] = f.x;\n"
	"\t\td[i + 1] = f.y;\n"
	"\t}\n"
	"}\n\n"
	"template <int N>\n"
	"__device__ __forceinline__ void astra_@_pack(__half *d, const float *s)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < N; i += 2)\n"
	"\t\t*reinterpret_cast<__half2 *>(d + i) = __floats2half2_rn(s[i], s[i + 1]);\n"
	"}\n\n";

static const char h2_bf16_text[] =
	"template <int N>\n"
	"__device__ __forceinline__ void astra_@_unpack(float *d, const __nv_bfloat16 *s)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < N; i += 2) {\n"
	"\t\tconst float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(s + i));\n"
	"\t\td[i] = f.x;\n"
	"\t\td[i + 1] = f.y;\n"
	"\t}\n"
	"}\n\n"
	"template <int N>\n"
	"__device__ __forceinline__ void astra_@_pack(__nv_bfloat16 *d, const float *s)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < N; i += 2)\n"
	"\t\t*reinterpret_cast<__nv_bfloat162 *>(d + i) = __floats2bfloat162_rn(s[i], s[i + 1]);\n"
	"}\n\n";

static const char argmax_text[] =
	"/*\n"
	" * astra-cc rules: argmax of (value, index) pairs; index < 0 means none.\n"
	" * The larger value wins, the smaller index on a tie: the first maximum.\n"
	" */\n"
	"template <typename T, typename I>\n"
	"__device__ __forceinline__ void astra_@_argmax2(T &v, I &i, T ov, I oi)\n"
	"{\n"
	"\tif (oi >= 0 && (i < 0 || ov > v || (ov == v && oi < i))) {\n"
	"\t\tv = ov;\n"
	"\t\ti = oi;\n"
	"\t}\n"
	"}\n\n";

static const char wargmax_text[] =
	"/* astra-cc rules: argmax over a full warp; every lane gets the result */\n"
	"template <typename T, typename I>\n"
	"__device__ __forceinline__ void astra_@_wargmax(T &v, I &i)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int o = 16; o > 0; o >>= 1) {\n"
	"\t\tconst T ov = __shfl_xor_sync(0xffffffffu, v, o);\n"
	"\t\tconst I oi = __shfl_xor_sync(0xffffffffu, i, o);\n"
	"\t\tastra_@_argmax2(v, i, ov, oi);\n"
	"\t}\n"
	"}\n\n";

static const char bargmax_text[] =
	"/* astra-cc rules: argmax over a 1-D block of any size; every thread gets the result */\n"
	"template <typename T, typename I>\n"
	"__device__ __forceinline__ void astra_@_bargmax(T &v, I &i)\n"
	"{\n"
	"\t__shared__ T wv[32];\n"
	"\t__shared__ I wi[32];\n"
	"\tconst unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;\n"
	"\tconst unsigned nw = (blockDim.x + 31u) >> 5;\n"
	"\tunsigned n = blockDim.x - (wid << 5);\n"
	"\tif (n > 32u)\n"
	"\t\tn = 32u;\n"
	"\tconst unsigned mask = n == 32u ? 0xffffffffu : ((1u << n) - 1u);\n"
	"#pragma unroll\n"
	"\tfor (unsigned o = 16; o > 0; o >>= 1) {\n"
	"\t\tconst T ov = __shfl_down_sync(mask, v, o);\n"
	"\t\tconst I oi = __shfl_down_sync(mask, i, o);\n"
	"\t\tif (lane + o < n)\n"
	"\t\t\tastra_@_argmax2(v, i, ov, oi);\n"
	"\t}\n"
	"\t__syncthreads();\n"
	"\tif (lane == 0) {\n"
	"\t\twv[wid] = v;\n"
	"\t\twi[wid] = i;\n"
	"\t}\n"
	"\t__syncthreads();\n"
	"\tv = wv[0];\n"
	"\ti = wi[0];\n"
	"\tfor (unsigned k = 1; k < nw; ++k)\n"
	"\t\tastra_@_argmax2(v, i, wv[k], wi[k]);\n"
	"}\n\n";

static const char online_text[] =
	"/*\n"
	" * astra-cc rules: two (maximum, sum of exp(x - maximum)) pairs as one; a\n"
	" * pair with no terms (sum 0) adds nothing.\n"
	" */\n"
	"__device__ __forceinline__ void astra_@_online2(float &m, float &s, float om, float os)\n"
	"{\n"
	"\tconst float mn = fmaxf(m, om);\n"
	"\tconst float a = s != 0.0f ? s * expf(m - mn) : 0.0f;\n"
	"\tconst float b = os != 0.0f ? os * expf(om - mn) : 0.0f;\n"
	"\tm = mn;\n"
	"\ts = a + b;\n"
	"}\n\n";

static const char wonline_text[] =
	"/* astra-cc rules: the online softmax's pairs merged over a full warp; every lane gets the result */\n"
	"__device__ __forceinline__ void astra_@_wonline(float &m, float &s)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int o = 16; o > 0; o >>= 1) {\n"
	"\t\tconst float om = __shfl_xor_sync(0xffffffffu, m, o);\n"
	"\t\tconst float os = __shfl_xor_sync(0xffffffffu, s, o);\n"
	"\t\tastra_@_online2(m, s, om, os);\n"
	"\t}\n"
	"}\n\n";

static const char bonline_text[] =
	"/* astra-cc rules: the online softmax's pairs merged over a 1-D block of any size; every thread gets the result */\n"
	"__device__ __forceinline__ void astra_@_bonline(float &m, float &s)\n"
	"{\n"
	"\t__shared__ float wm[32], ws[32];\n"
	"\tconst unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;\n"
	"\tconst unsigned nw = (blockDim.x + 31u) >> 5;\n"
	"\tunsigned n = blockDim.x - (wid << 5);\n"
	"\tif (n > 32u)\n"
	"\t\tn = 32u;\n"
	"\tconst unsigned mask = n == 32u ? 0xffffffffu : ((1u << n) - 1u);\n"
	"#pragma unroll\n"
	"\tfor (unsigned o = 16; o > 0; o >>= 1) {\n"
	"\t\tconst float om = __shfl_down_sync(mask, m, o);\n"
	"\t\tconst float os = __shfl_down_sync(mask, s, o);\n"
	"\t\tif (lane + o < n)\n"
	"\t\t\tastra_@_online2(m, s, om, os);\n"
	"\t}\n"
	"\t__syncthreads(); /* wm, ws may still be read by the previous call */\n"
	"\tif (lane == 0) {\n"
	"\t\twm[wid] = m;\n"
	"\t\tws[wid] = s;\n"
	"\t}\n"
	"\t__syncthreads();\n"
	"\tm = wm[0];\n"
	"\ts = ws[0];\n"
	"\tfor (unsigned k = 1; k < nw; ++k)\n"
	"\t\tastra_@_online2(m, s, wm[k], ws[k]);\n"
	"}\n\n";

void astra_helpers_text(unsigned set, struct astra_buf *out)
{
	int c;
	if (set & HELPER_VEC)
		add_tmpl(out, vec_text);
	if (set & HELPER_H2)
		add_tmpl(out, h2_text);
	if (set & HELPER_H2_HALF)
		add_tmpl(out, h2_half_text);
	if (set & HELPER_H2_BF16)
		add_tmpl(out, h2_bf16_text);
	if (set & HELPER_TANH)
		add_tmpl(out, tanh_text);
	if (set & (HELPER_WARGMAX | HELPER_BARGMAX))
		add_tmpl(out, argmax_text);
	if (set & HELPER_WARGMAX)
		add_tmpl(out, wargmax_text);
	if (set & HELPER_BARGMAX)
		add_tmpl(out, bargmax_text);
	if (set & (HELPER_WONLINE | HELPER_BONLINE))
		add_tmpl(out, online_text);
	if (set & HELPER_WONLINE)
		add_tmpl(out, wonline_text);
	if (set & HELPER_BONLINE)
		add_tmpl(out, bonline_text);
	for (c = 0; c < COMBINE__COUNT; c++)
		if (set & HELPER_WARP_OF(c))
			add_warp(out, (enum astra_combine)c);
	for (c = 0; c < COMBINE__COUNT; c++)
		if (set & HELPER_BLOCK_OF(c))
			add_block(out, (enum astra_combine)c);
}
