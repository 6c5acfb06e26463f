// sum: prefix sums of the generated input.  On a GPU the kernel computes
// them; without one the program computes them on the host, so that the
// driver's run, timing and comparison can be tested where no GPU is.
#include <cstdio>
#include <cuda_runtime.h>
#include <sys/time.h>

__global__ void prefix(int *out, const int *in, int n)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		int s = 0;
		for (int i = 0; i < n; i++)
			out[i] = s += in[i];
	}
}

static double now(void)
{
	struct timeval t;
	gettimeofday(&t, 0);
	return t.tv_sec + t.tv_usec * 1e-6;
}

int main(void)
{
	int in[64], out[64], ref[64], n = 0, s = 0, devices = 0, fail = 0;
	FILE *f = fopen("../../data/hostonly/in.txt", "r");
	if (!f) {
		fprintf(stderr, "sum: no input (run gen.sh)\n");
		return 1;
	}
	while (n < 64 && fscanf(f, "%d", &in[n]) == 1)
		n++;
	fclose(f);
	double t0 = now();
	if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
		int *din, *dout;
		cudaMalloc(&din, sizeof in);
		cudaMalloc(&dout, sizeof out);
		cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
		prefix<<<1, 32>>>(dout, din, n);
		cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
	} else {
		for (int i = 0; i < n; i++)
			out[i] = s += in[i];
	}
	printf("GPU Time in seconds:\n%0.6lf\n", now() - t0);
	s = 0;
	for (int i = 0; i < n; i++)
		if ((ref[i] = s += in[i]) != out[i])
			fail++;
	printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of 0.05 Percent: %d\n", fail);
	f = fopen("out.txt", "w");
	for (int i = 0; i < n; i++)
		fprintf(f, "%d\n", out[i]);
	fclose(f);
	return 0;
}
