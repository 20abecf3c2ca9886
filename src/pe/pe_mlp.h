/* A small MLP from one number to one output per head, the function a
 * scheme learns of an offset when it learns the function itself:
 *     a_1 = act(w_1 x + b_1)            (W)
 *     a_l = act(W_l a_(l-1) + b_l)      (W), l = 2..depth
 *     out_h = b_h + w_h . a_depth       head h of the last layer
 * with act ReLU or SiLU (z sigmoid(z)). It owns no memory: its weights
 * sit in a scheme's table where the scheme's layout puts them (PeMlp
 * says where), so a scheme that keeps other numbers in the same table
 * keeps its layout. The forward and the backward in float for the hooks,
 * the forward in double for the reference model, side by side. */
#ifndef POSENC_PE_MLP_H
#define POSENC_PE_MLP_H

#include <stddef.h>

/* The widest MLP of more than one hidden layer (the double forward keeps
 * two layers on the stack); one hidden layer computes each unit on the
 * fly and has no bound of its own. */
#define PE_MLP_MAX_WIDTH 1024

typedef enum { PE_MLP_RELU = 0, PE_MLP_SILU = 1 } PeMlpAct;

/* Where an MLP's parts sit in a table, in floats from its start. */
typedef struct {
    size_t W;            /* hidden units of every layer, e.g. 16 */
    size_t depth;        /* hidden layers, from 1: 2 is Linear(1,W), act, Linear(W,W), act */
    PeMlpAct act;
    size_t in_w, in_b;   /* the first layer's W weights, its W biases (each contiguous) */
    size_t hidden;       /* layer l = 2..depth: its (W,W) weights, out x in as nn.Linear
                          * keeps them, then its W biases, at hidden + (l-2)(W+1)W */
    size_t out_w, out_w_stride; /* head h's W weights at out_w + h out_w_stride */
    size_t out_b, out_b_stride; /* head h's bias at out_b + h out_b_stride */
} PeMlp;

/* Floats of workspace the forward and the backward need (buf): none for
 * one hidden layer. */
size_t pe_mlp_work(const PeMlp *m);

/* Head h's output at input x, from table t; buf holds pe_mlp_work(m)
 * floats (NULL when that is 0). */
float pe_mlp_forward(const PeMlp *m, const float *t, size_t h, float x, float *buf);

/* The backward of pe_mlp_forward for an output gradient ds: adds
 * ds d out_h / d theta into g (laid out as t) and returns d out_h / d x
 * without ds, for a caller whose input has parameters of its own (FIRE's
 * c and L) to multiply in. */
float pe_mlp_backward(float *g, const PeMlp *m, const float *t, size_t h, float x, float ds,
                      float *buf);

/* pe_mlp_forward in double, for the reference model (ref_score). */
double pe_mlp_ref(const PeMlp *m, const double *t, size_t h, double x);

#endif
