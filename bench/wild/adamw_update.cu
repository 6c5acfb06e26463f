/*
 * Style: a training optimizer step as training codes write it: a
 * `__device__` helper (`lerp`), three buffers updated in place, many
 * scalar hyperparameters, an int index compared with a size_t count.
 * Computes: one AdamW step over fp32 parameters: m and v updated as
 * moving averages of the gradient and its square, bias-corrected, and
 * the parameters moved with decoupled weight decay.
 * Flags: none
 * Expect: elems-per-thread fastmath
 */
#include <cuda_runtime.h>
#include <stddef.h>

__device__ inline float lerp(float start, float end, float weight)
{
	return fma(weight, end, fma(-weight, start, start));
}

#pragma astra optimize noalias
#pragma astra shapes(num_parameters=16777216) shapes(num_parameters=1048576) shapes(num_parameters=10007) \
	shapes(num_parameters=1)
#pragma astra buffers(params_memory[num_parameters], grads_memory[num_parameters], m_memory[num_parameters], \
	v_memory[num_parameters]) outputs(params_memory, m_memory, v_memory)
#pragma astra launch(grid=(num_parameters + 511) / 512, block=512)
#pragma astra scalars(learning_rate=3e-4f, beta1=0.9f, beta2=0.95f, beta1_correction=0.1f, \
	beta2_correction=0.05f, eps=1e-8f, weight_decay=0.1f)
#pragma astra range(v_memory: 0 .. 1) flops(12*num_parameters)
__global__ void adamw_update(float *params_memory, const float *grads_memory, float *m_memory, float *v_memory,
			     size_t num_parameters, float learning_rate, float beta1, float beta2,
			     float beta1_correction, float beta2_correction, float eps, float weight_decay)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= num_parameters)
		return;
	float grad = grads_memory[i];
	float m = m_memory[i];
	float v = v_memory[i];
	m = lerp(grad, m, beta1);
	m_memory[i] = m;
	v = lerp(grad * grad, v, beta2);
	v_memory[i] = v;
	m /= beta1_correction;
	v /= beta2_correction;
	params_memory[i] -= learning_rate * (m / (sqrtf(v) + eps) + weight_decay * params_memory[i]);
}
