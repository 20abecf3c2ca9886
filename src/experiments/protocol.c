/* The benchmark's protocol as name/value pairs (experiments --bench --set
 * "layers=5,lr=1e-3/3e-4"): the model's size, the steps, the rates of a
 * sweep, the batch, the lengths N and M, the range of the random
 * positions, the test tapes, dropout and the tasks. What it sets is in the
 * settings key, so the cells of one protocol are never taken for
 * another's. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/parse.h"
#include "../text/tasks.h"
#include "protocol.h"

typedef enum { P_SIZE, P_REAL, P_RATES, P_TASKS } Kind;

static const struct {
    const char *name;
    Kind kind;
    size_t offset;
    double lo, hi;
    const char *about;
} ROWS[] = {
    {"layers", P_SIZE, offsetof(ExpSettings, layers), 1, 16, "encoder layers"},
    {"d_model", P_SIZE, offsetof(ExpSettings, d_model), 2, 1024, "model width"},
    {"heads", P_SIZE, offsetof(ExpSettings, heads), 1, 64, "attention heads (divide d_model)"},
    {"d_ff", P_SIZE, offsetof(ExpSettings, d_ff), 1, 8192, "feed-forward width"},
    {"batch", P_SIZE, offsetof(ExpSettings, batch), 1, 1024, "sentences a step"},
    {"steps", P_SIZE, offsetof(ExpSettings, bench_steps), 1, 1000000, "optimizer steps"},
    {"lr", P_RATES, offsetof(ExpSettings, bench_lr), 1e-6, 1.0,
     "learning rate, or rates of a sweep A/B/..."},
    {"dropout", P_REAL, offsetof(ExpSettings, bench_dropout), 0.0, 0.9, "dropout in training"},
    {"N", P_SIZE, offsetof(ExpSettings, bench_N), 1, 100, "longest training input"},
    {"M", P_SIZE, offsetof(ExpSettings, bench_M), 2, 500, "longest test input (> N)"},
    {"range", P_SIZE, offsetof(ExpSettings, random_range), 2, 32768,
     "random positions drawn from 0..range-1"},
    {"per_len", P_SIZE, offsetof(ExpSettings, bench_per_len), 1, 100000,
     "test tapes a length"},
    {"tasks", P_TASKS, 0, 0, 0, "tasks, A/B/... (default all 15)"},
    {"reference", P_SIZE, offsetof(ExpSettings, bench_reference), 0, 1,
     "1: the reference code's forms and its random xl as run"},
};
#define N_ROWS (sizeof ROWS / sizeof ROWS[0])

void exp_bench_protocol(char *buf, size_t cap) {
    size_t used = 0;
    for (size_t i = 0; i < N_ROWS && used < cap; i++) {
        char range[48] = "";
        if (ROWS[i].kind != P_TASKS)
            snprintf(range, sizeof range, ", %g..%g", ROWS[i].lo, ROWS[i].hi);
        int n = snprintf(buf + used, cap - used, "  %-8s %s%s\n", ROWS[i].name, ROWS[i].about,
                         range);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* A list of tasks "a/b/c", each a benchmark task once, into s. */
static int set_tasks(ExpSettings *s, const char *text, Err *e) {
    char copy[512];
    if (strlen(text) >= sizeof copy)
        return err_set(e, ERR_INPUT, "--set tasks=...: the list is too long");
    snprintf(copy, sizeof copy, "%s", text);
    bool chosen[EXP_BENCH_ALL_TASKS] = {false};
    for (char *save = NULL, *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        size_t k = 0;
        while (k < EXP_BENCH_ALL_TASKS && strcmp(exp_bench_all_tasks[k], t) != 0)
            k++;
        if (k == EXP_BENCH_ALL_TASKS)
            return err_set(e, ERR_INPUT, "--set tasks: '%s' is not a task of the benchmark "
                           "(%s, ...)", t, exp_bench_all_tasks[0]);
        if (chosen[k])
            return err_set(e, ERR_INPUT, "--set tasks: %s is named twice", t);
        chosen[k] = true;
    }
    s->bench_n_tasks = 0; /* in the benchmark's order, whatever the list's */
    for (size_t k = 0; k < EXP_BENCH_ALL_TASKS; k++)
        if (chosen[k])
            s->bench_task[s->bench_n_tasks++] = exp_bench_all_tasks[k];
    return s->bench_n_tasks ? 0 : err_set(e, ERR_INPUT, "--set tasks= names no task");
}

static int set_rates(ExpSettings *s, const char *text, double lo, double hi, Err *e) {
    char copy[256];
    snprintf(copy, sizeof copy, "%s", text);
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (n == EXP_MAX_RATES)
            return err_set(e, ERR_INPUT, "--set lr: at most %d rates", EXP_MAX_RATES);
        if (parse_real(&s->bench_lr[n], "--set lr", t, lo, hi, e))
            return ERR_INPUT;
        for (size_t k = 0; k < n; k++)
            if (s->bench_lr[k] == s->bench_lr[n])
                return err_set(e, ERR_INPUT, "--set lr: %s is named twice", t);
        n++;
    }
    s->bench_n_lr = n;
    return n ? 0 : err_set(e, ERR_INPUT, "--set lr= names no rate");
}

static int set_one(ExpSettings *s, const char *name, const char *value, Err *e) {
    size_t i = 0;
    while (i < N_ROWS && strcmp(ROWS[i].name, name) != 0)
        i++;
    if (i == N_ROWS)
        return err_set(e, ERR_INPUT, "--set: no setting '%s' (experiments --help lists them)",
                       name);
    char flag[32];
    snprintf(flag, sizeof flag, "--set %s", name);
    void *f = (char *)s + ROWS[i].offset;
    switch (ROWS[i].kind) {
    case P_SIZE: {
        size_t v;
        if (parse_size(&v, flag, value, (size_t)ROWS[i].lo, (size_t)ROWS[i].hi, e))
            return ERR_INPUT;
        memcpy(f, &v, sizeof v);
        return 0;
    }
    case P_REAL: {
        double v;
        if (parse_real(&v, flag, value, ROWS[i].lo, ROWS[i].hi, e))
            return ERR_INPUT;
        memcpy(f, &v, sizeof v);
        return 0;
    }
    case P_RATES:
        return set_rates(s, value, ROWS[i].lo, ROWS[i].hi, e);
    case P_TASKS:
        return set_tasks(s, value, e);
    }
    return 0;
}

int exp_bench_set(ExpSettings *s, const char *text, Err *e) {
    char copy[1024];
    if (strlen(text) >= sizeof copy)
        return err_set(e, ERR_INPUT, "--set: the text is too long");
    snprintf(copy, sizeof copy, "%s", text);
    unsigned long seen = 0;
    /* the columns follow the reference forms: the standard run's, or all */
    bool all = s->bench_columns > exp_bench_standard(s);
    for (char *save = NULL, *kv = strtok_r(copy, ",", &save); kv;
         kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return err_set(e, ERR_INPUT, "--set: '%s' is not NAME=VALUE", kv);
        *eq = '\0';
        for (size_t i = 0; i < N_ROWS; i++)
            if (strcmp(ROWS[i].name, kv) == 0) {
                if (seen & (1ul << i))
                    return err_set(e, ERR_INPUT, "--set: %s is given twice", kv);
                seen |= 1ul << i;
            }
        if (set_one(s, kv, eq + 1, e))
            return ERR_INPUT;
    }
    s->bench_columns = all ? exp_bench_all(s) : exp_bench_standard(s);
    if (s->bench_M <= s->bench_N)
        return err_set(e, ERR_INPUT, "--set: M (%zu) must be past N (%zu)", s->bench_M,
                       s->bench_N);
    for (size_t t = 0; t < s->bench_n_tasks; t++) {
        const Task *task = task_find(s->bench_task[t]);
        size_t tape = s->bench_M + task->blanks(s->bench_M);
        if (tape > s->random_range)
            return err_set(e, ERR_INPUT, "--set: %s's tapes at M = %zu have %zu tokens, past "
                           "the %zu random positions (range): give range=%zu or more",
                           s->bench_task[t], s->bench_M, tape, s->random_range, tape);
    }
    if (s->d_model % s->heads)
        return err_set(e, ERR_INPUT, "--set: heads (%zu) must divide d_model (%zu)", s->heads,
                       s->d_model);
    /* a protocol is named by what it changes (exp_bench_set_text): one that
     * changes nothing would be the standard grid under another name */
    char changed[8];
    exp_bench_set_text(changed, sizeof changed, s);
    if (!changed[0])
        return err_set(e, ERR_INPUT, "--set '%s' changes nothing: each value is the %s "
                       "protocol's own; leave --set out", text, s->quick ? "quick" : "standard");
    return 0;
}

/* Row i's value in s, as --set takes it: "5", "3e-4/1e-3", "reverse_string/
 * duplicate_string" (the tasks in the benchmark's order). */
static void row_text(char *buf, size_t cap, const ExpSettings *s, size_t i) {
    const void *f = (const char *)s + ROWS[i].offset;
    size_t used = 0;
    buf[0] = '\0';
    switch (ROWS[i].kind) {
    case P_SIZE: {
        size_t v;
        memcpy(&v, f, sizeof v);
        snprintf(buf, cap, "%zu", v);
        return;
    }
    case P_REAL: {
        double v;
        memcpy(&v, f, sizeof v);
        real_text(buf, cap, v, false);
        return;
    }
    case P_RATES:
        for (size_t k = 0; k < s->bench_n_lr && used < cap; k++) {
            char one[32];
            real_text(one, sizeof one, s->bench_lr[k], false);
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", k ? "/" : "", one);
        }
        return;
    case P_TASKS:
        for (size_t t = 0; t < s->bench_n_tasks && used < cap; t++)
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", t ? "/" : "",
                                     s->bench_task[t]);
        return;
    }
}

void exp_bench_set_text(char *buf, size_t cap, const ExpSettings *s) {
    ExpSettings def;
    exp_settings_bench(&def, s->quick, s->seeds);
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_ROWS && used < cap; i++) {
        char ours[512], theirs[512];
        row_text(ours, sizeof ours, s, i);
        row_text(theirs, sizeof theirs, &def, i);
        if (strcmp(ours, theirs) != 0)
            used += (size_t)snprintf(buf + used, cap - used, "%s%s=%s", used ? "," : "",
                                     ROWS[i].name, ours);
    }
}

TaskOptions exp_bench_test_tapes(size_t n, size_t count, uint64_t data_seed) {
    return (TaskOptions){.min_len = n, .max_len = n, .n_train = 1, .n_valid = 1,
                         .n_test = count, .seed = data_seed * 1000003u + n};
}
