#include "train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/options.h"
#include "../core/rng.h"
#include "overflow.h"
#include "par.h"

/* What to do about a diverged run, to a program whose runs take a learning
 * rate (the experiments' cells have theirs fixed: options.h). */
#define DIVERGED_ADVICE options_if("--lr", "; lower --lr or use --warmup")

/* The gradient's norm sums the parameters in fixed chunks of CHUNK
 * elements (the unit of work of a thread, and of the partial sums),
 * whatever the number of threads. */
#define CHUNK 16384

void opt_default(OptConfig *o) {
    memset(o, 0, sizeof *o);
    o->lr = 1e-3f;
    o->beta1 = 0.9f;
    o->beta2 = 0.98f;
    o->eps = 1e-9f;
    o->weight_decay = 0.01f;
    o->clip = 1.0f;
    o->schedule = SCHEDULE_CONSTANT;
    o->warmup = 100;
}

int opt_check(const OptConfig *o, Err *e) {
    if (!(o->lr > 0.0f && o->lr <= 10.0f))
        return err_set(e, ERR_INPUT, "the learning rate must be in (0, 10], not %g%s",
                       (double)o->lr, options_if("--lr", "; set --lr"));
    if (!(o->beta1 >= 0.0f && o->beta1 < 1.0f && o->beta2 >= 0.0f && o->beta2 < 1.0f))
        return err_set(e, ERR_INPUT, "Adam's betas must be in [0, 1)");
    if (!(o->eps > 0.0f) || !(o->weight_decay >= 0.0f) || !(o->clip >= 0.0f))
        return err_set(e, ERR_INPUT, "eps must be positive, weight decay and clip not negative");
    if (o->schedule != SCHEDULE_CONSTANT && o->schedule != SCHEDULE_NOAM)
        return err_set(e, ERR_INPUT, "the schedule is constant or noam");
    if (o->schedule == SCHEDULE_NOAM && o->warmup == 0)
        return err_set(e, ERR_INPUT, "the noam schedule needs a warm-up of at least 1 step%s",
                       options_if("--warmup", " (--warmup)"));
    return 0;
}

float opt_lr(const OptConfig *o, size_t s) {
    double step = (double)(s ? s : 1), w = (double)o->warmup;
    if (o->schedule == SCHEDULE_NOAM)
        /* d^-0.5 min(s^-0.5, s w^-1.5) divided by its value at s = w */
        return (float)(o->lr * fmin(sqrt(w / step), step / w));
    if (o->warmup && step < w)
        return (float)(o->lr * step / w);
    return o->lr;
}

int trainer_create(Trainer *t, const Model *m, const OptConfig *o, size_t B, size_t T, Err *e) {
    memset(t, 0, sizeof *t);
    int rc = opt_check(o, e);
    if (rc)
        return rc;
    if (!m->cfg.n_classes)
        return err_set(e, ERR_INPUT, "the model has no output head to train");
    t->opt = *o;
    t->n = m->n_params;
    size_t n3;
    if ((rc = size_mul(&n3, t->n, 3, e)))
        return rc;
    t->mem = xcalloc(n3, sizeof *t->mem, "the gradients and optimizer state", e);
    if (!t->mem)
        return ERR_RUNTIME;
    t->part = xcalloc(n3 / 3 / CHUNK + 1, sizeof *t->part, "the gradient norm's sums", e);
    if (!t->part) {
        trainer_free(t);
        return ERR_RUNTIME;
    }
    t->grad = t->mem;
    t->m = t->mem + t->n;
    t->v = t->mem + 2 * t->n;
    params_carve(m, &t->g, t->grad);
    if ((rc = gradacts_create_micro(&t->ga, m, B, T, micro_sentences(B, T), e))) {
        trainer_free(t);
        return rc;
    }
    return 0;
}

void trainer_free(Trainer *t) {
    gradacts_free(&t->ga);
    free(t->mem);
    free(t->part);
    memset(t, 0, sizeof *t);
}

/* Weight matrices decay; biases, LayerNorm and the embedding tables do
 * not (the usual AdamW practice: decaying them only hurts). */
static int decays(const ParamSpec *s) {
    return s->rows > 1 && s->init == INIT_UNIFORM;
}

/* AdamW's step on n elements of one parameter. The coefficients are
 * locals and the arrays restrict, so the loop is vectorized (with
 * -fno-math-errno, the Makefile, sqrtf is one instruction): each element
 * still gets the same IEEE operations in the same order, so the same
 * numbers as the scalar loop. */
static void adamw_run(float *restrict w, float *restrict mom, float *restrict vel,
                      const float *restrict grad, size_t n, float lr, float clip_scale,
                      float b1, float b2, float c1, float c2, float eps, float wd) {
    for (size_t i = 0; i < n; i++) {
        float g = grad[i] * clip_scale;
        mom[i] = b1 * mom[i] + (1.0f - b1) * g;
        vel[i] = b2 * vel[i] + (1.0f - b2) * g * g;
        float mhat = mom[i] * c1, vhat = vel[i] * c2;
        w[i] -= lr * (mhat / (sqrtf(vhat) + eps) + wd * w[i]);
    }
}

/* AdamW on elements lo..hi-1, which may span several parameters. */
static void adamw_range(Trainer *t, Model *m, float lr, float clip_scale, float c1, float c2,
                        size_t lo, size_t hi) {
    const OptConfig *o = &t->opt;
    for (size_t s = 0; s < m->n_specs && lo < hi; s++) {
        const ParamSpec *spec = &m->specs[s];
        size_t end = spec->offset + spec->rows * spec->cols;
        if (end <= lo)
            continue;
        end = end < hi ? end : hi;
        float wd = decays(spec) ? o->weight_decay : 0.0f;
        adamw_run(m->mem + lo, t->m + lo, t->v + lo, t->grad + lo, end - lo, lr, clip_scale,
                  o->beta1, o->beta2, c1, c2, o->eps, wd);
        lo = end;
    }
}

static void adamw(Trainer *t, Model *m, float lr, float clip_scale) {
    double step = (double)t->step;
    float c1 = (float)(1.0 / (1.0 - pow(t->opt.beta1, step)));
    float c2 = (float)(1.0 / (1.0 - pow(t->opt.beta2, step)));
    /* Each element on its own, so any split gives the same numbers: one
     * block per thread. */
    size_t n = t->n, team = (size_t)par_threads(), per = par_block(n, 16);
    PAR_FOR_IF(team > 1 && n > PAR_MIN_WORK)
    for (size_t k = 0; k < team; k++)
        if (k * per < n) {
            size_t lo = k * per, hi = n - lo < per ? n : lo + per;
            adamw_range(t, m, lr, clip_scale, c1, c2, lo, hi);
        }
}

/* The gradient's norm: each chunk's sum of squares in double, then the
 * chunks' sums in chunk order, so the number does not depend on the
 * number of threads. */
static double grad_norm2(const Trainer *t, double *part) {
    size_t n = t->n, chunks = (n + CHUNK - 1) / CHUNK;
    PAR_FOR_IF(chunks > 1)
    for (size_t c = 0; c < chunks; c++) {
        size_t hi = n - c * CHUNK < CHUNK ? n : (c + 1) * CHUNK;
        double sum = 0.0;
        for (size_t i = c * CHUNK; i < hi; i++)
            sum += (double)t->grad[i] * t->grad[i];
        part[c] = sum;
    }
    double norm2 = 0.0;
    for (size_t c = 0; c < chunks; c++)
        norm2 += part[c];
    return norm2;
}

/* A step whose loss or gradient is not finite (what says which, and the
 * step): the cause found (overflow.h), not guessed. The learning rate is
 * named only where it could have acted: after an update, with every
 * weight finite and no factor of the positions to blame. Before the
 * first update the weights the run starts from are at fault; a factor of
 * the positions is the options' (ERR_INPUT, as a bad option). */
static int diverged(const Trainer *t, const Model *m, const Acts *a, const size_t *lens,
                    size_t B, size_t T, const char *what, Err *e) {
    char why[400];
    OverflowCause cause = overflow_cause(why, sizeof why, m, a, lens, 0, B, T);
    if (cause == OVERFLOW_SCHEME)
        return err_set(e, ERR_INPUT, "%s: %s", what, why);
    if (t->step == 0)
        return err_set(e, ERR_INPUT, "%s, before any update, so in the weights the run starts "
                       "from: %s; start from other weights", what, why);
    if (cause == OVERFLOW_WEIGHT)
        return err_set(e, ERR_RUNTIME, "%s: %s after %zu updates: training diverged%s", what,
                       why, t->step, DIVERGED_ADVICE);
    return err_set(e, ERR_RUNTIME, "%s: %s, every weight finite and no factor of the positions "
                   "to blame: training diverged%s", what, why, DIVERGED_ADVICE);
}

int train_step(Trainer *t, Model *m, Acts *a, const int *ids, const size_t *lens,
               const size_t *pos, const int *labels, size_t B, size_t T, StepStats *st, Err *e) {
    int rc;
    par_follow_load();
    /* The gradients of the activations follow the activations' shape:
     * made for a micro-batch by trainer_create, for a whole batch when the
     * caller's activations keep one (acts_create). */
    if (t->ga.B < a->B || t->ga.T < a->T || t->ga.Bm < a->Bm) {
        gradacts_free(&t->ga);
        if ((rc = gradacts_create_micro(&t->ga, m, a->B, a->T, a->Bm, e)))
            return rc;
    }
    memset(st, 0, sizeof *st);
    PAR_FOR_IF(t->n > 16 * PAR_MIN_WORK)
    for (size_t i = 0; i < t->n; i += PAR_MIN_WORK) {
        size_t len = t->n - i < PAR_MIN_WORK ? t->n - i : PAR_MIN_WORK;
        memset(t->grad + i, 0, len * sizeof *t->grad);
    }
    /* dropout for this step alone: its masks depend on the model's seed
     * and the step, so a resumed run draws the ones it would have drawn */
    size_t next = t->step + 1;
    a->drop = (Dropout){.p = m->cfg.dropout, .key = rng_hash(m->cfg.seed, next)};
    rc = encoder_train_batch(m, &t->g, a, &t->ga, ids, lens, pos, labels, B, T, &st->loss,
                             &st->correct, &st->labelled, e);
    st->in_loss = xent_rows_in_loss(labels, m->cfg.per_token ? B * T : B, NULL);
    a->drop = (Dropout){0};
    if (rc)
        return rc;
    char what[64];
    if (!isfinite(st->loss)) {
        snprintf(what, sizeof what, "the loss is %g at step %zu", (double)st->loss, next);
        return diverged(t, m, a, lens, B, T, what, e);
    }
    st->grad_norm = (float)sqrt(grad_norm2(t, t->part));
    if (!isfinite(st->grad_norm)) {
        snprintf(what, sizeof what, "the gradient is not finite at step %zu", next);
        return diverged(t, m, a, lens, B, T, what, e);
    }
    float scale = 1.0f;
    if (t->opt.clip > 0.0f && st->grad_norm > t->opt.clip)
        scale = t->opt.clip / st->grad_norm;
    t->step = next;
    st->lr = opt_lr(&t->opt, t->step);
    adamw(t, m, st->lr, scale);
    model_pe_constrain(m);
    return 0;
}

int eval_batch(const Model *m, Acts *a, const int *ids, const size_t *lens, const int *labels,
               size_t B, size_t T, StepStats *st, Err *e) {
    return eval_batch_at(m, a, ids, lens, NULL, labels, B, T, st, e);
}

int eval_batch_at(const Model *m, Acts *a, const int *ids, const size_t *lens,
                  const size_t *pos, const int *labels, size_t B, size_t T, StepStats *st,
                  Err *e) {
    par_follow_load();
    int rc = encoder_forward_at(m, a, ids, lens, pos, B, T, e);
    if (rc)
        return rc;
    memset(st, 0, sizeof *st);
    st->loss = encoder_loss(m, a, NULL, labels, B, T, &st->correct, &st->labelled);
    st->in_loss = xent_rows_in_loss(labels, m->cfg.per_token ? B * T : B, NULL);
    return 0;
}
