// expect: rejected unwritten
// Does nothing at all: the outputs keep whatever was in memory (the poison,
// or the previous contents). A checker that reuses the reference's output
// buffer, or compares only some values, lets this through.
template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
}
