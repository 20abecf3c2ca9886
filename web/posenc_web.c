/* posenc_web: the entry points of the web page (web/index.html, web/app.js),
 * built to WebAssembly by `make web`.
 *
 * Plain functions of plain values (ints, doubles, C strings) that the page
 * calls through Emscripten's ccall. Each computing call returns 0, or an
 * error code with its message behind pw_error(); its results stay in this
 * file's static state, read by the getters that follow it, until the next
 * call of the same kind. Arrays come back as pointers into the module's
 * memory, which the page reads through HEAPF32/HEAPF64 right away (a later
 * call may move or free them).
 *
 * Nothing here computes what the library already does: the order demo is
 * src/run/orderdemo.c, as demo_order runs it; the tables are pe_table and
 * pe_similarity (src/pe/analysis.h), as pe_plot draws them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/matmul.h"
#include "../src/pe/analysis.h"
#include "../src/run/orderdemo.h"
#include "pw.h"
#include "../src/pe/pe_sinusoidal.h"

/* The heatmap and the dot-product matrix draw at most this many positions
 * and channels: a canvas shows no more. */
#define PW_MAX_POSITIONS 512
#define PW_MAX_CHANNELS 1024
/* t and k of the rotation: far enough to see float32 lose the angle. */
#define PW_MAX_SHIFT 1000000

Err pw_err;

EXPORT const char *pw_error(void) { return pw_err.msg; }

EXPORT int pw_scheme_count(void) { return (int)pe_count(); }

static const PeScheme *scheme_at(int i) {
    return i >= 0 && (size_t)i < pe_count() ? pe_at((size_t)i) : NULL;
}

EXPORT const char *pw_scheme_name(int i) {
    const PeScheme *s = scheme_at(i);
    return s ? s->name : "";
}

EXPORT const char *pw_scheme_about(int i) {
    const PeScheme *s = scheme_at(i);
    return s ? s->about : "";
}

/* 1 for the seven schemes the tutorial opens with: the demo's table runs
 * these unless its "all" box is ticked, as demo_order does without --pe. */
EXPORT int pw_scheme_demo_default(int i) {
    const PeScheme *s = scheme_at(i);
    return s && s->demo_default;
}

/* 1 for a scheme that acts inside attention (RoPE, ALiBi, T5). */
EXPORT int pw_scheme_in_attention(int i) {
    const PeScheme *s = scheme_at(i);
    return s && pe_in_attention(s);
}

/* ---- 1. Order: demo_order for one scheme ---- */

static struct {
    OrderPair pair;
    OrderResult r;
    size_t n, C;
    float *rows;       /* (2,n,C): sentence 1's rows, then sentence 2's */
    float *pooled;     /* (2,C) */
    double *word_diff; /* (n) max |row i of sentence 2 - its word's row in sentence 1| */
    const char *how;   /* "nothing added", "added" or "concatenated" */
    const char *about; /* the scheme's one line */
} demo; /* the order demo's last run, which the page reads back */

static void order_clear(void) {
    order_pair_free(&demo.pair);
    free(demo.rows);
    free(demo.pooled);
    free(demo.word_diff);
    memset(&demo, 0, sizeof demo);
}

static int order_keep(const Model *m, const Acts *acts, Err *e) {
    size_t n = demo.pair.a.n, C = m->cfg.d_model;
    demo.rows = xmalloc(2 * n * C * sizeof *demo.rows, "the output rows", e);
    demo.pooled = xmalloc(2 * C * sizeof *demo.pooled, "the pooled vectors", e);
    demo.word_diff = xmalloc(n * sizeof *demo.word_diff, "the differences", e);
    if (!demo.rows || !demo.pooled || !demo.word_diff)
        return ERR_RUNTIME;
    memcpy(demo.rows, acts->hidden, 2 * n * C * sizeof *demo.rows);
    memcpy(demo.pooled, acts->pooled, 2 * C * sizeof *demo.pooled);
    for (size_t i = 0; i < n; i++) {
        size_t j = demo.pair.perm[i];
        demo.word_diff[i] = max_aligned_diff(acts->hidden, acts->hidden + (n + i) * C, &j, 1, C);
    }
    demo.n = n;
    demo.C = C;
    demo.how = m->pe.w == 0 ? "nothing added"
                : m->pe.combine == COMBINE_CONCAT ? "concatenated" : "added";
    demo.about = m->pe.scheme->about;
    return 0;
}

/* demo_order --pe scheme --d-model d_model --heads heads --layers layers
 * --d-ff d_ff --norm post|pre --seed seed s1 s2, checked in demo_order's
 * order, so that the same bad input gets the same message. */
EXPORT int pw_order(const char *s1, const char *s2, const char *scheme, const char *d_model,
                    const char *heads, const char *layers, const char *d_ff, int pre_norm,
                    const char *seed) {
    Err *e = &pw_err;
    err_clear(e);
    order_clear();
    Config cfg;
    order_config_default(&cfg);
    int rc;
    if ((rc = parse_size(&cfg.d_model, "--d-model", d_model, 1, MAX_DIM, e)) ||
        (rc = parse_size(&cfg.n_heads, "--heads", heads, 1, MAX_DIM, e)) ||
        (rc = parse_size(&cfg.n_layers, "--layers", layers, 1, MAX_LAYERS, e)) ||
        (rc = parse_size(&cfg.d_ff, "--d-ff", d_ff, 1, MAX_DIM, e)) ||
        (rc = parse_u64(&cfg.seed, "--seed", seed, e)))
        return rc;
    cfg.norm = pre_norm ? NORM_PRE : NORM_POST;
    if ((rc = order_pair_init(&demo.pair, s1, s2, e)))
        return rc;
    Vocab v;
    if ((rc = vocab_init(&v, e)))
        return rc;
    Model m;
    Acts acts;
    if (!(rc = vocab_add_text(&v, s1, e))) {
        cfg.vocab_size = v.n;
        order_config_scheme(&cfg, scheme);
        if (!(rc = order_check_scheme(&cfg, scheme, demo.pair.a.n, e)) &&
            !(rc = model_create(&m, &cfg, e))) {
            if (!(rc = order_run(&demo.r, &acts, &m, &v, &demo.pair.a, &demo.pair.b,
                                 demo.pair.perm, e))) {
                rc = order_keep(&m, &acts, e);
                acts_free(&acts);
            }
            model_free(&m);
        }
    }
    vocab_free(&v);
    if (rc)
        order_clear();
    return rc;
}

EXPORT int pw_order_words(void) { return (int)demo.n; }
EXPORT int pw_order_channels(void) { return (int)demo.C; }
EXPORT double pw_order_max_diff(void) { return demo.r.max_diff; }
EXPORT double pw_order_cosine(void) { return demo.r.cos; }
EXPORT const char *pw_order_verdict(void) { return order_verdict(demo.r.max_diff); }
EXPORT const char *pw_order_how(void) { return demo.how ? demo.how : ""; }
EXPORT const char *pw_order_about(void) { return demo.about ? demo.about : ""; }
EXPORT const float *pw_order_rows(void) { return demo.rows; }
EXPORT const float *pw_order_pooled(void) { return demo.pooled; }
EXPORT const double *pw_order_word_diffs(void) { return demo.word_diff; }

/* Word i of sentence s (0 or 1), as the library split it. */
EXPORT const char *pw_order_word(int s, int i) {
    const Words *w = s ? &demo.pair.b : &demo.pair.a;
    return i >= 0 && (size_t)i < w->n ? w->w[i] : "";
}

/* The position in sentence 1 of sentence 2's word i. */
EXPORT int pw_order_aligned(int i) {
    return i >= 0 && (size_t)i < demo.n ? (int)demo.pair.perm[i] : -1;
}

/* ---- 2. The code itself: P (T,w) and S (T,T) ---- */

static struct {
    PePlan plan;
    PeConfig pc;
    size_t T, C;
    float *P;  /* (T,w) the code, nothing for an attention scheme */
    double *S; /* (T,T) X X^T, or an attention scheme's part of head 0's logit */
    char name[64];
} code;

static void code_clear(void) {
    free(code.P);
    free(code.S);
    memset(&code, 0, sizeof code);
}

/* pe_plot --kind heatmap and --kind dots: the code and the similarity of
 * every pair of positions, pe_similarity's (X X^T for an input scheme, the
 * logit's position part for an attention scheme). combine: 0 the scheme's
 * own, 1 add, 2 concat (Combine's values). */
EXPORT int pw_code(const char *scheme, const char *d_model, const char *heads, const char *base,
                   int split, int combine, const char *positions, const char *seed) {
    Err *e = &pw_err;
    err_clear(e);
    code_clear();
    size_t C, NH, T;
    uint64_t s;
    int rc;
    if ((rc = parse_size(&C, "--d-model", d_model, 1, PW_MAX_CHANNELS, e)) ||
        (rc = parse_size(&NH, "--heads", heads, 1, PW_MAX_CHANNELS, e)) ||
        (rc = parse_size(&T, "--positions", positions, 1, PW_MAX_POSITIONS, e)) ||
        (rc = parse_u64(&s, "--seed", seed, e)))
        return rc;
    if (combine < COMBINE_DEFAULT || combine > COMBINE_CONCAT)
        return err_set(e, ERR_INPUT, "combine is the scheme's own, add or concat");
    pe_config_default(&code.pc, scheme);
    if ((rc = pe_set(&code.pc, &pe_opt_base, base, e)))
        return rc;
    if (split)
        pe_put(&code.pc, &pe_opt_layout, LAYOUT_SPLIT);
    if (combine != COMBINE_DEFAULT) /* add or concat, the option's names 0 and 1 */
        pe_put(&code.pc, &pe_opt_combine, combine == COMBINE_CONCAT ? 1 : 0);
    if ((rc = pe_table(&code.P, &code.plan, &code.pc, s, C, NH, T, e)) ||
        (rc = pe_similarity(&code.S, &code.plan, &code.pc, s, C, NH, T, e))) {
        code_clear();
        return rc;
    }
    code.T = T;
    code.C = C;
    return 0;
}

EXPORT int pw_code_width(void) { return (int)code.plan.w; }
EXPORT int pw_code_in_attention(void) { return pe_in_attention(code.plan.scheme); }
EXPORT int pw_code_heads(void) { return (int)code.plan.n_heads; }
EXPORT int pw_code_first_position(void) {
    return code.plan.scheme ? (int)code.plan.scheme->first_position : 0;
}
EXPORT const char *pw_code_combine(void) { return combine_name(code.plan.combine); }
EXPORT const float *pw_code_table(void) { return code.P; }
EXPORT const double *pw_code_dots(void) { return code.S; }

EXPORT const char *pw_code_axis(void) {
    const PeScheme *s = code.plan.scheme;
    return s && s->channel_axis ? s->channel_axis(&code.pc) : "channel";
}

/* What channel c is, e.g. "sin, i = 3"; "" when the scheme does not say. */
EXPORT const char *pw_code_channel(int c) {
    code.name[0] = '\0';
    const PeScheme *s = code.plan.scheme;
    if (s && s->channel_name && c >= 0 && (size_t)c < code.plan.w)
        s->channel_name(code.name, sizeof code.name, &code.pc, code.plan.w, (size_t)c);
    return code.name;
}

/* ---- 3. Rotation: PE(t+k) = M_k PE(t) for the sinusoid ---- */

static struct {
    size_t d;
    PeConfig pc; /* the sinusoid drawn, for its channels' names */
    char name[64];
    float *v; /* (5,d): PE(t), PE(t+k), M_k PE(t), M_k PE(t) - PE(t+k), PE(k) */
    float *M; /* (d,d) M_k */
    double max_err;
} rot;

/* M_k is block-diagonal, one 2x2 rotation by k w_i for each pair (sin, cos)
 * of frequency w_i:
 *   [sin((t+k)w); cos((t+k)w)] = [[cos kw, sin kw]; [-sin kw, cos kw]] [sin tw; cos tw].
 * Its entries cos kw and sin kw are the sinusoid's own values at position
 * k, so M_k is read off the library's table, PE(k), and depends on k
 * alone, never on t; the product is the model's matmul. */
EXPORT int pw_rotation(const char *d_model, const char *base_s, int split, const char *t_s,
                       const char *k_s) {
    Err *e = &pw_err;
    err_clear(e);
    free(rot.v);
    free(rot.M);
    memset(&rot, 0, sizeof rot);
    size_t d, t, k;
    int rc;
    if ((rc = parse_size(&d, "d_model", d_model, 2, PW_MAX_CHANNELS, e)) ||
        (rc = parse_size(&t, "t", t_s, 0, PW_MAX_SHIFT, e)) ||
        (rc = parse_size(&k, "k", k_s, 0, PW_MAX_SHIFT, e)))
        return rc;
    if (d % 2)
        return err_set(e, ERR_INPUT, "the rotation pairs each sin with its cos: give an even "
                       "d_model, not %zu", d);
    /* --base as pe_plot reads it, with no scheme to hold it */
    PeConfig pc = {0};
    if ((rc = pe_set(&pc, &pe_opt_base, base_s, e)))
        return rc;
    double base = pe_get(&pc, &pe_opt_base);
    SinLayout layout = split ? LAYOUT_SPLIT : LAYOUT_INTERLEAVED;
    rot.v = xmalloc(5 * d * sizeof *rot.v, "the rotation", e);
    rot.M = xcalloc(d * d, sizeof *rot.M, "the rotation matrix", e);
    if (!rot.v || !rot.M) {
        free(rot.v);
        free(rot.M);
        memset(&rot, 0, sizeof rot);
        return ERR_RUNTIME;
    }
    float *pt = rot.v, *ptk = rot.v + d, *mpt = rot.v + 2 * d, *diff = rot.v + 3 * d;
    float *pk = rot.v + 4 * d, *M = rot.M;
    sinusoid_table(pt, t, 1, d, layout, base);
    sinusoid_table(ptk, t + k, 1, d, layout, base);
    sinusoid_table(pk, k, 1, d, layout, base);
    for (size_t i = 0; i < d / 2; i++) {
        /* the channels of pair i in either layout (sinusoid_value's order) */
        size_t cs = split ? i : 2 * i, cc = split ? d / 2 + i : 2 * i + 1;
        M[cs * d + cs] = pk[cc];
        M[cs * d + cc] = pk[cs];
        M[cc * d + cs] = -pk[cs];
        M[cc * d + cc] = pk[cc];
    }
    /* mpt (d,1) = M (d,d) pt (d,1) */
    matmul(mpt, 1, M, d, false, pt, 1, false, d, 1, d, 1.0f, 0.0f);
    for (size_t c = 0; c < d; c++) {
        diff[c] = mpt[c] - ptk[c];
        rot.max_err = fmax(rot.max_err, fabs((double)diff[c]));
    }
    rot.d = d;
    pe_config_default(&rot.pc, "sinusoidal");
    pe_put(&rot.pc, &pe_opt_base, base);
    if (layout == LAYOUT_SPLIT)
        pe_put(&rot.pc, &pe_opt_layout, LAYOUT_SPLIT);
    return 0;
}

/* What channel c of the rotation's sinusoid is, e.g. "cos, i = 3". */
EXPORT const char *pw_rotation_channel(int c) {
    const PeScheme *s = pe_find("sinusoidal");
    rot.name[0] = '\0';
    if (s && s->channel_name && c >= 0 && (size_t)c < rot.d)
        s->channel_name(rot.name, sizeof rot.name, &rot.pc, rot.d, (size_t)c);
    return rot.name;
}

EXPORT const float *pw_rotation_values(void) { return rot.v; }
EXPORT const float *pw_rotation_matrix(void) { return rot.M; }
EXPORT double pw_rotation_max_error(void) { return rot.max_err; }
