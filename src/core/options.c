#include "options.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options the registered help takes, and the programs' names, each
 * as " name " in a string that starts and ends with a blank, so that
 * strstr finds whole names. NULL: none registered. */
static char *taken, *programs;

/* The length of the option name at p ("--" and letters, digits, dashes),
 * 0 if p holds none. */
static size_t name_at(const char *p) {
    if (p[0] != '-' || p[1] != '-' || !isalpha((unsigned char)p[2]))
        return 0;
    size_t k = 2;
    while (isalnum((unsigned char)p[k]) || p[k] == '-')
        k++;
    return k;
}

/* Whether the word before p in text (blanks and line ends skipped) is a
 * program's name, after a path or not: "train --out", "build/train --out". */
static bool after_program(const char *text, const char *p) {
    const char *end = p;
    while (end > text && isspace((unsigned char)end[-1]))
        end--;
    const char *w = end;
    while (w > text && (isalnum((unsigned char)w[-1]) || w[-1] == '_'))
        w--;
    char name[40];
    if (end == p || end == w || (size_t)(end - w) >= sizeof name - 2 || !programs)
        return false;
    snprintf(name, sizeof name, " %.*s ", (int)(end - w), w);
    return strstr(programs, name) != NULL;
}

/* Whether a name at p (in text) stands as an option: at the start, after
 * a blank or a bracket; after a quote it is what the user typed, inside a
 * word it is no option at all. */
static bool stands(const char *text, const char *p) {
    return p == text || isspace((unsigned char)p[-1]) || p[-1] == '(';
}

/* names with blanks around, the form of the sets, but self's name
 * (blanked out: its usage lines are "evaluate --model MODEL ..."). */
static char *others_of(const char *names, const char *self) {
    size_t n = strlen(names), k = strlen(self);
    char *s = malloc(n + 3);
    if (!s)
        return NULL;
    sprintf(s, " %s ", names);
    for (char *at = strstr(s, " "); k && at; at = strstr(at + 1, " "))
        if (strncmp(at + 1, self, k) == 0 && at[k + 1] == ' ')
            memset(at + 1, ' ', k);
    return s;
}

void options_register(const char *help, const char *names, const char *self) {
    free(taken);
    free(programs);
    taken = malloc(strlen(help) + 2);
    programs = others_of(names, self);
    if (!taken || !programs) { /* then messages stay as written */
        free(taken);
        free(programs);
        taken = programs = NULL;
        return;
    }
    strcpy(taken, " ");
    for (const char *p = help; *p; p++) {
        size_t k = name_at(p);
        if (!k || !stands(help, p) || after_program(help, p))
            continue;
        char name[72];
        snprintf(name, sizeof name, " %.*s ", (int)(k < 64 ? k : 64), p);
        if (!strstr(taken, name))
            strcat(taken, name + 1); /* its leading blank is the set's last */
        p += k - 1;
    }
}

/* Whether set holds the name at flag (up to '=' or its end). */
static bool holds(const char *set, const char *flag) {
    char name[72];
    size_t k = strcspn(flag, "=");
    snprintf(name, sizeof name, " %.*s ", (int)(k < 64 ? k : 64), flag);
    return strstr(set, name) != NULL;
}

bool options_has(const char *flag) { return !taken || holds(taken, flag); }

const char *options_if(const char *flag, const char *text) {
    return options_has(flag) ? text : "";
}

const char *options_list(char *buf, size_t cap, const char *const *flags) {
    size_t n = 0, len = 0;
    for (const char *const *f = flags; *f; f++)
        n += options_has(*f);
    buf[0] = '\0';
    for (size_t i = 0; *flags && len < cap; flags++) {
        if (!options_has(*flags))
            continue;
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(buf + len, cap - len, "%s%s", sep, *flags);
        len += w > 0 ? (size_t)w : 0;
        i++;
    }
    return buf;
}

void options_tidy(char *msg) {
    if (!taken)
        return;
    for (char *p = msg; *p; p++) {
        size_t k = name_at(p);
        if (!k || !stands(msg, p) || after_program(msg, p))
            continue;
        char name[72];
        snprintf(name, sizeof name, "%.*s", (int)(k < 64 ? k : 64), p);
        if (!holds(taken, name))
            memmove(p, p + 2, strlen(p + 2) + 1);
        else
            p += k - 1;
    }
}

/* Edits (insert, delete, substitute) between a and b, both short. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb) {
    size_t row[64];
    if (na >= 64 || nb >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[nb];
}

bool options_closest(const char *arg, size_t n, char *found, size_t cap) {
    size_t best = SIZE_MAX;
    found[0] = '\0';
    /* the options the program takes, so that a suggestion never names
     * one it lacks (evaluate's help mentions train's --batches) */
    for (const char *p = taken ? strstr(taken, " --") : NULL; p;
         p = strstr(p + 1, " --")) {
        size_t k = strcspn(p + 1, " ");
        if (k < 4 || k >= cap)
            continue;
        size_t d = edit_distance(arg, n, p + 1, k);
        if (d < best) {
            best = d;
            snprintf(found, cap, "%.*s", (int)k, p + 1);
        }
    }
    return found[0] && best > 0 && (best <= 2 || best * 3 <= n);
}
