/* Multi-head scaled dot-product self-attention for an encoder: no causal
 * mask, a padding mask so a batch can hold sentences of different lengths,
 * and a hook through which attention-level position schemes act. */
#ifndef POSENC_ATTENTION_H
#define POSENC_ATTENTION_H

#include <stddef.h>

/* How a position scheme reaches inside attention. Input schemes (the
 * sinusoid, learned tables, ...) leave both functions NULL. A scheme of the
 * RoPE kind rotates each head's q and k before the scores; one of the
 * ALiBi or T5 kind adds a bias that depends on the two positions to each
 * head's scores before the softmax. ctx is the scheme's own state (its
 * configuration and parameters). */
typedef struct {
    /* q, k are (T,HS) with row stride ld; rotated in place. */
    void (*rotate)(const void *ctx, float *q, float *k, size_t ld, size_t T, size_t HS);
    /* The transpose of rotate, applied to the gradients of q and k. */
    void (*rotate_backward)(const void *ctx, float *dq, float *dk, size_t ld, size_t T,
                            size_t HS);
    /* scores is (T,T) for head h of NH; adds the bias in place. */
    void (*bias)(const void *ctx, float *scores, size_t T, size_t h, size_t NH);
    /* Adds the gradient of the bias's parameters, given the gradient of the
     * scores (T,T) of head h, into the scheme's gradient buffer grad. */
    void (*bias_backward)(const void *ctx, float *grad, const float *dscores, size_t T,
                          size_t h, size_t NH);
    const void *ctx;
} AttnHook;

/* qkv is (B,T,3C), each row [q | k | v] (torch's in_proj order), head h
 * owning channels h*HS..(h+1)*HS-1 of each; att is (B,NH,T,T), the softmax
 * weights; out is (B,T,C), the heads' outputs side by side. lens[b] is the
 * number of real tokens of sentence b: keys at t >= lens[b] get weight
 * exactly 0. hook may be NULL. q and k are modified in place when the hook
 * rotates them. */
void attention_forward(float *out, float *att, float *qkv, const size_t *lens,
                       const AttnHook *hook, size_t B, size_t T, size_t C, size_t NH);

/* Writes dqkv (B,T,3C) from dout (B,T,C), given the forward's qkv (with q
 * and k as rotated) and att. dscores is scratch of T*T floats; hook_grad
 * receives the gradient of a bias scheme's parameters (may be NULL when
 * there is none). */
void attention_backward(float *dqkv, float *dscores, float *hook_grad, const float *dout,
                        const float *qkv, const float *att, const AttnHook *hook, size_t B,
                        size_t T, size_t C, size_t NH);

#endif
