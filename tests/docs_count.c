/* The counts of runs and schemes in the pages' prose (docs_count.h): the
 * rules the docs test checks them by and `make fixtures` (tests/regen/)
 * writes them by, one source for both. */
#include "docs_count.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/pe/pe.h"

/* Whether num at p (in line) is a word of its own: no letter, digit, dot
 * or underscore against it, and no minus before it unless it is its own. */
static bool stands_alone(const char *line, const char *p, const char *num) {
    size_t n = strlen(num);
    char before = p == line ? ' ' : p[-1], after = p[n];
    bool open = !isalnum((unsigned char)before) && !strchr("._", before) &&
                (before != '-' || num[0] == '-');
    bool close = !isalnum((unsigned char)after) && after != '_' &&
                 !(after == '.' && isdigit((unsigned char)p[n + 1]));
    return open && close;
}

bool docs_prose_has(const char *line, const char *num) {
    for (const char *p = line; (p = strstr(p, num)); p++)
        if (stands_alone(line, p, num))
            return true;
    return false;
}

size_t docs_replace_number(char *out, size_t cap, const char *line, const char *from,
                           const char *to) {
    size_t n = strlen(from), used = 0, count = 0;
    out[0] = '\0';
    for (const char *p = line; *p;) {
        const char *at = strstr(p, from);
        while (at && !stands_alone(line, at, from))
            at = strstr(at + 1, from);
        size_t keep = at ? (size_t)(at - p) : strlen(p);
        int w = snprintf(out + used, used < cap ? cap - used : 0, "%.*s%s", (int)keep, p,
                         at ? to : "");
        used += w > 0 ? (size_t)w : 0;
        if (!at)
            break;
        count++;
        p = at + n;
    }
    return used < cap ? count : 0;
}

#define MAX_TOKENS 512

/* Splits cmd into words: a quoted string is one word ("'" or "\""), and
 * ; | & and their runs one separator, ";". Returns the count. */
static size_t shell_words(const char *cmd, char words[][256], size_t cap) {
    size_t n = 0;
    for (const char *p = cmd; *p && n < cap;) {
        if (isspace((unsigned char)*p)) {
            p++;
        } else if (strchr(";|&", *p)) {
            p += strspn(p, ";|&");
            snprintf(words[n++], 256, ";");
        } else {
            const char *q = p;
            while (*q && !isspace((unsigned char)*q) && !strchr(";|&", *q)) {
                if (*q == '\'' || *q == '"') {
                    const char *close = strchr(q + 1, *q);
                    q = close ? close + 1 : q + strlen(q);
                } else {
                    q++;
                }
            }
            snprintf(words[n++], 256, "%.*s", (int)(q - p), p);
            p = q;
        }
    }
    return n;
}

size_t docs_trainings_of(const char *cmd) {
    static char w[MAX_TOKENS][256];
    size_t n = shell_words(cmd, w, MAX_TOKENS), loops[16], depth = 0, total = 0;
    bool start = true; /* at the start of a command: where for and done are keywords */
    for (size_t i = 0; i < n; i++) {
        if (strcmp(w[i], ";") == 0 || (start && strcmp(w[i], "do") == 0)) {
            start = true;
            continue;
        }
        if (start && strcmp(w[i], "for") == 0 && i + 2 < n && strcmp(w[i + 2], "in") == 0) {
            size_t words = 0;
            for (i += 3; i < n && strcmp(w[i], "do") != 0; i++)
                words += strcmp(w[i], ";") != 0;
            if (depth == 16)
                return DOCS_NO_COUNT; /* loops nested too deep */
            loops[depth++] = words;
            continue; /* at "do": a command starts */
        }
        if (start && strcmp(w[i], "done") == 0) {
            if (depth == 0)
                return DOCS_NO_COUNT; /* 'done' without a loop */
            depth--;
            continue;
        }
        start = false;
        size_t runs = 0, end = i + 1;
        while (end < n && strcmp(w[end], ";") != 0)
            end++;
        if (strcmp(w[i], "build/train") == 0) {
            runs = 1;
            for (size_t k = i + 1; k < end; k++)
                runs = strcmp(w[k], "--resume") == 0 ? 0 : runs;
        } else if (strcmp(w[i], "build/compare_pe") == 0) {
            size_t schemes = pe_count(), seeds = 3;
            for (size_t k = i + 1; k + 1 < end; k++)
                if (strcmp(w[k], "--schemes") == 0 && strcmp(w[k + 1], "all") != 0) {
                    schemes = 1;
                    for (const char *c = w[k + 1]; *c; c++)
                        schemes += *c == ',';
                } else if (strcmp(w[k], "--seeds") == 0) {
                    seeds = (size_t)strtoul(w[k + 1], NULL, 10);
                }
            runs = schemes * seeds;
        }
        for (size_t d = 0; d < depth; d++)
            runs *= loops[d];
        total += runs;
        i = end - 1;
    }
    return total;
}

long docs_models_claimed(const char *line) {
    const char *p = strstr(line, "commands that train ");
    if (!p)
        return -1;
    p += strlen("commands that train ");
    char *end;
    long n = strtol(p, &end, 10);
    return end > p && strncmp(end, " small model", 12) == 0 ? n : -1;
}

size_t docs_page_trainings(char *const *l, size_t n) {
    size_t counted = 0;
    bool in_console = false;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(l[i], "```", 3) == 0) {
            in_console = !in_console && strcmp(l[i], "```console") == 0;
            continue;
        }
        /* a command the page shows refused ("train: --causal: ...")
         * trains nothing */
        if (in_console && strncmp(l[i], "$ ", 2) == 0 &&
            !(i + 1 < n && (strncmp(l[i + 1], "train: ", 7) == 0 ||
                            strncmp(l[i + 1], "compare_pe: ", 12) == 0))) {
            size_t runs = docs_trainings_of(l[i] + 2);
            if (runs == DOCS_NO_COUNT)
                return DOCS_NO_COUNT;
            counted += runs;
        }
    }
    return counted;
}

DocsCountKind docs_count_marker(const char *line, DocsCount *m) {
    static const char RUNS[] = "<!-- runs: ", SCHEMES[] = "<!-- schemes: ";
    const char *t = line + strspn(line, " ");
    size_t len = strlen(t);
    bool runs = strncmp(t, RUNS, sizeof RUNS - 1) == 0;
    if (!runs && strncmp(t, SCHEMES, sizeof SCHEMES - 1) != 0)
        return DOCS_COUNT_NONE;
    const char *num = t + (runs ? sizeof RUNS : sizeof SCHEMES) - 1;
    size_t digits = strspn(num, "0123456789");
    if (len < 4 || strcmp(t + len - 4, " -->") != 0 || digits == 0 || digits >= sizeof m->num)
        return DOCS_COUNT_BAD;
    snprintf(m->num, sizeof m->num, "%.*s", (int)digits, num);
    m->cmd[0] = '\0';
    const char *rest = num + digits, *end = t + len - 4;
    if (runs) {
        if (strncmp(rest, " = ", 3) != 0 || rest + 3 >= end ||
            (size_t)(end - rest - 3) >= sizeof m->cmd)
            return DOCS_COUNT_BAD;
        snprintf(m->cmd, sizeof m->cmd, "%.*s", (int)(end - rest - 3), rest + 3);
    } else if (rest != end) {
        return DOCS_COUNT_BAD;
    }
    m->kind = runs ? DOCS_COUNT_RUNS : DOCS_COUNT_SCHEMES;
    return m->kind;
}

size_t docs_count_want(const DocsCount *m) {
    return m->kind == DOCS_COUNT_RUNS ? docs_trainings_of(m->cmd) : pe_count();
}

size_t docs_paragraph_top(char *const *l, size_t i) {
    while (i > 0 && l[i - 1][0] != '\0' && strncmp(l[i - 1], "```", 3) != 0)
        i--;
    return i;
}

bool docs_paragraph_has(char *const *l, size_t top, size_t end, const char *num) {
    for (size_t k = top; k < end; k++)
        if (strncmp(l[k] + strspn(l[k], " "), "<!--", 4) != 0 && docs_prose_has(l[k], num))
            return true;
    return false;
}
