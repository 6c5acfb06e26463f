#include <cstdio>
#include <vector>
#include "vecops.cuh"

int main()
{
	const int n = 1 << 20;
	std::vector<float> h(n, 1.0f);
	float *x, *y, *s;
	if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess) {
		std::printf("no GPU\n");
		return 0;
	}
	cudaMalloc(&y, n * sizeof(float));
	cudaMalloc(&s, sizeof(float));
	cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemset(s, 0, sizeof(float));
	launch_saxpy(2.0f, x, y, n);  // y = 3
	launch_scale(y, 0.5f, n);     // y = 1.5
	launch_sum(y, s, n);
	float total = 0;
	cudaMemcpy(&total, s, sizeof(float), cudaMemcpyDeviceToHost);
	std::printf("sum=%.1f launches=%llu\n", total, launches());
	return total == 1.5f * n ? 0 : 1;
}
