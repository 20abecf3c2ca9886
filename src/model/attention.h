/* Multi-head scaled dot-product self-attention: a padding mask so a batch
 * can hold sentences of different lengths, a causal mask on request, and a
 * hook through which attention-level position schemes act. */
#ifndef POSENC_ATTENTION_H
#define POSENC_ATTENTION_H

#include <stddef.h>

#include "../pe/pe.h"
#include "layers.h"

/* How an attention scheme (src/pe) reaches inside each head: its
 * functions and options, its table of parameters, and what it prepared
 * from each sentence's positions before the first layer. RoPE rotates
 * each head's q and k before the scores; ALiBi, T5 and Shaw's keys add a
 * term to the scores before the softmax; Shaw's values join the output.
 * Each head of each sentence reaches the scheme as a PeHead (pe.h). Input
 * schemes pass no hook. */
typedef struct {
    const PeScheme *scheme;
    const PeConfig *pc;
    const float *params;  /* the scheme's table for this layer (T5, shaw), or NULL */
    float *grad;          /* the backward adds the table's gradient here, or NULL */
    const float *scratch; /* (B,stride): scheme->prepare of each sentence's positions */
    size_t stride;        /* floats per sentence in scratch */
    const size_t *pos;    /* (B,T): each sentence's positions */
    bool shared;          /* one draw for the layer (PeDraw): every sentence reads the
                           * first's scratch and positions */
    const size_t *dist;   /* (T): the layer's drawn distances (PeHead.dist), or NULL */
    size_t layer;
    const size_t *lens;   /* (B): the sentences' real tokens, for the backward's view */
    bool causal;          /* ... and the mask (the forward gets both as arguments) */
    float *logits;        /* (B,NH,T,T): the raw logits, kept for a scheme that reads them
                           * (PeScheme.reads_logits), or NULL */
    float *work;          /* a workspace of work_stride floats per thread (PeScheme.work), or
                           * NULL */
    size_t work_stride;
} AttnHook;

/* Dropout on the attention weights (PyTorch's MultiheadAttention puts it
 * after the softmax): the mask of site `site`, the batch's sentences
 * counted from b0 (a micro-batch's first), the dropped weights in att
 * (B,NH,T,T), beside the softmax's own. */
typedef struct {
    const Dropout *d;
    size_t site, b0;
    float *att;
} AttnDrop;

/* qkv is (B,T,3C), each row [q | k | v] (torch's in_proj order), head h
 * owning channels h*HS..(h+1)*HS-1 of each; att is (B,NH,T,T), the softmax
 * weights; out is (B,T,C), the heads' outputs side by side. lens[b] is the
 * number of real tokens of sentence b: keys at t >= lens[b] get weight
 * exactly 0, and with causal so do the keys after the query (query i sees
 * keys 0..i, a decoder's mask). hook and drop may be NULL. q and k are
 * modified in place when the hook rotates them. */
void attention_forward(float *out, float *att, float *qkv, const size_t *lens, bool causal,
                       const AttnHook *hook, const AttnDrop *drop, size_t B, size_t T, size_t C,
                       size_t NH);
/* The same for a forward pass alone: att is one T x T block per thread
 * (par_max_threads), where a head's weights are made and read while the
 * head is computed, and not kept (hook->logits alike); the same numbers,
 * the weights of the heads staying in the cache instead of going out to
 * memory and back. */
void attention_forward_only(float *out, float *att, float *qkv, const size_t *lens, bool causal,
                            const AttnHook *hook, size_t B, size_t T, size_t C, size_t NH);

/* The floats of attention_backward's scratch per thread for sentences of
 * T tokens: T*T, or twice that for a scheme with logits_backward (the
 * scores' own gradient, kept for its score_backward). */
size_t attention_scratch(const AttnHook *hook, size_t T);

/* Writes dqkv (B,T,3C) from dout (B,T,C), given the forward's qkv (with q
 * and k as rotated) and att. dscores is scratch of n_scratch x
 * attention_scratch(hook, T) floats, one block per thread: at most
 * n_scratch threads share the heads. A bias
 * scheme's table gets its gradient added to hook->grad. drop, as the
 * forward had it, or NULL. */
void attention_backward(float *dqkv, float *dscores, size_t n_scratch, const float *dout,
                        const float *qkv, const float *att, const AttnHook *hook,
                        const AttnDrop *drop, size_t B, size_t T, size_t C, size_t NH);

/* Whether the heads' products run in head_products.c's loops where they
 * take the head (the default) or always by matmul (OpenBLAS), for
 * timing one against the other (make floor's --products). The two round
 * differently in the last bits. */
void attention_small_heads(bool on);

#endif
