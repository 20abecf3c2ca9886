/* The grid of docs/results.md as cells: one training (or, for section 1,
 * one untrained model) per (section, task, scheme, seed), each with its own
 * small result file, so that a run can stop anywhere, go on later, run
 * several cells at once, or hand them to other machines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fileio.h"
#include "../core/rng.h"
#include "../model/encoder.h"
#include "../text/order.h"
#include "exp_internal.h"
#include "trial.h"

static const char *const kind_id[EXP_KINDS] = {"order",       "tasks",   "lengths",
                                               "random",      "variants", "random-test",
                                               "scaling",     "causal",  "probe"};
static const char *const tasks2[2] = {"agent", "direction"};
static const char *const random_schemes[3] = {"sinusoidal", "learned", "rope"};

/* "interleaved, add, scaled" -> "interleaved-add-scaled" */
static void slug(char *dst, size_t cap, const char *name) {
    size_t j = 0;
    for (size_t i = 0; name[i] && j + 1 < cap; i++) {
        if (name[i] == ',')
            continue;
        dst[j++] = name[i] == ' ' ? '-' : name[i];
    }
    dst[j] = '\0';
}

static void add(ExpCell *cells, size_t *n, ExpKind kind, const char *task, const char *name,
                size_t seed, size_t variant, double cost) {
    ExpCell *c = &cells[(*n)++];
    memset(c, 0, sizeof *c);
    c->kind = kind, c->seed = seed, c->variant = variant, c->cost = cost;
    snprintf(c->task, sizeof c->task, "%s", task);
    snprintf(c->name, sizeof c->name, "%s", name);
    char s[sizeof c->name];
    slug(s, sizeof s, name);
    if (kind == EXP_ORDER)
        snprintf(c->id, sizeof c->id, "%s-%s-s%zu", kind_id[kind], s, seed + 1);
    else
        snprintf(c->id, sizeof c->id, "%s-%s-%s-s%zu", kind_id[kind], task, s, seed + 1);
}

int exp_cells(const ExpSettings *set, ExpCell **out, size_t *n_out, Err *e) {
    size_t S = exp_scheme_count(), k = set->seeds;
    size_t total = S * k + 2 * S * k + EXP_LENGTH_TASKS * (S + 3) * k +
                   EXP_VARIANTS * set->variant_seeds + EXP_LENGTH_TASKS * k +
                   EXP_CAUSAL_TASKS * (EXP_CAUSAL_SCHEMES + 1) * k + EXP_PROBES * k;
    ExpCell *c = xcalloc(total, sizeof *c, "the experiments' cells", e);
    if (!c)
        return ERR_RUNTIME;
    size_t n = 0;
    /* the cost of a cell, for the time left: its training steps (the
     * length runs also evaluate four times the lengths) */
    double order = 1.0, task = (double)set->task_steps, len = 1.3 * (double)set->length_steps;
    for (size_t s = 0; s < S; s++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_ORDER, "order", exp_scheme_at(s), i, 0, order);
    for (size_t t = 0; t < 2; t++)
        for (size_t s = 0; s < S; s++)
            for (size_t i = 0; i < k; i++)
                add(c, &n, EXP_TASKS, tasks2[t], exp_scheme_at(s), i, 0, task);
    for (int rnd = 0; rnd < 2; rnd++)
        for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
            for (size_t s = 0; s < (rnd ? 3 : S); s++)
                for (size_t i = 0; i < k; i++)
                    add(c, &n, rnd ? EXP_RANDOM : EXP_LENGTHS, exp_length_tasks[t],
                        rnd ? random_schemes[s] : exp_scheme_at(s), i, 0, len);
    for (size_t v = 0; v < EXP_VARIANTS; v++)
        for (size_t i = 0; i < set->variant_seeds; i++)
            add(c, &n, EXP_VARIANT, "reverse", exp_variant_names[v], i, v, len);
    /* one training at L, then 7 evaluations and 7 fine-tunings */
    double scaling = len + (double)EXP_SCALINGS * 1.3 * (double)set->tune_steps;
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_SCALING, exp_length_tasks[t], "rope", i, 0, scaling);
    /* and none without the mask, variant 1: what the mask alone gives */
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (size_t s = 0; s <= EXP_CAUSAL_SCHEMES; s++)
            for (size_t i = 0; i < k; i++)
                add(c, &n, EXP_CAUSAL, exp_causal_tasks[t],
                    s < EXP_CAUSAL_SCHEMES ? exp_causal_schemes[s] : EXP_NO_MASK, i,
                    s == EXP_CAUSAL_SCHEMES, len);
    for (size_t p = 0; p < EXP_PROBES; p++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_PROBE, "previous", exp_probe_names[p], i, p,
                (double)set->length_steps * (double)set->probe_layers / (double)set->layers);
    *out = c;
    *n_out = n;
    return 0;
}

const ExpCell *exp_cell_find(const ExpCell *cells, size_t n, const char *id) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(cells[i].id, id) == 0)
            return &cells[i];
    return NULL;
}

void exp_settings_key(char *buf, size_t cap, const ExpSettings *s) {
    snprintf(buf, cap, "quick=%d d_model=%zu heads=%zu layers=%zu d_ff=%zu batch=%zu "
             "task_steps=%zu length_steps=%zu min_len=%zu L=%zu n_test=%zu n_test_lengths=%zu "
             "tune_steps=%zu probe_layers=%zu",
             s->quick, s->d_model, s->heads, s->layers, s->d_ff, s->batch, s->task_steps,
             s->length_steps, s->min_len, s->L, s->n_test, s->n_test_lengths, s->tune_steps,
             s->probe_layers);
}

Config exp_model_config(const ExpSettings *set, const char *scheme, uint64_t seed) {
    Config c;
    const PeScheme *s = exp_scheme_base(scheme);
    config_default(&c, 0, s ? s->name : scheme);
    exp_scheme_form(&c, scheme);
    c.d_model = set->d_model, c.n_heads = set->heads, c.n_layers = set->layers;
    c.d_ff = set->d_ff, c.seed = seed;
    return c;
}

/* Section 1: the largest |difference| of aligned output rows of an
 * untrained model, over sentences of 8 distinct words and random
 * reorderings of them; the reorderings are the seed's, the same for every
 * scheme. A model that pools by [CLS] reads it first in both (word
 * N + 2, the same place). */
static int order_gap(const Config *c, uint64_t seed, double *gap, Err *e) {
    enum { N = 8, PAIRS = 4 };
    Model m;
    Acts a;
    Config cc = *c;
    size_t f = c->pool == POOL_CLS ? 1 : 0, T = N + f; /* f: the [CLS] before the words */
    cc.vocab_size = N + 2 + f;
    cc.max_len = T;
    int rc = model_create(&m, &cc, e);
    if (rc)
        return rc;
    if ((rc = acts_create(&a, &m, 2, T, e))) {
        model_free(&m);
        return rc;
    }
    Rng r;
    rng_seed(&r, seed);
    double worst = 0.0;
    for (int k = 0; k < PAIRS && !rc; k++) {
        int ids[2 * (N + 1)];
        size_t perm[N + 1], lens[2] = {T, T};
        for (size_t i = 0; i < N; i++)
            perm[i] = i;
        rng_shuffle(&r, perm, N);
        if (f) { /* [CLS] at 0, lined up with itself */
            memmove(perm + 1, perm, N * sizeof *perm);
            perm[0] = 0;
            for (size_t i = 1; i <= N; i++)
                perm[i]++;
            ids[0] = ids[T] = N + 2;
        }
        for (size_t i = f; i < T; i++)
            ids[i] = 2 + (int)(i - f), ids[T + i] = 2 + (int)perm[i] - (int)f;
        rc = encoder_forward(&m, &a, ids, lens, 2, T, e);
        size_t C = m.cfg.d_model;
        if (!rc)
            worst = fmax(worst, max_aligned_diff(a.hidden, a.hidden + T * C, perm, T, C));
    }
    acts_free(&a);
    model_free(&m);
    *gap = worst;
    return rc;
}

void exp_train_meta(TrainMeta *mt, const ExpSettings *set, const ExpCell *cell, bool lengths) {
    *mt = (TrainMeta){.batch = set->batch, .seed = 1 + cell->seed,
                      .steps = cell->kind == EXP_TASKS ? set->task_steps : set->length_steps,
                      .random_positions = cell->kind == EXP_RANDOM ? 4 * set->L : 0};
    mt->eval_every = mt->steps;
    /* the seed draws the data too: the spread over seeds is then that of
     * a new experiment, not of one data set's initialisations */
    mt->task_opt = (TaskOptions){.seed = 1 + cell->seed,
                                 .n_test = lengths ? set->n_test_lengths : set->n_test};
    if (lengths)
        mt->task_opt.min_len = set->min_len, mt->task_opt.max_train_len = set->L,
        mt->task_opt.max_len = 4 * set->L;
    snprintf(mt->task, sizeof mt->task, "%s", cell->task);
}

void exp_run_free(ExpRun *run) {
    free(run->per_len);
    free(run->per_len_at);
    for (size_t i = 0; i < run->n_extra; i++)
        free(run->extra[i].per_len);
    run->per_len = run->per_len_at = NULL;
    run->n_extra = 0;
}

int exp_cell_run(const ExpSettings *set, const ExpCell *cell, ExpRun *run, Err *e) {
    memset(run, 0, sizeof *run);
    run->kind = cell->kind, run->seed = cell->seed;
    snprintf(run->task, sizeof run->task, "%s", cell->task);
    snprintf(run->name, sizeof run->name, "%s", cell->name);
    bool variant = cell->kind == EXP_VARIANT;
    if (cell->kind == EXP_SCALING)
        return exp_run_scaling(set, cell, run, e);
    if (cell->kind == EXP_PROBE)
        return exp_run_probe(set, cell, run, e);
    bool no_mask = cell->kind == EXP_CAUSAL && cell->variant == 1;
    Config c = exp_model_config(set, variant ? "sinusoidal" : no_mask ? "none" : cell->name,
                                1 + cell->seed);
    if (cell->kind == EXP_ORDER)
        return order_gap(&c, 1 + cell->seed, &run->value, e);
    if (variant)
        exp_variant_config(&c, cell->variant);
    c.causal = cell->kind == EXP_CAUSAL && !no_mask;
    bool lengths = cell->kind == EXP_LENGTHS || cell->kind == EXP_RANDOM ||
                   cell->kind == EXP_CAUSAL;
    TrainMeta mt;
    exp_train_meta(&mt, set, cell, lengths);
    OptConfig opt;
    opt_default(&opt);
    Trial t;
    int rc = trial_run(&t, &mt, &c, &opt, e);
    if (rc)
        return rc;
    run->value = t.accuracy;
    if (lengths) {
        run->per_len = t.per_len, run->max_len = t.max_len;
        run->per_len_at = t.per_len_at, run->value_at = t.accuracy_at;
        t.per_len = t.per_len_at = NULL;
    }
    trial_free(&t);
    return 0;
}

/* ---- cell files ---- */

#define CELL_MAGIC "posenc cell 3" /* 2: per_len_at; 3: extras */

int exp_cell_format(Buf *b, const ExpSettings *set, const ExpCell *cell, const ExpRun *run,
                    const char *source, const char *kernels, double seconds) {
    char key[512];
    exp_settings_key(key, sizeof key, set);
    buf_printf(b, "%s\nid %s\nsource %s\nsettings %s\nkernels %s\nvalue %.17g\nper_len %zu",
               CELL_MAGIC, cell->id, source, key, kernels, run->value,
               run->per_len ? run->max_len + 1 : 0);
    for (size_t i = 0; run->per_len && i <= run->max_len; i++)
        buf_printf(b, " %.17g", run->per_len[i]);
    buf_printf(b, "\nvalue_at %.17g\nper_len_at %zu", run->per_len_at ? run->value_at : 0.0,
               run->per_len_at ? run->max_len + 1 : 0);
    for (size_t i = 0; run->per_len_at && i <= run->max_len; i++)
        buf_printf(b, " %.17g", run->per_len_at[i]);
    buf_printf(b, "\nextras %zu", run->n_extra);
    for (size_t k = 0; k < run->n_extra; k++) {
        const ExpExtra *x = &run->extra[k];
        buf_printf(b, "\nextra %s %.17g %zu", x->name, x->value, x->per_len ? run->max_len + 1 : 0);
        for (size_t i = 0; x->per_len && i <= run->max_len; i++)
            buf_printf(b, " %.17g", x->per_len[i]);
    }
    buf_printf(b, "\nseconds %.3f\nend\n", seconds);
    return b->failed ? ERR_RUNTIME : 0;
}

/* The value after "name " on the line at *p, which moves to the next
 * line; NULL if the line is another. */
static const char *field(const char **p, const char *end, const char *name, char *buf,
                         size_t cap) {
    size_t len = strlen(name);
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl || (size_t)(nl - *p) < len + 1 || strncmp(*p, name, len) != 0 || (*p)[len] != ' ')
        return NULL;
    size_t n = (size_t)(nl - *p) - len - 1;
    if (n >= cap)
        return NULL;
    memcpy(buf, *p + len + 1, n);
    buf[n] = '\0';
    *p = nl + 1;
    return buf;
}

/* "COUNT v0 v1 ..." in line: COUNT numbers into *out (malloc'ed; NULL
 * when COUNT is 0). */
static int parse_values(const char *line, const char *name, double **out, size_t *count,
                        const char *id, Err *e) {
    char *q;
    unsigned long n = strtoul(line, &q, 10);
    if (q == line || n > 4096)
        return err_set(e, ERR_INPUT, "cell %s: a damaged %s line", id, name);
    *count = n;
    if (!n)
        return 0;
    if (!(*out = malloc(n * sizeof **out)))
        return err_set(e, ERR_RUNTIME, "out of memory reading cell %s", id);
    for (size_t i = 0; i < n; i++) {
        char *r;
        (*out)[i] = strtod(q, &r);
        if (r == q)
            return err_set(e, ERR_INPUT, "cell %s: %s has fewer than %lu values", id, name, n);
        q = r;
    }
    if (*q)
        return err_set(e, ERR_INPUT, "cell %s: %s has more than %lu values", id, name, n);
    return 0;
}

/* Parses the record after the magic line; line is a buffer as long as the
 * record, for one line at a time. */
static int parse_body(const char **pp, const char *end, char *line, size_t cap,
                      ExpCellFile *f, Err *e) {
    const char *p = *pp;
    if (!field(&p, end, "id", f->id, sizeof f->id) ||
        !field(&p, end, "source", f->source, sizeof f->source) ||
        !field(&p, end, "settings", f->settings, sizeof f->settings) ||
        !field(&p, end, "kernels", f->kernels, sizeof f->kernels) ||
        !field(&p, end, "value", line, cap))
        return err_set(e, ERR_INPUT, "a cell record cut short or damaged");
    char *q;
    f->value = strtod(line, &q);
    if (q == line || *q)
        return err_set(e, ERR_INPUT, "cell %s: its value '%s' is not a number", f->id, line);
    int rc = 0;
    size_t count;
    if (!field(&p, end, "per_len", line, cap) ||
        (rc = parse_values(line, "per_len", &f->per_len, &count, f->id, e)))
        return rc ? rc : err_set(e, ERR_INPUT, "cell %s: no per_len line", f->id);
    f->max_len = count ? count - 1 : 0;
    if (!field(&p, end, "value_at", line, cap))
        return err_set(e, ERR_INPUT, "cell %s: no value_at line", f->id);
    f->value_at = strtod(line, &q);
    if (q == line || *q)
        return err_set(e, ERR_INPUT, "cell %s: its value_at '%s' is not a number", f->id, line);
    size_t count_at;
    if (!field(&p, end, "per_len_at", line, cap) ||
        (rc = parse_values(line, "per_len_at", &f->per_len_at, &count_at, f->id, e)))
        return rc ? rc : err_set(e, ERR_INPUT, "cell %s: no per_len_at line", f->id);
    if (count_at && count_at != count)
        return err_set(e, ERR_INPUT, "cell %s: per_len_at has %zu lengths, per_len %zu", f->id,
                       count_at, count);
    if (!field(&p, end, "extras", line, cap))
        return err_set(e, ERR_INPUT, "cell %s: no extras line", f->id);
    unsigned long n_extra = strtoul(line, &q, 10);
    if (q == line || *q || n_extra > EXP_MAX_EXTRA)
        return err_set(e, ERR_INPUT, "cell %s: a damaged extras line", f->id);
    for (size_t k = 0; k < n_extra; k++) {
        ExpExtra *x = &f->extra[k];
        if (!field(&p, end, "extra", line, cap))
            return err_set(e, ERR_INPUT, "cell %s: %lu extras announced, %zu found", f->id,
                           n_extra, k);
        f->n_extra = k + 1;
        int used = 0;
        if (sscanf(line, "%39s %lf%n", x->name, &x->value, &used) != 2)
            return err_set(e, ERR_INPUT, "cell %s: a damaged extra line", f->id);
        size_t cx;
        if ((rc = parse_values(line + used, "extra", &x->per_len, &cx, f->id, e)))
            return rc;
        if (cx && cx != count)
            return err_set(e, ERR_INPUT, "cell %s: extra %s has %zu lengths, per_len %zu", f->id,
                           x->name, cx, count);
    }
    if (!field(&p, end, "seconds", line, cap) || (size_t)(end - p) < 4 ||
        memcmp(p, "end\n", 4) != 0)
        return err_set(e, ERR_INPUT, "cell %s: a record cut short (no 'end' line)", f->id);
    f->seconds = atof(line);
    *pp = p + 4;
    return 0;
}

int exp_cell_parse(const char *text, size_t n, size_t *used, ExpCellFile *f, Err *e) {
    memset(f, 0, sizeof *f);
    size_t magic = strlen(CELL_MAGIC);
    if (n < magic + 1 || memcmp(text, CELL_MAGIC "\n", magic + 1) != 0)
        return err_set(e, ERR_INPUT, "not a cell record (no '%s' line)", CELL_MAGIC);
    char *line = malloc(n + 1);
    if (!line)
        return err_set(e, ERR_RUNTIME, "out of memory reading a cell record");
    const char *p = text + magic + 1;
    int rc = parse_body(&p, text + n, line, n + 1, f, e);
    free(line);
    if (rc) {
        exp_cell_file_free(f);
        return rc;
    }
    *used = (size_t)(p - text);
    return 0;
}

void exp_cell_file_free(ExpCellFile *f) {
    free(f->per_len);
    free(f->per_len_at);
    for (size_t i = 0; i < f->n_extra; i++)
        free(f->extra[i].per_len);
    f->per_len = f->per_len_at = NULL;
    f->n_extra = 0;
}

static void cell_path(char *path, size_t cap, const char *dir, const char *id) {
    snprintf(path, cap, "%s/%s.cell", dir, id);
}

int exp_cell_save_text(const char *dir, const char *id, const char *text, size_t n, Err *e) {
    char path[4096];
    cell_path(path, sizeof path, dir, id);
    return write_file_atomic(path, text, n, e);
}

ExpCellState exp_cell_load(const char *dir, const ExpSettings *set, const ExpCell *cell,
                           const char *source, ExpCellFile *f, Err *e) {
    char path[4096];
    cell_path(path, sizeof path, dir, cell->id);
    memset(f, 0, sizeof *f);
    FILE *in = fopen(path, "rb");
    if (!in)
        return CELL_MISSING;
    char *text = NULL;
    size_t n = 0, used = 0;
    int rc = read_stream(in, path, 1 << 20, &text, &n, e);
    fclose(in);
    if (rc || exp_cell_parse(text, n, &used, f, e)) {
        free(text);
        return CELL_DAMAGED;
    }
    free(text);
    char key[512];
    exp_settings_key(key, sizeof key, set);
    if (strcmp(f->id, cell->id) != 0 || strcmp(f->settings, key) != 0) {
        exp_cell_file_free(f);
        return CELL_OTHER_SETTINGS;
    }
    if (strcmp(f->source, source) != 0) {
        exp_cell_file_free(f);
        return CELL_OTHER_SOURCE;
    }
    return CELL_DONE;
}
