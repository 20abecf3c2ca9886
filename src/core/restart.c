#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "restart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The marker: the names set in the first start, separated by spaces. */
#define MARK "POSENC_RESTARTED"

static char set_here[256];

void restart_with(char **argv, const EnvSetting *set, size_t n) {
    const char *mark = getenv(MARK);
    if (mark) {
        /* the libraries have read them by now */
        snprintf(set_here, sizeof set_here, "%s", mark);
        unsetenv(MARK);
        char names[256], *save = NULL;
        snprintf(names, sizeof names, "%s", set_here);
        for (char *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save))
            unsetenv(name);
        return;
    }
    if (n == 0)
        return;
    char names[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(names + used, sizeof names - used, "%s%s", i ? " " : "", set[i].name);
        if (w < 0 || (size_t)w >= sizeof names - used || setenv(set[i].name, set[i].value, 1))
            goto undo;
        used += (size_t)w;
    }
    if (setenv(MARK, names, 1) == 0)
        execv("/proc/self/exe", argv);
undo:
    unsetenv(MARK);
    for (size_t i = 0; i < n; i++)
        unsetenv(set[i].name);
}

bool restart_set(const char *name) {
    size_t len = strlen(name);
    for (const char *p = set_here; (p = strstr(p, name)); p += len)
        if ((p == set_here || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return true;
    return false;
}
