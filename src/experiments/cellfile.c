/* Cell files (docs/formats.md, "Cell files"): one record of text per
 * cell, "key value" lines in a fixed order under a versioned magic line,
 * closed by a checksum. A record is trusted only after it is checked as a
 * checkpoint is, field by field: what it claims to be, what made it, and
 * every number against what the settings say its kind holds. A file that
 * fails is damaged: its cell counts as not done and runs again. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/buf.h"
#include "../core/fileio.h"
#include "cellfile.h"

/* Numbers per per_len line, at most: lengths up to 4L, layers of a probe. */
#define MAX_VALUES 4096

/* ---- what a kind holds ---- */

static void add_name(ExpCellShape *sh, const char *name) {
    snprintf(sh->names[sh->n_series++], EXP_SERIES_NAME, "%s", name);
}

void exp_cell_shape(ExpCellShape *sh, const ExpSettings *set, const ExpCell *cell) {
    memset(sh, 0, sizeof *sh);
    sh->lo = 0.0, sh->hi = 1.0, sh->has_exact = true;
    add_name(sh, "main");
    switch (cell->kind) {
    case EXP_ORDER: /* the largest |difference| of two rows */
        sh->hi = INFINITY, sh->has_exact = false;
        return;
    case EXP_PROBE: { /* R^2 per layer, from the input (row 0) up */
        sh->lo = -INFINITY, sh->has_exact = false;
        sh->n_per_len = set->probe_layers + 1;
        sh->first = 0, sh->last = set->probe_layers;
        return;
    }
    case EXP_LENGTHS:
    case EXP_RANDOM:
    case EXP_CAUSAL:
    case EXP_SCALING: {
        /* lengths counted in words, 0..4L; a model that pools by [CLS]
         * reads one token more, and its test split's longest sentence is
         * one token longer (the last entry: no sentence of 4L+1 words) */
        Config c = exp_cell_config(set, cell);
        size_t cls = c.pool == POOL_CLS, top = 4 * set->L;
        sh->n_per_len = sh->n_exact_len = top + 1 + cls;
        sh->first = set->min_len, sh->last = top;
        /* a learned table has rows for the trained lengths only (with
         * random positions, 4L) */
        size_t trained = (cell->kind == EXP_RANDOM ? top : set->L) + cls;
        PePlan plan;
        Err e;
        if (pe_plan(&plan, &c.pe, c.d_model, c.n_heads, trained, &e) == 0 &&
            plan.max_positions - cls < sh->last)
            sh->last = plan.max_positions - cls;
        if (cell->kind == EXP_RANDOM)
            add_name(sh, "at");
        if (cell->kind == EXP_SCALING || exp_cell_holds_scaling(cell)) {
            for (size_t v = 1; v < EXP_SCALINGS; v++)
                add_name(sh, exp_scaling_names[v]);
            for (size_t v = 0; v < EXP_SCALINGS; v++) {
                char name[EXP_SERIES_NAME];
                snprintf(name, sizeof name, "%s-tuned", exp_scaling_names[v]);
                add_name(sh, name);
            }
        }
        return;
    }
    case EXP_BENCH: /* per input length 1..M; the score over N+1..M */
        sh->n_per_len = sh->n_exact_len = set->bench_M + 1;
        sh->first = 1, sh->last = set->bench_M;
        sh->mean_from = set->bench_N + 1, sh->mean_to = set->bench_M;
        return;
    default: /* tasks, variants: one accuracy */
        return;
    }
}

/* ---- writing ---- */

/* NaN as "nan" whatever its sign bit, every other number exactly */
static void put_number(Buf *b, double v) {
    if (isnan(v))
        buf_printf(b, "nan");
    else
        buf_printf(b, "%.17g", v);
}

static void put_values(Buf *b, const char *key, const double *v, size_t n) {
    buf_printf(b, "%s %zu", key, n);
    for (size_t i = 0; i < n; i++) {
        buf_printf(b, " ");
        put_number(b, v[i]);
    }
    buf_printf(b, "\n");
}

int exp_cell_format(Buf *b, const ExpSettings *set, const ExpCell *cell,
                    const ExpCellResult *res, const char *source, const char *kernels,
                    double seconds) {
    char key[512];
    exp_cell_key(key, sizeof key, set, cell);
    size_t start = b->n;
    buf_printf(b, "%s\nid %s\nkind %s\ntask %s\nname %s\nseed %zu\nsource %s\nsettings %s\n"
               "kernels %s\nseconds %.3f\nresults %zu\n", EXP_CELL_MAGIC, cell->id,
               exp_kind_names[cell->kind], cell->task, cell->name, cell->seed + 1, source, key,
               kernels, seconds, res->n_series);
    for (size_t k = 0; k < res->n_series; k++) {
        const ExpSeries *x = &res->series[k];
        buf_printf(b, "result %s value ", x->name);
        put_number(b, x->value);
        buf_printf(b, " exact ");
        put_number(b, x->exact);
        buf_printf(b, "\n");
        put_values(b, "per_len", x->per_len, res->n_per_len);
        put_values(b, "exact_len", x->exact_len, res->n_exact_len);
    }
    if (b->failed)
        return ERR_RUNTIME;
    buf_printf(b, "checksum %016llx\nend\n",
               (unsigned long long)buf_fnv1a(b->p + start, b->n - start));
    return b->failed ? ERR_RUNTIME : 0;
}

/* ---- reading ---- */

typedef struct {
    const char *p, *end; /* the rest of the record */
    char *line;          /* one line, as long as the record */
    Err *e;
} Cursor;

/* The next line, which must be "key VALUE", into c->line (VALUE alone);
 * the lines come in a fixed order, so another key is damage. */
static int next(Cursor *c, const char *key) {
    size_t k = strlen(key);
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    if (!nl)
        return err_set(c->e, ERR_INPUT, "the record is cut short before its '%s' line", key);
    size_t n = (size_t)(nl - c->p);
    if (n < k + 1 || memcmp(c->p, key, k) != 0 || c->p[k] != ' ')
        return err_set(c->e, ERR_INPUT, "line '%.*s' where the '%s' line belongs",
                       (int)(n < 40 ? n : 40), c->p, key);
    memcpy(c->line, c->p + k + 1, n - k - 1);
    c->line[n - k - 1] = '\0';
    if (memchr(c->line, '\0', n - k - 1))
        return err_set(c->e, ERR_INPUT, "a NUL byte in the '%s' line", key);
    c->p = nl + 1;
    return 0;
}

/* The next line's VALUE as a string of at most cap - 1 bytes. */
static int text_field(Cursor *c, const char *key, char *out, size_t cap) {
    int rc = next(c, key);
    if (rc)
        return rc;
    if (!c->line[0] || strlen(c->line) >= cap)
        return err_set(c->e, ERR_INPUT, "its %s is empty or longer than %zu bytes", key,
                       cap - 1);
    memcpy(out, c->line, strlen(c->line) + 1);
    return 0;
}

/* A number at *s (moved past it): decimal, or nan; range is checked
 * later, against the kind. */
static int number(const char **s, double *v) {
    char *q;
    errno = 0;
    *v = strtod(*s, &q);
    if (q == *s || (**s != '-' && (**s < '0' || **s > '9') && strncmp(*s, "nan", 3) != 0))
        return 1;
    *s = q;
    return 0;
}

static int count(const char **s, size_t *n) {
    if (**s < '0' || **s > '9')
        return 1;
    char *q;
    errno = 0;
    unsigned long long v = strtoull(*s, &q, 10);
    if (errno || v > MAX_VALUES)
        return 1;
    *n = (size_t)v, *s = q;
    return 0;
}

/* "N v0 ... v(N-1)" into *out (malloc'ed, NULL when N is 0). */
static int values_field(Cursor *c, const char *key, double **out, size_t *n) {
    int rc = next(c, key);
    if (rc)
        return rc;
    const char *s = c->line;
    if (count(&s, n))
        return err_set(c->e, ERR_INPUT, "its %s count is not a number up to %d", key,
                       MAX_VALUES);
    if (*n && !(*out = malloc(*n * sizeof **out)))
        return err_set(c->e, ERR_RUNTIME, "out of memory reading a cell record");
    for (size_t i = 0; i < *n; i++)
        if (*s++ != ' ' || number(&s, &(*out)[i]))
            return err_set(c->e, ERR_INPUT, "its %s has fewer than the %zu numbers it "
                           "announces", key, *n);
    if (*s)
        return err_set(c->e, ERR_INPUT, "its %s has more than the %zu numbers it announces",
                       key, *n);
    return 0;
}

static int series_field(Cursor *c, ExpCellResult *res, size_t k) {
    ExpSeries *x = &res->series[k];
    int rc = next(c, "result");
    if (rc)
        return rc;
    int used = 0;
    char value[64], exact[64];
    if (sscanf(c->line, "%23s value %63s exact %63s%n", x->name, value, exact, &used) != 3 ||
        c->line[used] != '\0')
        return err_set(c->e, ERR_INPUT, "a damaged result line");
    const char *s = value, *t = exact;
    if (number(&s, &x->value) || *s || number(&t, &x->exact) || *t)
        return err_set(c->e, ERR_INPUT, "result %s: a value or exact that is no number",
                       x->name);
    size_t n, m;
    if ((rc = values_field(c, "per_len", &x->per_len, &n)) ||
        (rc = values_field(c, "exact_len", &x->exact_len, &m)))
        return rc;
    if (k == 0)
        res->n_per_len = n, res->n_exact_len = m;
    else if (n != res->n_per_len || m != res->n_exact_len)
        return err_set(c->e, ERR_INPUT, "result %s has %zu and %zu lengths, main %zu and %zu",
                       x->name, n, m, res->n_per_len, res->n_exact_len);
    return 0;
}

static int parse_body(Cursor *c, const char *text, ExpCellFile *f) {
    char num[64];
    int rc;
    if ((rc = text_field(c, "id", f->id, sizeof f->id)) ||
        (rc = text_field(c, "kind", f->kind, sizeof f->kind)) ||
        (rc = text_field(c, "task", f->task, sizeof f->task)) ||
        (rc = text_field(c, "name", f->name, sizeof f->name)) ||
        (rc = text_field(c, "seed", num, sizeof num)))
        return rc;
    const char *s = num;
    if (count(&s, &f->seed) || *s)
        return err_set(c->e, ERR_INPUT, "its seed '%s' is no number", num);
    if ((rc = text_field(c, "source", f->source, sizeof f->source)) ||
        (rc = text_field(c, "settings", f->settings, sizeof f->settings)) ||
        (rc = text_field(c, "kernels", f->kernels, sizeof f->kernels)) ||
        (rc = text_field(c, "seconds", num, sizeof num)))
        return rc;
    s = num;
    if (number(&s, &f->seconds) || *s || !isfinite(f->seconds) || f->seconds < 0)
        return err_set(c->e, ERR_INPUT, "its seconds '%s' is no time", num);
    size_t n;
    if ((rc = text_field(c, "results", num, sizeof num)))
        return rc;
    s = num;
    if (count(&s, &n) || *s || n == 0 || n > EXP_MAX_SERIES)
        return err_set(c->e, ERR_INPUT, "its results count '%s' is not 1..%d", num,
                       EXP_MAX_SERIES);
    for (size_t k = 0; k < n; k++) {
        f->res.n_series = k + 1;
        if ((rc = series_field(c, &f->res, k)))
            return rc;
    }
    size_t covered = (size_t)(c->p - text);
    if ((rc = text_field(c, "checksum", num, sizeof num)))
        return rc;
    unsigned long long want = buf_fnv1a(text, covered);
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", want);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* a fuzzer cannot forge the checksum: it skips this check to reach the
     * ones behind it */
    if (strcmp(num, hex) != 0)
        return err_set(c->e, ERR_INPUT, "its checksum %s does not match its contents (%s)",
                       num, hex);
#endif
    if ((size_t)(c->end - c->p) < 4 || memcmp(c->p, "end\n", 4) != 0)
        return err_set(c->e, ERR_INPUT, "the record is cut short before its 'end' line");
    c->p += 4;
    return 0;
}

int exp_cell_parse(const char *text, size_t n, size_t *used, ExpCellFile *f, bool *old,
                   Err *e) {
    memset(f, 0, sizeof *f);
    *old = false;
    size_t magic = strlen(EXP_CELL_MAGIC), any = strlen(EXP_CELL_MAGIC_ANY);
    if (n < magic + 1 || memcmp(text, EXP_CELL_MAGIC "\n", magic + 1) != 0) {
        /* "posenc cell V\n": its version, when the line is whole */
        unsigned v = 0;
        size_t k = any;
        while (k < n && k < any + 4 && text[k] >= '0' && text[k] <= '9')
            v = v * 10 + (unsigned)(text[k++] - '0');
        bool versioned = n > any && memcmp(text, EXP_CELL_MAGIC_ANY, any) == 0 && k > any;
        unsigned ours = (unsigned)atoi(&EXP_CELL_MAGIC[any]);
        *old = versioned && k < n && text[k] == '\n' && v < ours;
        if (versioned && k < n && text[k] == '\n' && v > ours)
            return err_set(e, ERR_INPUT, "a record of a newer format ('%.*s'; this build reads "
                           "'%s'): build every machine at the same commit", (int)k, text,
                           EXP_CELL_MAGIC);
        return err_set(e, ERR_INPUT, *old ? "a record of an older format (this build reads "
                                            "'%s'), made by older sources"
                                          : "not a cell record (no '%s' line)", EXP_CELL_MAGIC);
    }
    Cursor c = {.p = text + magic + 1, .end = text + n, .line = malloc(n + 1), .e = e};
    int rc = c.line ? parse_body(&c, text, f)
                    : err_set(e, ERR_RUNTIME, "out of memory reading a cell record");
    free(c.line);
    if (rc) {
        exp_cell_file_free(f);
        return rc;
    }
    *used = (size_t)(c.p - text);
    return 0;
}

void exp_cell_file_free(ExpCellFile *f) { exp_cell_result_free(&f->res); }

/* ---- checking ---- */

/* v in lo..hi (and finite); NaN only where nan_ok. */
static bool in_range(double v, double lo, double hi, bool want_nan) {
    return want_nan ? isnan(v) : isfinite(v) && v >= lo && v <= hi;
}

static int check_values(const double *v, size_t n, const ExpCellShape *sh, double lo,
                        double hi, const char *series, const char *key, Err *e) {
    for (size_t i = 0; i < n; i++) {
        bool want_nan = i < sh->first || i > sh->last;
        if (!in_range(v[i], lo, hi, want_nan))
            return err_set(e, ERR_INPUT, "result %s: %s[%zu] is %g, where %s belongs", series,
                           key, i, v[i], want_nan ? "nan (not tested)" : "a number in range");
    }
    return 0;
}

/* The mean of v over from..to, summed in the order the cell summed it
 * (cell_bench.c), so that a sound record gives its own value back bit for
 * bit: an edited summary, or an edited length, is caught even with the
 * checksum redone. */
static double mean_over(const double *v, size_t from, size_t to) {
    double sum = 0.0;
    for (size_t i = from; i <= to; i++)
        sum += v[i];
    return sum / (double)(to - from + 1);
}

static int check_summary(const ExpSeries *x, const ExpCellShape *sh, Err *e) {
    if (!sh->mean_to)
        return 0;
    double value = mean_over(x->per_len, sh->mean_from, sh->mean_to);
    double exact = mean_over(x->exact_len, sh->mean_from, sh->mean_to);
    if (value != x->value || exact != x->exact)
        return err_set(e, ERR_INPUT, "result %s: value %.17g and exact %.17g are not the means "
                       "of its per_len and exact_len over lengths %zu..%zu (%.17g and %.17g): "
                       "the record was edited", x->name, x->value, x->exact, sh->mean_from,
                       sh->mean_to, value, exact);
    return 0;
}

static int check_shape(const ExpCellFile *f, const ExpCellShape *sh, Err *e) {
    const ExpCellResult *r = &f->res;
    if (r->n_series != sh->n_series)
        return err_set(e, ERR_INPUT, "%zu results where its kind has %zu", r->n_series,
                       sh->n_series);
    if (r->n_per_len != sh->n_per_len || r->n_exact_len != sh->n_exact_len)
        return err_set(e, ERR_INPUT, "%zu per_len and %zu exact_len entries where its "
                       "settings give %zu and %zu", r->n_per_len, r->n_exact_len,
                       sh->n_per_len, sh->n_exact_len);
    for (size_t k = 0; k < r->n_series; k++) {
        const ExpSeries *x = &r->series[k];
        if (strcmp(x->name, sh->names[k]) != 0)
            return err_set(e, ERR_INPUT, "result %zu is '%s' where '%s' belongs", k + 1,
                           x->name, sh->names[k]);
        if (!in_range(x->value, sh->lo, sh->hi, false))
            return err_set(e, ERR_INPUT, "result %s: value %g is out of range for its kind",
                           x->name, x->value);
        if (!in_range(x->exact, 0.0, 1.0, !sh->has_exact))
            return err_set(e, ERR_INPUT, "result %s: exact %g where %s belongs", x->name,
                           x->exact, sh->has_exact ? "a share 0..1" : "nan");
        int rc = check_values(x->per_len, r->n_per_len, sh, sh->lo, sh->hi, x->name,
                              "per_len", e);
        if (!rc)
            rc = check_values(x->exact_len, r->n_exact_len, sh, 0.0, 1.0, x->name,
                              "exact_len", e);
        if (!rc)
            rc = check_summary(x, sh, e);
        if (rc)
            return rc;
    }
    return 0;
}

ExpCellState exp_cell_check(const ExpCellFile *f, const ExpSettings *set, const ExpCell *cell,
                            const char *source, Err *e) {
    if (strcmp(f->id, cell->id) || strcmp(f->kind, exp_kind_names[cell->kind]) ||
        strcmp(f->task, cell->task) || strcmp(f->name, cell->name) ||
        f->seed != cell->seed + 1) {
        err_set(e, ERR_INPUT, "it holds cell %s (%s, %s, %s, seed %zu), not %s", f->id, f->kind,
                f->task, f->name, f->seed, cell->id);
        return CELL_DAMAGED;
    }
    char key[512];
    exp_cell_key(key, sizeof key, set, cell);
    if (strcmp(f->settings, key) != 0) {
        err_set(e, ERR_INPUT, "it was made with other settings (%s)", f->settings);
        return CELL_OTHER_SETTINGS;
    }
    if (source && strcmp(f->source, source) != 0) {
        err_set(e, ERR_INPUT, "it was made by a build of other sources (%s, this build %s)",
                f->source, source);
        return CELL_OTHER_SOURCE;
    }
    ExpCellShape sh;
    exp_cell_shape(&sh, set, cell);
    return check_shape(f, &sh, e) ? CELL_DAMAGED : CELL_DONE;
}

/* ---- files ---- */

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
    char *text = NULL;
    size_t n = 0, used = 0;
    int err = read_regular(path, EXP_CELL_MAX + 1, &text, &n, e);
    if (err == ENOENT)
        return CELL_MISSING;
    bool old = false;
    ExpCellState st = CELL_DAMAGED;
    if (!err) /* a checkout that converted line ends: the checksum judges the LF form */
        n = text_lf(text, n);
    if (!err && n > EXP_CELL_MAX)
        err_set(e, ERR_INPUT, "it is longer than a cell record can be");
    else if (!err && exp_cell_parse(text, n, &used, f, &old, e) == 0) {
        if (used != n)
            err_set(e, ERR_INPUT, "%zu bytes follow its 'end' line", n - used);
        else
            st = exp_cell_check(f, set, cell, source, e);
    } else if (old)
        st = CELL_OLD_FORMAT;
    free(text);
    if (st != CELL_DONE)
        exp_cell_file_free(f);
    return st;
}
