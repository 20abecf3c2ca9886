/* A grid's places and its command (places.h): its folders and the make
 * command of its page, from its settings and its protocol's changes. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "places.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

static bool all_schemes(const ExpSettings *s) {
    return s->bench && s->bench_columns > exp_bench_standard(s);
}

bool exp_grid_default_seeds(const ExpSettings *s) {
    ExpSettings def;
    if (s->bench)
        exp_settings_bench(&def, s->quick, 0);
    else
        exp_settings(&def, s->quick, 0);
    return s->seeds == def.seeds;
}

static bool protocol_set(const ExpSettings *s) {
    char set[8] = "";
    if (s->bench)
        exp_bench_set_text(set, sizeof set, s);
    return set[0] != '\0';
}

const char *exp_grid_cells(const ExpSettings *s) {
    /* the benchmark's cells are committed: results as data (its page is
     * rebuilt from them without training, and CI's referee checks that
     * they are the standard grid's, whole); every scheme's cells, and
     * other seeds', in folders of their own (a cell's file does not
     * depend on how many seeds run: `make benchmark ALL=1` starts its
     * folder with a copy of the committed cells) */
    if (!s->bench)
        return s->quick ? "build/cells-quick" : "build/cells";
    if (protocol_set(s))
        return s->quick ? "build/cells-bench-quick-set" : "build/cells-bench-set";
    if (s->quick)
        return "build/cells-bench-quick";
    if (all_schemes(s))
        return "build/cells-bench-all";
    return exp_grid_default_seeds(s) ? "docs/benchmark/cells" : "build/cells-bench-seeds";
}

bool exp_grid_may_commit(const ExpSettings *s) {
    return !all_schemes(s) && exp_grid_default_seeds(s);
}

/* Whether the folder path, or its text, ends with name (whole components). */
static bool ends_with_folder(const char *path, const char *name) {
    size_t n = strlen(path), k = strlen(name);
    while (n > 1 && path[n - 1] == '/')
        n--;
    return n >= k && memcmp(path + n - k, name, k) == 0 && (n == k || path[n - k - 1] == '/');
}

const char *exp_grid_committed(const char *dir) {
    ExpSettings std;
    exp_settings_bench(&std, false, 0);
    const char *committed[] = {exp_grid_cells(&std), exp_grid_sparser(&std)};
    char real[PATH_MAX];
    const char *path = realpath(dir, real) ? real : dir;
    for (size_t i = 0; i < 2; i++)
        if (committed[i] && ends_with_folder(path, committed[i]))
            return committed[i];
    return NULL;
}

const char *exp_grid_sparser(const ExpSettings *s) {
    return s->bench && !s->quick && !all_schemes(s) && !protocol_set(s)
               ? "docs/benchmark/range2048"
               : NULL;
}

void exp_grid_out(char *buf, size_t cap, const ExpSettings *s) {
    bool standard = !s->quick && !all_schemes(s) && !protocol_set(s) &&
                    exp_grid_default_seeds(s);
    if (standard) {
        snprintf(buf, cap, "docs");
        return;
    }
    snprintf(buf, cap, "build/%s%s%s%s", s->bench ? "benchmark" : "experiments",
             all_schemes(s) ? "-all" : "", s->quick ? "-quick" : "",
             protocol_set(s) ? "-set" : "");
    if (!exp_grid_default_seeds(s))
        snprintf(buf + strlen(buf), cap - strlen(buf), "-seeds-%zu", s->seeds);
}

/* A grid's command in make's words or the program's, each set apart from
 * the standard grid's the same way. */
typedef struct {
    const char *results, *bench, *quick, *all, *seeds, *set;
} Spelling;

static const Spelling SPELLING[2] = {
    {"make experiments", "make benchmark", " QUICK=1", " ALL=1", " SEEDS=", " SET='"},
    {"build/experiments", "build/experiments --bench", " --quick", " --all-schemes",
     " --seeds ", " --set '"},
};

static void grid_command(char *buf, size_t cap, const ExpSettings *s, bool program) {
    char set[EXP_GRID_TEXT] = "";
    if (s->bench)
        exp_bench_set_text(set, sizeof set, s);
    const Spelling *w = &SPELLING[program];
    snprintf(buf, cap, "%s%s%s", s->bench ? w->bench : w->results, s->quick ? w->quick : "",
             all_schemes(s) ? w->all : "");
    if (!exp_grid_default_seeds(s))
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%zu", w->seeds, s->seeds);
    if (set[0])
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s'", w->set, set);
}

void exp_grid_make(char *buf, size_t cap, const ExpSettings *s) {
    grid_command(buf, cap, s, false);
}

void exp_grid_run(char *buf, size_t cap, const ExpSettings *s) {
    char out[256];
    exp_grid_out(out, sizeof out, s);
    grid_command(buf, cap, s, true);
    snprintf(buf + strlen(buf), cap - strlen(buf), " --out %s", out);
}
