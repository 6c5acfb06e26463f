constexpr int V = 4;
struct P { float a; };
__device__ float h(float v) { return v; }
extern __shared__ float s[];
template <class T>
__global__ void k(T *__restrict__ y, const T *x, const int n) { }
