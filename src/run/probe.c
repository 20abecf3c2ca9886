/* The linear probe of position (probe.h): ridge regression in double, by
 * the normal equations and a Cholesky factorization, which at C + 1 <= 1025
 * unknowns is small, exact enough and needs nothing beyond libc. */
#include "probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/encoder.h"

/* Sentences in batches, through the model, one layer's rows at a time. */
typedef struct {
    const Model *m;
    Acts a;
    int *ids, *labels; /* (B,T) */
    size_t *lens, *idx; /* (B) */
    size_t T;           /* longest sentence */
} Runner;

static int runner_init(Runner *r, const Model *m, size_t T, Err *e) {
    memset(r, 0, sizeof *r);
    r->m = m;
    r->T = T;
    r->ids = malloc(PROBE_BATCH * T * sizeof *r->ids);
    r->labels = malloc(PROBE_BATCH * T * sizeof *r->labels);
    r->lens = malloc(PROBE_BATCH * sizeof *r->lens);
    r->idx = malloc(PROBE_BATCH * sizeof *r->idx);
    if (!r->ids || !r->labels || !r->lens || !r->idx)
        return err_set(e, ERR_RUNTIME, "out of memory for the probe's batches");
    return acts_create(&r->a, m, PROBE_BATCH, T, e);
}

static void runner_free(Runner *r) {
    free(r->ids);
    free(r->labels);
    free(r->lens);
    free(r->idx);
    if (r->a.mem)
        acts_free(&r->a);
}

/* The rows that row l of the result reads (probe.h), laid out (B,T,C)
 * for the batch just run. */
static const float *layer_rows(const Model *m, const Acts *a, size_t l) {
    size_t L = m->cfg.n_layers;
    if (l == 0)
        return a->x0;
    if (l == L)
        return a->hidden;
    return m->cfg.norm == NORM_PRE ? a->layer[l - 1].u : a->layer[l - 1].ln2;
}

/* Runs the next batch of d's encodable sentences from *next; returns the
 * batch size (0 at the end) in *nb and its padded length in *Tb. */
static int next_batch(Runner *r, const Dataset *d, size_t *next, size_t limit, size_t *skipped,
                      size_t *nb, size_t *Tb, Err *e) {
    *nb = 0;
    *Tb = 0;
    for (; *next < d->n && *nb < PROBE_BATCH; (*next)++) {
        size_t len = d->start[*next + 1] - d->start[*next];
        if (len > limit || len > r->T) {
            (*skipped)++;
            continue;
        }
        r->idx[(*nb)++] = *next;
        if (len > *Tb)
            *Tb = len;
    }
    if (*nb == 0)
        return 0;
    dataset_batch(d, r->idx, *nb, *Tb, r->ids, r->lens, r->labels);
    return encoder_forward(r->m, &r->a, r->ids, r->lens, *nb, *Tb, e);
}

/* Solves (A) X = B in place for SPD A (n,n) and B (n,k): B becomes X. */
static int cholesky_solve(double *A, double *B, size_t n, size_t k, Err *e) {
    for (size_t j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (size_t p = 0; p < j; p++)
            d -= A[j * n + p] * A[j * n + p];
        if (!(d > 0.0))
            return err_set(e, ERR_RUNTIME, "the probe's normal equations are singular; raise "
                           "the ridge penalty");
        d = sqrt(d);
        A[j * n + j] = d;
        for (size_t i = j + 1; i < n; i++) {
            double s = A[i * n + j];
            for (size_t p = 0; p < j; p++)
                s -= A[i * n + p] * A[j * n + p];
            A[i * n + j] = s / d;
        }
    }
    for (size_t c = 0; c < k; c++) {
        for (size_t i = 0; i < n; i++) { /* L y = b */
            double s = B[i * k + c];
            for (size_t p = 0; p < i; p++)
                s -= A[i * n + p] * B[p * k + c];
            B[i * k + c] = s / A[i * n + i];
        }
        for (size_t i = n; i-- > 0;) { /* L^T x = y */
            double s = B[i * k + c];
            for (size_t p = i + 1; p < n; p++)
                s -= A[p * n + i] * B[p * k + c];
            B[i * k + c] = s / A[i * n + i];
        }
    }
    return 0;
}

static size_t longest(const Dataset *d, size_t limit) {
    size_t T = 0;
    for (size_t i = 0; i < d->n; i++) {
        size_t len = d->start[i + 1] - d->start[i];
        if (len <= limit && len > T)
            T = len;
    }
    return T;
}

/* The probe's sizes and sums: D inputs (the channels and a constant), M
 * targets (one-hot over the K positions, then the position itself), a set
 * of normal equations per row of hidden states (the input and each
 * layer's output). */
typedef struct {
    const Model *m;
    size_t C, D, K, M, rows, lead, limit;
    double *xtx, *xty, *x, *out; /* (rows,D,D), (rows,D,M), (D), (M) */
    size_t *count;               /* (K) test words at each position */
    Runner run;
} Probe;

/* 1. the normal equations of every row, over the fit sentences' words */
static int fit_sums(Probe *p, ProbeResult *r, const Dataset *fit, size_t *skipped, Err *e) {
    size_t nb, Tb, C = p->C, D = p->D, M = p->M, K = p->K;
    for (size_t next = 0;;) {
        int rc = next_batch(&p->run, fit, &next, p->limit, skipped, &nb, &Tb, e);
        if (rc || nb == 0)
            return rc;
        r->fit_sentences += nb;
        for (size_t b = 0; b < nb; b++)
            for (size_t t = 0; t + p->lead < p->run.lens[b]; t++) {
                r->fit_words += 1;
                for (size_t l = 0; l < p->rows; l++) {
                    const float *h = layer_rows(p->m, &p->run.a, l) + (b * Tb + p->lead + t) * C;
                    double *A = p->xtx + l * D * D, *B = p->xty + l * D * M, *x = p->x;
                    for (size_t c = 0; c < C; c++)
                        x[c] = h[c];
                    x[C] = 1.0;
                    for (size_t i = 0; i < D; i++) {
                        for (size_t j = 0; j <= i; j++)
                            A[i * D + j] += x[i] * x[j];
                        B[i * M + t] += x[i];
                        B[i * M + K] += x[i] * (double)t;
                    }
                }
            }
    }
}

/* 2. the ridge maps, into xty: the penalty scales with the mean squared
 * channel, and spares the constant */
static int solve_maps(Probe *p, double ridge, Err *e) {
    size_t C = p->C, D = p->D;
    int rc = 0;
    for (size_t l = 0; l < p->rows && !rc; l++) {
        double *A = p->xtx + l * D * D, tr = 0.0;
        for (size_t i = 0; i < D; i++)
            for (size_t j = 0; j < i; j++)
                A[j * D + i] = A[i * D + j];
        for (size_t c = 0; c < C; c++)
            tr += A[c * D + c];
        double lambda = ridge * (tr > 0.0 ? tr / (double)C : 1.0);
        for (size_t c = 0; c < C; c++)
            A[c * D + c] += lambda;
        rc = cholesky_solve(A, p->xty + l * D * p->M, D, p->M, e);
    }
    return rc;
}

/* 3. scored on the test sentences' words: each row's position read as the
 * largest one-hot output (right[l]) and as the regressed value (ss_res[l]) */
static int score_test(Probe *p, ProbeResult *r, const Dataset *test, size_t *skipped,
                      double *ss_res, size_t *right, double *sum_t, double *sum_tt, Err *e) {
    size_t nb, Tb, C = p->C, D = p->D, M = p->M, K = p->K;
    for (size_t next = 0;;) {
        int rc = next_batch(&p->run, test, &next, p->limit, skipped, &nb, &Tb, e);
        if (rc || nb == 0)
            return rc;
        r->test_sentences += nb;
        for (size_t b = 0; b < nb; b++)
            for (size_t t = 0; t + p->lead < p->run.lens[b]; t++) {
                r->test_words += 1;
                p->count[t]++;
                *sum_t += (double)t;
                *sum_tt += (double)t * (double)t;
                for (size_t l = 0; l < p->rows; l++) {
                    const float *h = layer_rows(p->m, &p->run.a, l) + (b * Tb + p->lead + t) * C;
                    const double *W = p->xty + l * D * M;
                    double *out = p->out;
                    for (size_t k = 0; k < M; k++)
                        out[k] = W[C * M + k];
                    for (size_t c = 0; c < C; c++)
                        for (size_t k = 0; k < M; k++)
                            out[k] += h[c] * W[c * M + k];
                    size_t best = 0;
                    for (size_t k = 1; k < K; k++)
                        if (out[k] > out[best])
                            best = k;
                    right[l] += best == t;
                    ss_res[l] += (out[K] - (double)t) * (out[K] - (double)t);
                }
            }
    }
}

static void probe_free(Probe *p) {
    runner_free(&p->run);
    free(p->xtx);
    free(p->xty);
    free(p->x);
    free(p->out);
    free(p->count);
}

int probe_position(ProbeResult *r, const Model *m, const Dataset *fit, const Dataset *test,
                   double ridge, Err *e) {
    memset(r, 0, sizeof *r);
    size_t C = m->cfg.d_model, D = C + 1, L = m->cfg.n_layers, limit = model_max_positions(m);
    if (C > PROBE_MAX_DIM)
        return err_set(e, ERR_INPUT, "the probe takes models up to d_model %d, not %zu",
                       PROBE_MAX_DIM, C);
    if (!(ridge > 0.0) || !isfinite(ridge))
        return err_set(e, ERR_INPUT, "the ridge penalty must be a positive number, not %g", ridge);
    /* The words alone: a [CLS] before them is always at position 0, and
     * reading it back would credit the model with the data's layout. A
     * word's position counts words, the first 0. */
    size_t lead = config_lead_tokens(&m->cfg);
    size_t T = longest(fit, limit), Ttest = longest(test, limit);
    if (T <= lead || Ttest <= lead)
        return err_set(e, ERR_INPUT, "no sentence the model can encode to probe with");
    if (Ttest > T)
        T = Ttest;
    size_t K = T - lead, M = K + 1, rows = L + 1;
    r->n_rows = rows;
    r->n_positions = K;
    Probe p = {.m = m, .C = C, .D = D, .K = K, .M = M, .rows = rows, .lead = lead,
               .limit = limit, .xtx = calloc(rows * D * D, sizeof *p.xtx),
               .xty = calloc(rows * D * M, sizeof *p.xty), .x = malloc(D * sizeof *p.x),
               .out = malloc(M * sizeof *p.out), .count = calloc(K, sizeof *p.count)};
    int rc = runner_init(&p.run, m, T, e);
    if (!rc && (!p.xtx || !p.xty || !p.x || !p.out || !p.count))
        rc = err_set(e, ERR_RUNTIME, "out of memory for the probe");
    size_t skipped = 0, right[MAX_LAYERS + 1] = {0};
    double ss_res[MAX_LAYERS + 1] = {0}, sum_t = 0.0, sum_tt = 0.0;
    if (!rc && !(rc = fit_sums(&p, r, fit, &skipped, e)) && !(rc = solve_maps(&p, ridge, e)))
        rc = score_test(&p, r, test, &skipped, ss_res, right, &sum_t, &sum_tt, e);
    if (!rc && r->test_words) {
        double n = (double)r->test_words, ss_tot = sum_tt - sum_t * sum_t / n;
        size_t most = 0;
        for (size_t k = 0; k < K; k++)
            most = p.count[k] > most ? p.count[k] : most;
        r->chance = (double)most / n;
        for (size_t l = 0; l < rows; l++) {
            r->accuracy[l] = (double)right[l] / n;
            r->r2[l] = ss_tot > 0.0 ? 1.0 - ss_res[l] / ss_tot : 0.0;
        }
    }
    r->skipped = skipped;
    probe_free(&p);
    return rc;
}
