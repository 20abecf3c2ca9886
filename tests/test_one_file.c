/* The encoder in one file (examples/one_file/encoder.c) is the library,
 * not a second opinion: for each scheme it teaches, a library model of
 * its shape gets its weights tensor by tensor, through the library's list
 * of parameters and their names, and the two must agree on the forward
 * pass (every output within 1e-5 of the tensor's largest value) and on
 * every parameter's gradient (the same). Two copies of the file broken on
 * purpose (a product with a transposed weight, attention's scores without
 * 1/sqrt(d)) must fail that comparison, so it can fail. The file builds
 * alone with the command at its top, warning-free under the project's
 * flags, keeps the form of a file read in an evening (at most 900 lines,
 * no function over 80, every function static, C's library only),
 * and the line ranges docs/09-reading-the-code.md cites still hold the
 * functions they name.
 *
 * The file and the library define the same names (Config, Model,
 * linear_forward), so they cannot share a program: tests/one_file/glue.c
 * wraps the file in a few functions, and each test compiles it, with the
 * file or a broken copy, into a shared object with cc -O2, as a reader
 * would compile the file, and loads it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "docs_pages.h"
#include "suites.h"

#define ONE_FILE "examples/one_file/encoder.c"
#define CODE_PAGE "docs/09-reading-the-code.md"
#define TOL 1e-5

/* glue.c's functions in one loaded copy of the file */
typedef struct {
    void *handle;
    int (*schemes)(void);
    const char *(*scheme)(int i);
    void (*create)(int scheme, unsigned long seed, size_t shape[8]);
    size_t (*tensors)(void);
    const char *(*tensor)(size_t i, size_t *rows, size_t *cols, float **w, float **g);
    float (*run)(const int *ids, const size_t *lens, const int *labels, size_t B,
                 const float **hidden, const float **pooled, const float **logits);
    void (*free_model)(void);
} OneFile;

static void *symbol(void *handle, const char *name) {
    void *p = dlsym(handle, name);
    ck_assert_msg(p != NULL, "glue.c has no %s: %s", name, dlerror());
    return p;
}

/* Compiles glue.c with the file at path (absolute) into dir and loads it. */
static OneFile load(const char *path, const char *dir) {
    char top[PATH_MAX], cmd[3 * PATH_MAX], so[PATH_MAX + 16], *err;
    ck_assert_ptr_nonnull(realpath(".", top));
    snprintf(so, sizeof so, "%s/onefile.so", dir);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -O2 -fPIC -shared -Wall -Wextra -Wpedantic -Werror "
             "'-DONE_FILE=\"%s\"' '%s/tests/one_file/glue.c' -o '%s' -lm", path, top, so);
    int st = sh_in(dir, cmd, &err);
    ck_assert_msg(st == 0 && !*err, "%s: exit %d, %s", cmd, st, err);
    free(err);
    OneFile f = {.handle = dlopen(so, RTLD_NOW | RTLD_LOCAL)};
    ck_assert_msg(f.handle != NULL, "%s", dlerror());
    *(void **)&f.schemes = symbol(f.handle, "onefile_schemes");
    *(void **)&f.scheme = symbol(f.handle, "onefile_scheme");
    *(void **)&f.create = symbol(f.handle, "onefile_create");
    *(void **)&f.tensors = symbol(f.handle, "onefile_tensors");
    *(void **)&f.tensor = symbol(f.handle, "onefile_tensor");
    *(void **)&f.run = symbol(f.handle, "onefile_run");
    *(void **)&f.free_model = symbol(f.handle, "onefile_free");
    return f;
}

/* max |a - b| over n floats, relative to max |b|; *name gets what when it
 * is the worst so far. */
static double rel_diff(const float *a, const float *b, size_t n, const char *what, double *worst,
                       char *name, size_t cap) {
    double d = 0.0, m = 0.0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        m = fmax(m, fabs((double)b[i]));
    }
    double r = m > 0.0 ? d / m : d > 0.0 ? INFINITY : 0.0;
    fprintf(stderr, "  %-40s max|a-b| %.3g of max|b| %.3g: %.3g\n", what, d, m, r);
    if (r > *worst || isnan(r)) {
        *worst = isnan(r) ? INFINITY : r;
        snprintf(name, cap, "%s", what);
    }
    return r;
}

/* Scheme s of the loaded file against the library: the worst relative
 * difference of any output or gradient, *name the tensor that has it. */
static double compare(const OneFile *f, int s, char *name, size_t cap) {
    size_t shape[8];
    f->create(s, 42, shape);
    size_t V = shape[0], C = shape[1], K = shape[5], T = shape[7];
    const char *pe = f->scheme(s);
    ck_assert_msg(pe_find(pe) != NULL, "the file's scheme %s is none of the library's", pe);
    Config cfg;
    config_default(&cfg, V, pe);
    cfg.d_model = C, cfg.n_heads = shape[2], cfg.d_ff = shape[3], cfg.n_layers = shape[4];
    cfg.n_classes = K, cfg.max_len = T;
    Model m;
    Err e;
    ck_assert_msg(model_create(&m, &cfg, &e) == 0, "%s", e.msg);
    /* the file's first draws, moved off their ones and zeros (LayerNorm,
     * the biases) so that a weight mistaken for another shows, then
     * copied into the library's tensors by its list of parameters */
    Rng r;
    rng_seed(&r, 7);
    ck_assert_uint_eq(f->tensors(), m.n_specs);
    for (size_t i = 0; i < m.n_specs; i++) {
        const ParamSpec *sp = &m.specs[i];
        size_t rows, cols;
        float *w, *g;
        const char *tn = f->tensor(i, &rows, &cols, &w, &g);
        ck_assert_msg(strcmp(tn, sp->name) == 0 && rows == sp->rows && cols == sp->cols,
                      "%s: the file's tensor %zu is %s (%zu,%zu), the library's %s (%zu,%zu)", pe,
                      i, tn, rows, cols, sp->name, sp->rows, sp->cols);
        for (size_t k = 0; k < rows * cols; k++) {
            w[k] += 0.1f * rng_normal(&r);
            m.mem[sp->offset + k] = w[k];
        }
    }
    /* a batch of 4- and 5-word sentences, as the agent task mixes them */
    enum { B = 4 };
    size_t lens[B] = {5, 4, 5, 4};
    int ids[B * 8], labels[B];
    ck_assert_uint_le(T, 8);
    for (size_t b = 0; b < B; b++) {
        labels[b] = (int)rng_below(&r, K);
        for (size_t t = 0; t < T; t++)
            ids[b * T + t] = t < lens[b] ? 1 + (int)rng_below(&r, V - 1) : 0;
    }
    const float *hidden, *pooled, *logits;
    float loss = f->run(ids, lens, labels, B, &hidden, &pooled, &logits);

    Acts a;
    GradActs ga;
    ck_assert(acts_create(&a, &m, B, T, &e) == 0 && gradacts_create(&ga, &m, B, T, &e) == 0);
    float *gmem = calloc(m.n_params, sizeof *gmem);
    ck_assert_ptr_nonnull(gmem);
    Params g;
    params_carve(&m, &g, gmem);
    ck_assert_msg(encoder_forward(&m, &a, ids, lens, B, T, &e) == 0, "%s", e.msg);
    float lib_loss = encoder_loss(&m, &a, &ga, labels, B, T, NULL, NULL);
    ck_assert_msg(encoder_backward(&m, &g, &a, &ga, ids, lens, B, T, &e) == 0, "%s", e.msg);

    fprintf(stderr, "%s: the file (a) against the library (b)\n", pe);
    double worst = 0.0;
    rel_diff(&loss, &lib_loss, 1, "loss", &worst, name, cap);
    rel_diff(hidden, a.hidden, B * T * C, "hidden (B,T,C)", &worst, name, cap);
    rel_diff(pooled, a.pooled, B * C, "pooled (B,C)", &worst, name, cap);
    rel_diff(logits, a.logits, B * K, "logits (B,K)", &worst, name, cap);
    for (size_t i = 0; i < m.n_specs; i++) {
        size_t rows, cols;
        float *w, *gf;
        char what[96];
        f->tensor(i, &rows, &cols, &w, &gf);
        snprintf(what, sizeof what, "d %s", m.specs[i].name);
        rel_diff(gf, gmem + m.specs[i].offset, rows * cols, what, &worst, name, cap);
    }
    free(gmem);
    gradacts_free(&ga);
    acts_free(&a);
    model_free(&m);
    f->free_model();
    return worst;
}

static const char *abs_path(const char *path) {
    static char buf[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(path, buf));
    return buf;
}

START_TEST(one_file_computes_what_the_library_computes) {
    char *dir = scratch();
    OneFile f = load(abs_path(ONE_FILE), dir);
    ck_assert_int_ge(f.schemes(), 7);
    for (int s = 0; s < f.schemes(); s++) {
        char name[96] = "";
        double worst = compare(&f, s, name, sizeof name);
        fprintf(stderr, "%s: worst %s, %.3g of its largest value\n", f.scheme(s), name, worst);
        ck_assert_msg(worst <= TOL, "%s: the file's %s differs from the library's by %.3g of "
                      "its largest value (tolerance %g); the test's log lists every tensor",
                      f.scheme(s), name, worst, TOL);
    }
    dlclose(f.handle);
    remove_dir(dir);
}
END_TEST

/* The mistakes a reader might make, each a sed of one line of the file:
 * the weight read as W rather than W^T, and the scores without 1/sqrt(d). */
static const struct {
    const char *what, *from, *sed;
} MUTANTS[] = {
    {"a linear layer's product with W, not W^T", "w[o * IC + c]",
     "s/w\\[o \\* IC + c\\]/w[c * OC + o]/"},
    {"attention's scores without 1/sqrt(d)", "1.0f / sqrtf((float)HS)",
     "s|1.0f / sqrtf((float)HS)|1.0f|"},
};

START_TEST(a_broken_copy_of_the_file_fails_the_comparison) {
    const char *from = MUTANTS[_i].from;
    char *text = slurp(ONE_FILE);
    ck_assert_msg(strstr(text, from) != NULL, "the file no longer holds '%s': give the mutation "
                  "test a line of today's file to break", from);
    char *dir = scratch(), cmd[2 * PATH_MAX], copy[128], *err;
    snprintf(copy, sizeof copy, "%s/encoder.c", dir);
    snprintf(cmd, sizeof cmd, "sed '%s' '%s/" ONE_FILE "' > encoder.c", MUTANTS[_i].sed,
             abs_path("."));
    ck_assert_int_eq(sh_in(dir, cmd, &err), 0);
    free(err);
    char *broken = slurp(copy);
    ck_assert_msg(strcmp(text, broken) != 0 && strstr(broken, from) == NULL,
                  "sed '%s' did not break every '%s'", MUTANTS[_i].sed, from);
    OneFile f = load(copy, dir);
    for (int s = 0; s < f.schemes(); s++) {
        char name[96] = "";
        double worst = compare(&f, s, name, sizeof name);
        fprintf(stderr, "%s, %s: worst %s, %.3g of its largest value\n", MUTANTS[_i].what,
                f.scheme(s), name, worst);
        ck_assert_msg(worst > TOL, "%s: the copy with %s still matches the library (worst %.3g): "
                      "the comparison cannot see it", f.scheme(s), MUTANTS[_i].what, worst);
    }
    dlclose(f.handle);
    free(text);
    free(broken);
    remove_dir(dir);
}
END_TEST

/* The command the file's first comment gives, run as given but for the
 * program's place; then the project's warnings, as errors. */
START_TEST(one_file_builds_alone_with_the_command_at_its_top) {
    char *text = slurp(ONE_FILE), *dir = scratch(), *err, cmd[2 * PATH_MAX];
    const char *want = "cc -O2 -o encoder " ONE_FILE " -lm";
    char *at = strstr(text, want);
    ck_assert_msg(at != NULL && at - text < 400, "the file's first lines do not say '%s'", want);
    snprintf(cmd, sizeof cmd, "cd \"$TOP\" && cc -O2 -o '%s/encoder' " ONE_FILE " -lm && "
             "cc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -o '%s/strict' " ONE_FILE " -lm",
             dir, dir);
    int st = sh_in(dir, cmd, &err);
    ck_assert_msg(st == 0 && !*err, "%s: exit %d, %s", cmd, st, err);
    free(err);
    free(text);
    remove_dir(dir);
}
END_TEST

/* A definition of the file: a function, or a type by typedef; its name
 * and its first and last lines (from 1). */
typedef struct {
    char name[64];
    size_t first, last;
    bool function;
} Def;

/* The identifier that ends just before end (its start in *start). */
static size_t ident_before(const char *line, const char *end, const char **start) {
    const char *p = end;
    while (p > line && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                        (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9')))
        p--;
    *start = p;
    return (size_t)(end - p);
}

/* The file's top-level functions and typedefs, in order; returns how many. */
static size_t definitions(char **l, size_t n, Def *defs, size_t cap) {
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        const char *open = strchr(l[i], '('), *s;
        size_t len = strlen(l[i]);
        bool fn = (strncmp(l[i], "static ", 7) == 0 || strncmp(l[i], "int main", 8) == 0) &&
                  open && l[i][len - 1] != ';';
        bool type = strncmp(l[i], "typedef ", 8) == 0;
        if (!fn && !type)
            continue;
        size_t j = i; /* a definition of one line ends where it starts */
        if ((fn && l[i][len - 1] != '}') || (type && l[i][len - 1] == '{'))
            while (j + 1 < n && l[j][0] != '}')
                j++;
        const char *at = fn ? open : strrchr(l[j], ';');
        ck_assert_msg(at != NULL, "line %zu: a typedef without its ';'", j + 1);
        size_t w = ident_before(fn ? l[i] : l[j], at, &s);
        defs[k] = (Def){.first = i + 1, .last = j + 1, .function = fn};
        snprintf(defs[k].name, sizeof defs[k].name, "%.*s", (int)w, s);
        k++;
        i = j;
    }
    return k;
}

/* The form of a file read in an evening: at most 900 lines with its
 * comments, no function over 80 lines, every function static (but main),
 * and nothing but C's standard headers (no src/, no BLAS, no threads). */
START_TEST(one_file_keeps_its_form) {
    char *text = slurp(ONE_FILE), **l;
    size_t n = docs_split_lines(text, &l);
    if (n && !*l[n - 1])
        n--;
    ck_assert_msg(n <= 900, ONE_FILE " has %zu lines, more than 900", n);
    static const char *const HEADERS[] = {"<math.h>", "<stdint.h>", "<stdio.h>", "<stdlib.h>",
                                          "<string.h>", "<stddef.h>", "<stdbool.h>"};
    for (size_t i = 0; i < n; i++) {
        if (strncmp(l[i], "#include", 8) != 0)
            continue;
        bool ok = false;
        for (size_t h = 0; h < sizeof HEADERS / sizeof *HEADERS; h++)
            ok = ok || strstr(l[i], HEADERS[h]) != NULL;
        ck_assert_msg(ok, ONE_FILE ":%zu: '%s' is not one of C's standard headers the file may "
                      "use", i + 1, l[i]);
    }
    Def defs[128];
    size_t nd = definitions(l, n, defs, 128), fns = 0, longest = 0;
    for (size_t k = 0; k < nd; k++) {
        if (!defs[k].function)
            continue;
        size_t lines = defs[k].last - defs[k].first + 1;
        fns++;
        longest = lines > longest ? lines : longest;
        ck_assert_msg(lines <= 80, ONE_FILE ":%zu: %s has %zu lines, more than 80",
                      defs[k].first, defs[k].name, lines);
        ck_assert_msg(strcmp(defs[k].name, "main") == 0 ||
                      strncmp(l[defs[k].first - 1], "static ", 7) == 0,
                      ONE_FILE ":%zu: %s is not static", defs[k].first, defs[k].name);
    }
    /* any other line at the margin that opens a function (or is one) is
     * a function the parse above missed: one that is not static */
    for (size_t i = 0; i < n; i++) {
        char last = l[i][0] ? l[i][strlen(l[i]) - 1] : '\0';
        ck_assert_msg(!(l[i][0] && !strchr(" }#/*", l[i][0]) && strchr(l[i], '(') &&
                        (last == '{' || last == '}') && strncmp(l[i], "static ", 7) != 0 &&
                        strncmp(l[i], "int main", 8) != 0 && strncmp(l[i], "typedef ", 8) != 0),
                      ONE_FILE ":%zu: a function that is not static: '%s'", i + 1, l[i]);
    }
    fprintf(stderr, ONE_FILE ": %zu lines, %zu functions, the longest %zu lines\n", n, fns,
            longest);
    ck_assert_uint_ge(fns, 20);
    free(l);
    free(text);
}
END_TEST

/* The code page cites the file by line ranges, links of the form
 * (../examples/one_file/encoder.c#LA-LB): each names, in backquotes on its
 * line, the functions and types that range holds, and the test finds each
 * whole within it. A range that names none is an error too. */
START_TEST(the_code_page_cites_lines_that_hold_what_it_names) {
    ck_assert_msg(file_exists(CODE_PAGE), CODE_PAGE " is missing");
    char *text = slurp(ONE_FILE), *page = slurp(CODE_PAGE), **l, **pl;
    size_t n = docs_split_lines(text, &l), np = docs_split_lines(page, &pl), ranges = 0;
    Def defs[128];
    size_t nd = definitions(l, n, defs, 128);
    const char *link = "one_file/encoder.c#L";
    for (size_t i = 0; i < np; i++) {
        const char *at = strstr(pl[i], link);
        if (!at)
            continue;
        unsigned a, b;
        ck_assert_msg(sscanf(at + strlen(link), "%u-L%u", &a, &b) == 2 && a >= 1 && a <= b &&
                      b <= n, CODE_PAGE ":%zu: a range of lines 1..%zu, #LA-LB, not '%s'",
                      i + 1, n, at);
        size_t named = 0;
        for (const char *q = strchr(pl[i], '`'); q; q = strchr(q + 1, '`')) {
            const char *e = strchr(q + 1, '`');
            if (!e)
                break;
            for (size_t k = 0; k < nd; k++)
                if (strlen(defs[k].name) == (size_t)(e - q - 1) &&
                    strncmp(defs[k].name, q + 1, (size_t)(e - q - 1)) == 0) {
                    named++;
                    ck_assert_msg(defs[k].first >= a && defs[k].last <= b,
                                  CODE_PAGE ":%zu: %s is at lines %zu-%zu of the file, not "
                                  "within %u-%u", i + 1, defs[k].name, defs[k].first,
                                  defs[k].last, a, b);
                }
            q = e;
        }
        ck_assert_msg(named > 0, CODE_PAGE ":%zu: the range %u-%u names no function or type of "
                      "the file (in backquotes on its line)", i + 1, a, b);
        ranges++;
    }
    ck_assert_msg(ranges >= 10, CODE_PAGE " cites %zu ranges of the file: is the test reading "
                  "its links?", ranges);
    free(l);
    free(pl);
    free(text);
    free(page);
}
END_TEST

/* The page's path through the library names its functions as
 * `src/FOLDER/FILE.c:function`: each file must define each function (a
 * line at the margin with "function(" that is no declaration). */
START_TEST(the_code_page_names_functions_the_library_has) {
    ck_assert_msg(file_exists(CODE_PAGE), CODE_PAGE " is missing");
    char *page = slurp(CODE_PAGE);
    size_t found = 0;
    for (const char *p = strstr(page, "`src/"); p; p = strstr(p + 1, "`src/")) {
        char path[256], fn[128];
        const char *colon = strstr(p, ".c:"), *end = strchr(p + 1, '`');
        if (!colon || !end || colon > end)
            continue; /* a folder or a header, not file:function */
        snprintf(path, sizeof path, "%.*s", (int)(colon + 2 - (p + 1)), p + 1);
        snprintf(fn, sizeof fn, "%.*s(", (int)(end - (colon + 3)), colon + 3);
        ck_assert_msg(file_exists(path), CODE_PAGE ": %s names no file", path);
        char *text = slurp(path), **l;
        size_t n = docs_split_lines(text, &l);
        bool defined = false;
        for (size_t i = 0; i < n && !defined; i++) {
            const char *at = strstr(l[i], fn);
            defined = at && l[i][0] != ' ' && l[i][0] != '\0' && l[i][strlen(l[i]) - 1] != ';' &&
                      (at == l[i] || at[-1] == ' ' || at[-1] == '*');
        }
        ck_assert_msg(defined, CODE_PAGE ": %s defines no %.*s", path, (int)strlen(fn) - 1, fn);
        found++;
        free(l);
        free(text);
    }
    ck_assert_msg(found >= 10, CODE_PAGE " names %zu functions of the library as file:function: "
                  "is the test reading them?", found);
    free(page);
}
END_TEST

TCase *tcase_one_file(void) {
    TCase *tc = tcase_create("one_file");
    /* each test compiles the file; the comparisons run seven schemes */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, one_file_computes_what_the_library_computes);
    tcase_add_loop_test(tc, a_broken_copy_of_the_file_fails_the_comparison, 0,
                        (int)(sizeof MUTANTS / sizeof *MUTANTS));
    tcase_add_test(tc, one_file_builds_alone_with_the_command_at_its_top);
    tcase_add_test(tc, one_file_keeps_its_form);
    tcase_add_test(tc, the_code_page_cites_lines_that_hold_what_it_names);
    tcase_add_test(tc, the_code_page_names_functions_the_library_has);
    return tc;
}
