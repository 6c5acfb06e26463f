/*
 * capture-rt.cuh - the fixed part of a capture build's generated code: the
 * recorder that every generated capture launcher calls (doc/capture.md).
 *
 * A capture build (passes/capture.c) puts this text at the top of the
 * rewritten translation unit, once, and after each annotated kernel a
 * launcher that hands every launch to a __astra_cap::Launch before
 * launching the kernel exactly as the site asked.  astra-cc embeds the file
 * as a C string at build time (passes/local.mk); it is kept as a real file
 * so that it is read and compiled as CUDA C++.
 *
 * What one launch costs: the bytes of its scalar arguments and its
 * geometry are hashed into the shape's identity and counted in a small
 * table under a mutex; no CUDA call is made.  The first launch of a new
 * shape is inspected: each pointer argument's allocation is looked up
 * (cuMemGetAddressRange, through the runtime's driver entry point, so that
 * the program needs no -lcuda) and its footprint bounded (to the next
 * pointer argument into the same allocation, a pool), and, unless the
 * stream is being captured into a graph, the stream is synchronized (in
 * the relaxed capture mode, so that another thread's graph capture is not
 * invalidated), each footprint is hashed per chunk on the device by
 * __astra_cap_sums (with capture_data, copied to the host instead, hashed
 * and written to a data object while the per-kernel budget lasts, smallest
 * buffers first), the kernel is launched, the stream synchronized again
 * and the buffers hashed again: a changed hash means the launch wrote the
 * buffer, and the last changed chunk where its footprint ends.  Only
 * launches the runtime accepted are counted (cudaPeekAtLastError after
 * the launch, which leaves the error to the program).
 *
 * The records are JSON (cache/capture.h has the schema), one file per
 * process and target, written atomically next to the capture object whose
 * path the build gave: when a new shape appears, when the launch count
 * reaches 1024, 2048, 4096, ..., and at exit.  ASTRA_CC_CAPTURE=0 in the
 * program's environment turns recording off (the launcher then only
 * launches).  Nothing here may change what the program computes: every
 * failure (no space, no allocation found) only loses information.
 *
 * Everything is in namespace __astra_cap with internal linkage, so that
 * translation units built at different times never share a definition.
 */
#ifndef __ASTRA_CAPTURE_RT
#define __ASTRA_CAPTURE_RT 1

#include <cuda_runtime.h>
#include <cxxabi.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace __astra_cap {
namespace {

/* ---------------------------------------------------------------- setup */

/* One parameter of the kernel, as the signature writes it. */
struct Param {
	const char *name;
	int pointer;
	const char *type;
	const char *elem;   /* pointers: the element type; else "" */
};

/* One target of the build: where its records go. */
struct Target {
	const char *key;
	int cc;
	const char *prefix; /* path of "<key>-<cc>.capture" */
	int device_only;    /* nvcc's default target: recorded only where the device is of this cc */
};

struct Limits {
	int max_shapes;         /* distinct shapes recorded per kernel */
	int data;               /* keep the inputs of new shapes */
	long long data_max;     /* bytes of inputs per kernel */
};

static bool enabled()
{
	static int on = -1;
	if (on < 0) {
		const char *e = getenv("ASTRA_CC_CAPTURE");
		on = !(e && (!strcmp(e, "0") || !strcasecmp(e, "false") || !strcasecmp(e, "no") ||
			     !strcasecmp(e, "off")));
	}
	return on != 0;
}

/* FNV-1a, 64 bits: identities and checksums (no dependency, deterministic). */
static inline uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = (const unsigned char *)p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 1099511628211ULL;
	}
	return h;
}
static const uint64_t FNV0 = 14695981039346656037ULL;

static std::string hex64(uint64_t v)
{
	char b[17];
	snprintf(b, sizeof(b), "%016llx", (unsigned long long)v);
	return b;
}

static void json_str(std::string &o, const char *s)
{
	o += '"';
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			o += '\\';
			o += (char)c;
		} else if (c < 0x20) {
			char b[8];
			snprintf(b, sizeof(b), "\\u%04x", c);
			o += b;
		} else {
			o += (char)c;
		}
	}
	o += '"';
}

/* ------------------------------------------------------- template arguments */

/* A type's name as C++ writes it, or "" when it cannot be written back. */
template <class T> static std::string type_name()
{
	int st = 0;
	char *d = abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &st);
	std::string s = st == 0 && d ? d : "";
	free(d);
	if (s.find("(anonymous namespace)") != std::string::npos || s.find('{') != std::string::npos)
		s.clear();
	if (std::is_const<T>::value)
		s = s.empty() ? s : "const " + s;
	return s;
}

template <class T>
static typename std::enable_if<std::is_integral<T>::value, std::string>::type value_text(T v)
{
	char b[48];
	if (std::is_same<T, bool>::value)
		return v ? "true" : "false";
	if (std::is_signed<T>::value)
		snprintf(b, sizeof(b), "%lld", (long long)v);
	else
		snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	return b;
}
template <class T>
static typename std::enable_if<std::is_enum<T>::value, std::string>::type value_text(T v)
{
	std::string t = type_name<T>();
	if (t.empty())
		return "";
	return "(" + t + ")" + value_text((typename std::underlying_type<T>::type)v);
}
template <class T>
static typename std::enable_if<!std::is_integral<T>::value && !std::is_enum<T>::value, std::string>::type
value_text(T)
{
	return "";
}

/* The instantiation a launch is of: template arguments as JSON, and their hash. */
struct Inst {
	std::string json;
	uint64_t hash;
	Inst() : json("[]"), hash(FNV0) {}
	Inst &arg(const char *name, const std::string &value)
	{
		if (json.size() > 2)
			json.insert(json.size() - 1, ",");
		std::string one = "{\"name\":";
		json_str(one, name);
		one += ",\"value\":";
		if (value.empty())
			one += "null";
		else
			json_str(one, value.c_str());
		one += "}";
		json.insert(json.size() - 1, one);
		hash = fnv(hash, json.data(), json.size());
		return *this;
	}
};

/* ---------------------------------------------------------- scalars */

template <class T> struct Kind {
	static const char *get()
	{
		if (std::is_same<T, bool>::value)
			return "bool";
		if (std::is_integral<T>::value || std::is_enum<T>::value)
			return std::is_signed<T>::value || std::is_enum<T>::value ? "int" : "uint";
		if (std::is_same<T, float>::value)
			return "f32";
		if (std::is_same<T, double>::value)
			return "f64";
		return "bytes";
	}
};

template <class T>
static typename std::enable_if<std::is_floating_point<T>::value, std::string>::type scalar_text(const T &v)
{
	char b[64];
	snprintf(b, sizeof(b), "%a", (double)v);
	return b;
}
template <class T>
static typename std::enable_if<std::is_integral<T>::value, std::string>::type scalar_text(const T &v)
{
	return value_text(v);
}
template <class T>
static typename std::enable_if<std::is_enum<T>::value, std::string>::type scalar_text(const T &v)
{
	return value_text((typename std::underlying_type<T>::type)v);
}
template <class T>
static typename std::enable_if<!std::is_arithmetic<T>::value && !std::is_enum<T>::value, std::string>::type
scalar_text(const T &)
{
	return "";
}

/* Element size of a pointer argument (void: bytes). */
template <class T> static size_t esize(T *) { return sizeof(T); }
static inline size_t esize(void *) { return 1; }
static inline size_t esize(const void *) { return 1; }
static inline size_t esize(volatile void *) { return 1; }
static inline size_t esize(const volatile void *) { return 1; }

/* ------------------------------------------------------- allocations */

typedef int (*range_fn)(unsigned long long *base, size_t *size, unsigned long long ptr);

/* cuMemGetAddressRange without linking the driver library: the runtime hands it out. */
static range_fn driver_range()
{
	static range_fn fn = nullptr;
	static bool asked = false;
	if (!asked) {
		void *p = nullptr;
		cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
		if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p, 12000, cudaEnableDefault, &q) !=
		    cudaSuccess)
			p = nullptr;
#else
		if (cudaGetDriverEntryPoint("cuMemGetAddressRange", &p, cudaEnableDefault, &q) != cudaSuccess)
			p = nullptr;
#endif
		(void)cudaGetLastError();
		fn = q == cudaDriverEntryPointSuccess ? (range_fn)p : nullptr;
		asked = true;
	}
	return fn;
}

/* The allocation p points into: base and size, or false. */
static bool allocation(const void *p, unsigned long long *base, size_t *size)
{
	range_fn fn = driver_range();
	if (!p || !fn)
		return false;
	*base = 0;
	*size = 0;
	if (fn(base, size, (unsigned long long)(uintptr_t)p) != 0) {
		(void)cudaGetLastError();
		return false;
	}
	return *size > 0;
}

/* ------------------------------------------------------- checksums */

/*
 * One hash per chunk of n bytes at p, on the device: thread c hashes
 * bytes [c * chunk, min((c + 1) * chunk, n)) into sums[c].  Bytes are read
 * one at a time where p or chunk is not 8-aligned.
 */
__global__ void __astra_cap_sums(const unsigned char *p, unsigned long long n, unsigned long long chunk,
				 unsigned long long nr, unsigned long long *sums)
{
	unsigned long long c = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= nr)
		return;
	unsigned long long at = c * chunk, end = at + chunk < n ? at + chunk : n, h = 14695981039346656037ULL;
	if (((uintptr_t)(p + at) & 7) == 0 && (chunk & 7) == 0) {
		for (; at + 8 <= end; at += 8) {
			h ^= *(const unsigned long long *)(p + at);
			h *= 1099511628211ULL;
			h ^= h >> 29;
		}
	}
	for (; at < end; at++) {
		h ^= p[at];
		h *= 1099511628211ULL;
	}
	sums[c] = h;
}

/* At most this many chunks per buffer: 8 MB of sums on the device, twice. */
static const unsigned long long MAXCHUNKS = 1ULL << 20;
static const unsigned long long MINCHUNK = 256;

static unsigned long long chunk_for(unsigned long long n)
{
	unsigned long long c = MINCHUNK;
	while ((n + c - 1) / c > MAXCHUNKS)
		c *= 2;
	return c;
}

/* ------------------------------------------------------------ files */

static void make_dirs(const std::string &file)
{
	size_t slash = file.rfind('/');
	if (slash == std::string::npos || slash == 0)
		return;
	std::string dir = file.substr(0, slash);
	if (mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST)
		return;
	if (errno == ENOENT) {
		make_dirs(dir);
		mkdir(dir.c_str(), 0755);
	}
}

static std::string base_name(const std::string &path)
{
	size_t slash = path.rfind('/');
	return slash == std::string::npos ? path : path.substr(slash + 1);
}

/* A file written as the cache writes its objects: a temporary file, then rename. */
class AtomicFile {
public:
	explicit AtomicFile(const std::string &path) : path_(path)
	{
		static unsigned counter;
		char b[64];
		snprintf(b, sizeof(b), ".tmp.%ld.%u", (long)getpid(), counter++);
		tmp_ = path + b;
		make_dirs(path);
		fd_ = open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	}
	~AtomicFile()
	{
		if (fd_ >= 0) {
			close(fd_);
			unlink(tmp_.c_str());
		}
	}
	bool ok() const { return fd_ >= 0; }
	bool write(const void *p, size_t n)
	{
		const char *c = (const char *)p;
		while (fd_ >= 0 && n) {
			ssize_t w = ::write(fd_, c, n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(fd_);
				unlink(tmp_.c_str());
				fd_ = -1;
				return false;
			}
			c += w;
			n -= (size_t)w;
		}
		return fd_ >= 0;
	}
	bool commit()
	{
		if (fd_ < 0)
			return false;
		bool ok = close(fd_) == 0 && rename(tmp_.c_str(), path_.c_str()) == 0;
		if (!ok)
			unlink(tmp_.c_str());
		fd_ = -1;
		return ok;
	}

private:
	std::string path_, tmp_;
	int fd_;
};

/* ------------------------------------------------------------ the table */

struct Buf {
	int index;
	size_t elem_size;
	long long count;    /* -1 unknown */
	bool null;
	int same_as;
	int written;        /* 1, 0, -1 unknown */
	long long to_end;   /* elements to the allocation's end, -1 unknown */
	const char *bound;  /* what ends count: "allocation", "argument" (the next pointer into it), "written" */
	std::string data;   /* object name (the first target's), or "" */
	long long data_bytes;
};

struct Scalar {
	int index;
	std::string text, hex;
	const char *kind;
};

struct Shape {
	uint64_t id;
	long long launches;
	std::string types;
	unsigned grid[3], block[3];
	size_t shmem;
	bool checked;
	std::vector<Scalar> scalars;
	std::vector<Buf> bufs;
};

class Kernel {
public:
	Kernel(const char *name, const Param *params, int nparams, const Target *targets, int ntargets, Limits lim)
		: name_(name), params_(params), nparams_(nparams), targets_(targets), ntargets_(ntargets), lim_(lim)
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		stamp_ = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
	}
	~Kernel()
	{
		std::lock_guard<std::mutex> g(mu_);
		if (dirty_)
			flush();
	}

	std::mutex mu_;
	const char *name_;
	const Param *params_;
	int nparams_;
	const Target *targets_;
	int ntargets_;
	Limits lim_;
	std::vector<Shape> shapes_;
	long long launches_ = 0, dropped_ = 0, failed_ = 0, data_used_ = 0, next_flush_ = 1024;
	unsigned long long stamp_;
	bool dirty_ = false;
	std::vector<unsigned char> stage_;  /* host staging for checksums and data */

	Shape *find(uint64_t id)
	{
		for (Shape &s : shapes_)
			if (s.id == id)
				return &s;
		return nullptr;
	}

	int device_cc_ = 0;  /* the device's, once a launch was made (0: not known) */

	/* Are target t's records this process's to write? */
	bool own(int t) const { return !targets_[t].device_only || targets_[t].cc == device_cc_; }
	/* The target whose name data objects are written under: the first of ours. */
	int data_target() const
	{
		for (int t = 0; t < ntargets_; t++)
			if (own(t))
				return t;
		return -1;
	}

	/*
	 * The device's compute capability, asked once a launch is about to be
	 * made with no error pending (so that an error of these calls, cleared
	 * here, is only ours).
	 */
	void ask_device()
	{
		int d = 0, major = 0, minor = 0;
		if (device_cc_)
			return;
		if (cudaGetDevice(&d) == cudaSuccess &&
		    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess &&
		    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d) == cudaSuccess)
			device_cc_ = major * 10 + minor;
		else
			(void)cudaGetLastError();
	}

	/* Write this process's records for every target (the lock is held). */
	void flush()
	{
		for (int t = 0; t < ntargets_; t++) {
			if (!own(t))
				continue;
			char b[96];
			snprintf(b, sizeof(b), "-r%ld-%llx", (long)getpid(), stamp_);
			std::string path = std::string(targets_[t].prefix) + b;
			std::string text = record(t);
			AtomicFile f(path);
			if (f.ok() && f.write(text.data(), text.size()))
				f.commit();
		}
		dirty_ = false;
	}

	/* The name a data object has for target t. */
	std::string data_name(int t, const std::string &first) const
	{
		std::string from = base_name(targets_[data_target()].prefix);
		return base_name(targets_[t].prefix) + first.substr(from.size());
	}

	std::string record(int t) const
	{
		std::string o = "{\"format\":1,\"kernel\":";
		char b[128];
		json_str(o, name_);
		o += ",\"key\":";
		json_str(o, targets_[t].key);
		snprintf(b, sizeof(b), ",\"cc\":%d,\"launches\":%lld,\"dropped\":%lld,\"failed\":%lld,\"runs\":1,\"shapes\":[",
			 targets_[t].cc, launches_, dropped_, failed_);
		o += b;
		for (size_t i = 0; i < shapes_.size(); i++) {
			const Shape &s = shapes_[i];
			if (i)
				o += ',';
			snprintf(b, sizeof(b), "{\"id\":\"%s\",\"launches\":%lld,\"types\":", hex64(s.id).c_str(), s.launches);
			o += b;
			o += s.types;
			snprintf(b, sizeof(b), ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shmem\":%llu,\"checked\":%s",
				 s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
				 (unsigned long long)s.shmem, s.checked ? "true" : "false");
			o += b;
			o += ",\"scalars\":[";
			for (size_t k = 0; k < s.scalars.size(); k++) {
				const Scalar &v = s.scalars[k];
				const Param &p = params_[v.index];
				snprintf(b, sizeof(b), "%s{\"index\":%d,\"name\":", k ? "," : "", v.index);
				o += b;
				json_str(o, p.name);
				o += ",\"type\":";
				json_str(o, p.type);
				o += ",\"kind\":";
				json_str(o, v.kind);
				o += ",\"text\":";
				if (v.text.empty())
					o += "null";
				else
					json_str(o, v.text.c_str());
				o += ",\"hex\":";
				json_str(o, v.hex.c_str());
				o += '}';
			}
			o += "],\"buffers\":[";
			for (size_t k = 0; k < s.bufs.size(); k++) {
				const Buf &x = s.bufs[k];
				const Param &p = params_[x.index];
				snprintf(b, sizeof(b), "%s{\"index\":%d,\"name\":", k ? "," : "", x.index);
				o += b;
				json_str(o, p.name);
				o += ",\"elem\":";
				json_str(o, p.elem);
				snprintf(b, sizeof(b), ",\"elem_size\":%llu,\"count\":%lld,\"null\":%s,\"same_as\":%d,\"written\":%s",
					 (unsigned long long)x.elem_size, x.count, x.null ? "true" : "false", x.same_as,
					 x.written < 0 ? "null" : x.written ? "true" : "false");
				o += b;
				snprintf(b, sizeof(b), ",\"to_end\":%lld,\"bound\":\"%s\"", x.to_end, x.bound);
				o += b;
				o += ",\"data\":";
				if (x.data.empty()) {
					o += "null";
				} else {
					std::string n = data_name(t, x.data);
					json_str(o, n.c_str());
				}
				snprintf(b, sizeof(b), ",\"data_bytes\":%lld}", x.data.empty() ? 0LL : x.data_bytes);
				o += b;
			}
			o += "]}";
		}
		o += "]}\n";
		return o;
	}
};

/* ------------------------------------------------------------ one launch */

static const int MAXARGS = 64;
static const size_t STAGE = (size_t)64 << 20;   /* host staging for hashing and data, bytes */

class Launch {
public:
	Launch(Kernel &k, dim3 g, dim3 b, size_t shmem, cudaStream_t st, const Inst &inst)
		: k_(k), st_(st), inst_(inst), shape_(nullptr)
	{
		grid_[0] = g.x, grid_[1] = g.y, grid_[2] = g.z;
		block_[0] = b.x, block_[1] = b.y, block_[2] = b.z;
		shmem_ = shmem;
		id_ = fnv(inst.hash, grid_, sizeof(grid_));
		id_ = fnv(id_, block_, sizeof(block_));
		uint64_t s = shmem;
		id_ = fnv(id_, &s, sizeof(s));
	}

	template <class T> void scalar(int index, const T &v)
	{
		id_ = fnv(id_, &index, sizeof(index));
		id_ = fnv(id_, &v, sizeof(T));
		if (nsc_ < MAXARGS) {
			sc_[nsc_].index = index;
			sc_[nsc_].p = &v;
			sc_[nsc_].n = sizeof(T);
			sc_[nsc_].kind = Kind<T>::get();
			sc_[nsc_].text = &text_of<T>;
			nsc_++;
		}
	}
	template <class T> void pointer(int index, T *p)
	{
		if (nptr_ < MAXARGS) {
			ptr_[nptr_].index = index;
			ptr_[nptr_].p = (const void *)p;
			ptr_[nptr_].esize = esize(p);
			nptr_++;
		}
	}

	/*
	 * Before the launch: a new shape's buffers are inspected.  Nothing is
	 * counted yet: only a launch the runtime accepted is (after()).  An
	 * error already pending (one the program has not read) is left where
	 * it is, untouched, and the launch is not recorded: whether it ran
	 * cannot be told, since the error would still be there after it.
	 */
	void before()
	{
		pending_ = cudaPeekAtLastError();
		if (pending_ != cudaSuccess)
			return;
		lock_ = std::unique_lock<std::mutex>(k_.mu_);
		if (k_.find(id_) || (int)k_.shapes_.size() >= k_.lim_.max_shapes) {
			lock_.unlock();
			return;
		}
		k_.ask_device();
		k_.shapes_.push_back(Shape());
		Shape &s = k_.shapes_.back();
		s.id = id_;
		s.launches = 0;
		s.types = inst_.json;
		memcpy(s.grid, grid_, sizeof(grid_));
		memcpy(s.block, block_, sizeof(block_));
		s.shmem = shmem_;
		s.checked = false;
		for (int i = 0; i < nsc_; i++) {
			Scalar v;
			static const char digits[] = "0123456789abcdef";
			v.index = sc_[i].index;
			v.kind = sc_[i].kind;
			v.text = sc_[i].text(sc_[i].p);
			for (size_t b = 0; b < sc_[i].n; b++) {
				unsigned char c = ((const unsigned char *)sc_[i].p)[b];
				v.hex += digits[c >> 4];
				v.hex += digits[c & 15];
			}
			s.scalars.push_back(v);
		}
		relax();
		inspect(s);
		shape_ = &s;
	}

	/*
	 * After the launch: whether the runtime accepted it (the launch's own
	 * error, read with cudaPeekAtLastError so that the program still sees
	 * it), the count, and for a new shape the hashes again and the records.
	 * A launch that failed (no GPU, a driver too old, a bad configuration)
	 * is counted as failed and nothing else of it is kept.
	 */
	void after()
	{
		bool failed = pending_ != cudaSuccess || cudaPeekAtLastError() != cudaSuccess;
		if (!lock_.owns_lock())
			lock_ = std::unique_lock<std::mutex>(k_.mu_);
		k_.dirty_ = true;
		if (failed) {
			if (shape_) {
				k_.shapes_.pop_back();
				shape_ = nullptr;
			}
			if (dev_) {
				cudaFree(dev_);
				dev_ = nullptr;
			}
			restore();
			if (k_.failed_++ == 0)
				k_.flush();
			lock_.unlock();
			return;
		}
		k_.launches_++;
		if (!shape_) {
			if (Shape *s = k_.find(id_))
				s->launches++;
			else
				k_.dropped_++;
			after_count();
			return;
		}
		shape_->launches = 1;
		if (checking_)
			compare();
		restore();
		k_.flush();
		lock_.unlock();
	}

private:
	/*
	 * Another thread may be capturing a graph in the global mode, where
	 * this thread's synchronizations and copies would invalidate it: the
	 * inspection runs in the relaxed mode, then the thread's mode is put
	 * back.
	 */
	void relax()
	{
		cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
		if (cudaThreadExchangeStreamCaptureMode(&m) == cudaSuccess) {
			mode_ = m;
			relaxed_ = true;
		} else {
			(void)cudaGetLastError();
		}
	}
	void restore()
	{
		if (relaxed_ && cudaThreadExchangeStreamCaptureMode(&mode_) != cudaSuccess)
			(void)cudaGetLastError();
		relaxed_ = false;
	}
	cudaStreamCaptureMode mode_ = cudaStreamCaptureModeGlobal;
	bool relaxed_ = false;

	struct Sc {
		int index;
		const void *p;
		size_t n;
		const char *kind;
		std::string (*text)(const void *);
	};
	struct Ptr {
		int index;
		const void *p;
		size_t esize;
	};

	template <class T> static std::string text_of(const void *p) { return scalar_text(*(const T *)p); }

	Kernel &k_;
	cudaStream_t st_;
	const Inst &inst_;
	unsigned grid_[3], block_[3];
	size_t shmem_;
	uint64_t id_;
	Sc sc_[MAXARGS];
	int nsc_ = 0;
	Ptr ptr_[MAXARGS];
	int nptr_ = 0;
	Shape *shape_;
	bool checking_ = false;
	cudaError_t pending_ = cudaSuccess;
	std::vector<uint64_t> before_;
	std::vector<bool> hashed_;
	std::vector<std::vector<unsigned long long> > sums_;  /* per buffer: the device's chunk hashes before */
	unsigned long long *dev_ = nullptr;                     /* the device's sums, while a shape is inspected */
	std::unique_lock<std::mutex> lock_;

	void after_count()
	{
		if (k_.launches_ >= k_.next_flush_) {
			k_.next_flush_ *= 2;
			k_.flush();
		}
		lock_.unlock();
	}

	const void *ptr_at(int index) const
	{
		for (int i = 0; i < nptr_; i++)
			if (ptr_[i].index == index)
				return ptr_[i].p;
		return nullptr;
	}

	static bool hashable(const Buf &b) { return !b.null && b.count > 0; }

	/*
	 * Hash n bytes of device memory at p through a host staging buffer; with
	 * out, also write them there.  False when a copy fails.
	 */
	bool hash(const void *p, size_t n, uint64_t *h, AtomicFile *out)
	{
		std::vector<unsigned char> &stage = k_.stage_;
		size_t chunk = std::min(n, STAGE);
		if (stage.size() < chunk)
			stage.resize(chunk);
		*h = FNV0;
		for (size_t off = 0; off < n; off += chunk) {
			size_t m = std::min(chunk, n - off);
			if (cudaMemcpy(stage.data(), (const char *)p + off, m, cudaMemcpyDefault) != cudaSuccess) {
				(void)cudaGetLastError();
				return false;
			}
			*h = fnv(*h, stage.data(), m);
			if (out && !out->write(stage.data(), m))
				out = nullptr;
		}
		return true;
	}

	/*
	 * The device's hash of each chunk of n bytes at p (chunk_for(n)), on
	 * the launch's stream, copied back into out.  False when it cannot be
	 * done (no memory for the sums): the caller hashes on the host.
	 */
	bool device_sums(const void *p, unsigned long long n, std::vector<unsigned long long> &out)
	{
		unsigned long long chunk = chunk_for(n), nr = (n + chunk - 1) / chunk;
		if (!dev_ && cudaMalloc((void **)&dev_, MAXCHUNKS * sizeof(unsigned long long)) != cudaSuccess) {
			dev_ = nullptr;
			(void)cudaGetLastError();
			return false;
		}
		__astra_cap_sums<<<(unsigned)((nr + 255) / 256), 256, 0, st_>>>((const unsigned char *)p, n, chunk, nr,
										  dev_);
		out.resize(nr);
		if (cudaGetLastError() != cudaSuccess ||
		    cudaMemcpyAsync(out.data(), dev_, nr * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st_) !=
			    cudaSuccess ||
		    cudaStreamSynchronize(st_) != cudaSuccess) {
			(void)cudaGetLastError();
			return false;
		}
		return true;
	}

	void inspect(Shape &s)
	{
		unsigned long long base[MAXARGS], end[MAXARGS];
		for (int i = 0; i < nptr_; i++) {
			Buf b;
			size_t size = 0;
			b.index = ptr_[i].index;
			b.elem_size = ptr_[i].esize;
			b.null = ptr_[i].p == nullptr;
			b.count = b.null ? 0 : -1;
			b.to_end = b.count;
			b.bound = "allocation";
			b.same_as = b.index;
			b.written = -1;
			b.data_bytes = 0;
			base[i] = end[i] = 0;
			if (!b.null && allocation(ptr_[i].p, &base[i], &size)) {
				unsigned long long at = (unsigned long long)(uintptr_t)ptr_[i].p;
				end[i] = base[i] + size;
				b.count = b.to_end = (long long)((end[i] - at) / b.elem_size);
				for (int j = 0; j < i; j++)
					if (base[j] == base[i]) {
						b.same_as = s.bufs[j].index;
						break;
					}
			}
			s.bufs.push_back(b);
		}
		/*
		 * A pointer into an allocation that other arguments point into
		 * (a pool) reaches up to the next of them, not to the pool's end:
		 * the arguments of one launch are taken not to overlap.
		 */
		for (int i = 0; i < nptr_; i++) {
			Buf &b = s.bufs[i];
			unsigned long long at = (unsigned long long)(uintptr_t)ptr_[i].p, next = end[i];
			if (b.count <= 0)
				continue;
			for (int j = 0; j < nptr_; j++) {
				unsigned long long q = (unsigned long long)(uintptr_t)ptr_[j].p;
				if (j != i && s.bufs[j].count >= 0 && base[j] == base[i] && q > at && q < next)
					next = q;
			}
			if (next < end[i]) {
				b.count = (long long)((next - at + b.elem_size - 1) / b.elem_size);
				b.bound = "argument";
			}
		}
		/* Checksums (and data) need the buffers' contents at the launch: not inside a graph capture. */
		cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
		if (cudaStreamIsCapturing(st_, &cs) != cudaSuccess) {
			(void)cudaGetLastError();
			return;
		}
		if (cs != cudaStreamCaptureStatusNone || cudaStreamSynchronize(st_) != cudaSuccess) {
			(void)cudaGetLastError();
			return;
		}
		checking_ = true;
		before_.assign(s.bufs.size(), 0);
		hashed_.assign(s.bufs.size(), false);
		sums_.assign(s.bufs.size(), std::vector<unsigned long long>());
		/* Smallest first, so that the data budget covers the index buffers of a gather. */
		std::vector<size_t> order(s.bufs.size());
		for (size_t i = 0; i < order.size(); i++)
			order[i] = i;
		std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
			long long x = s.bufs[a].count * (long long)s.bufs[a].elem_size;
			long long y = s.bufs[b].count * (long long)s.bufs[b].elem_size;
			return x != y ? x < y : a < b;
		});
		for (size_t i : order) {
			Buf &b = s.bufs[i];
			if (!hashable(b))
				continue;
			long long bytes = b.count * (long long)b.elem_size;
			const void *p = ptr_at(b.index);
			int dt = k_.data_target();
			bool keep = dt >= 0 && k_.lim_.data && k_.data_used_ + bytes <= k_.lim_.data_max;
			/* One copy of the inputs per allocation: an alias's bytes are its owner's. */
			if (b.same_as != b.index)
				keep = false;
			if (keep) {
				char nb[64];
				snprintf(nb, sizeof(nb), "-d%s-%d", hex64(s.id).c_str(), b.index);
				std::string path = std::string(k_.targets_[dt].prefix) + nb;
				AtomicFile f(path);
				if (f.ok() && hash(p, (size_t)bytes, &before_[i], &f) && f.commit()) {
					hashed_[i] = true;
					b.data = base_name(path);
					b.data_bytes = bytes;
					k_.data_used_ += bytes;
					for (int t = 0; t < k_.ntargets_; t++) {
						if (t == dt || !k_.own(t))
							continue;
						std::string other = std::string(k_.targets_[t].prefix) + nb;
						make_dirs(other);
						if (link(path.c_str(), other.c_str()) != 0 && errno != EEXIST)
							continue;
					}
					continue;
				}
			}
			/* On the device; on the host where that cannot be done. */
			if (device_sums(p, (unsigned long long)bytes, sums_[i])) {
				hashed_[i] = true;
				continue;
			}
			sums_[i].clear();
			/* Unreadable (host memory the device cannot map, say): written stays unknown. */
			hashed_[i] = hash(p, (size_t)bytes, &before_[i], nullptr);
		}
	}

	/*
	 * After the launch: which buffers changed.  Where the device hashed
	 * the chunks, a buffer that changed reaches to the end of its last
	 * changed chunk (when that is below its count): what the launch wrote.
	 */
	void compare()
	{
		bool ok = cudaStreamSynchronize(st_) == cudaSuccess;
		for (size_t i = 0; ok && i < shape_->bufs.size(); i++) {
			Buf &b = shape_->bufs[i];
			if (!hashable(b) || !hashed_[i])
				continue;
			unsigned long long bytes = (unsigned long long)b.count * b.elem_size;
			const void *p = ptr_at(b.index);
			if (!sums_[i].empty()) {
				std::vector<unsigned long long> now;
				if (!device_sums(p, bytes, now) || now.size() != sums_[i].size())
					continue;
				size_t last = now.size();
				for (size_t c = 0; c < now.size(); c++)
					if (now[c] != sums_[i][c])
						last = c;
				b.written = last < now.size();
				if (b.written) {
					unsigned long long chunk = chunk_for(bytes), w = (last + 1) * chunk;
					long long n = (long long)((std::min(w, bytes) + b.elem_size - 1) / b.elem_size);
					if (n < b.count) {
						b.count = n;
						b.bound = "written";
					}
				}
				continue;
			}
			uint64_t h = 0;
			if (hash(p, (size_t)bytes, &h, nullptr))
				b.written = h != before_[i];
		}
		shape_->checked = ok;
		if (dev_) {
			cudaFree(dev_);
			dev_ = nullptr;
		}
	}
};

} /* namespace */
} /* namespace __astra_cap */

#endif /* __ASTRA_CAPTURE_RT */
