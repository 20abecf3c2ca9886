/* A cells folder holds one grid (cellfile.h, exp_cells_dir_check): its
 * grid.settings names the grid, and the cells' own settings lines are the
 * evidence the label is checked against. */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fileio.h"
#include "cellfile.h"

#define GRID_FILE "grid.settings"
#define GRID_MAGIC "posenc grid 1\nsettings "

static const char *grid_name(const char *key) {
    bool bench = strncmp(key, "bench ", 6) == 0;
    bool quick = strstr(key, " quick=1 ") != NULL || strncmp(key, "quick=1 ", 8) == 0;
    return bench ? (quick ? "the benchmark's quick grid" : "the benchmark's full grid")
                 : quick ? "the quick grid" : "the full grid";
}

/* One difference of key_diff's, "; " before all but the first; false
 * once the first few are shown (and "; ..." said). */
static bool diff_one(char *buf, size_t cap, size_t *at, size_t *shown, const char *fmt,
                     int a, const char *x, int b, const char *y) {
    if (*at >= cap)
        return false;
    if ((*shown)++ == 4) {
        *at += (size_t)snprintf(buf + *at, cap - *at, "; ...");
        return false;
    }
    *at += (size_t)snprintf(buf + *at, cap - *at, "%s", *shown > 1 ? "; " : "");
    if (*at < cap)
        *at += (size_t)snprintf(buf + *at, cap - *at, fmt, a, x, b, y);
    return true;
}

/* "d_model=32, here 16; heads=4, here 2; ..." for the first few settings
 * of theirs that differ from ours (both keys list the same names in the
 * same order, a setting named only when set at the end: "reference
 * absent, here 1"; a key of another layout shows whole). */
static void key_diff(char *buf, size_t cap, const char *theirs, const char *ours) {
    size_t at = 0, shown = 0;
    buf[0] = '\0';
    while (*theirs && *ours && at < cap) {
        size_t a = strcspn(theirs, " "), b = strcspn(ours, " ");
        const char *eq = memchr(ours, '=', b);
        size_t name = eq ? (size_t)(eq - ours) + 1 : b;
        if (a < name || memcmp(theirs, ours, name) != 0) {
            snprintf(buf, cap, "settings %s", theirs);
            return;
        }
        if ((a != b || memcmp(theirs, ours, a) != 0) &&
            !diff_one(buf, cap, &at, &shown, "%.*s, here %.*s", (int)a, theirs,
                      (int)(b - name), ours + name))
            return;
        theirs += a + (theirs[a] == ' '), ours += b + (ours[b] == ' ');
    }
    for (; *theirs; theirs += strcspn(theirs, " "), theirs += *theirs == ' ') {
        size_t a = strcspn(theirs, " ");
        if (!diff_one(buf, cap, &at, &shown, "%.*s%.*s, here absent", (int)a, theirs, 0, ""))
            return;
    }
    for (; *ours; ours += strcspn(ours, " "), ours += *ours == ' ') {
        size_t b = strcspn(ours, " ");
        const char *eq = memchr(ours, '=', b);
        size_t name = eq ? (size_t)(eq - ours) : b;
        if (!diff_one(buf, cap, &at, &shown, "%.*s absent, here %.*s", (int)name, ours,
                      (int)(b - name - (eq != NULL)), ours + name + (eq != NULL)))
            return;
    }
}

/* The settings line of the cell file at path ("" when it has none: not a
 * cell of this format, or unreadable; such a file is damage the run names
 * when it meets the cell, not evidence of whose folder this is). */
static void cell_settings(const char *path, char *key, size_t cap) {
    char *text = NULL;
    size_t n = 0;
    Err why;
    key[0] = '\0';
    /* the settings line comes within the record's first lines */
    if (read_regular(path, 4096, &text, &n, &why) == 0 && (n = text_lf(text, n)) &&
        n > strlen(EXP_CELL_MAGIC) && memcmp(text, EXP_CELL_MAGIC "\n", strlen(EXP_CELL_MAGIC) + 1) == 0) {
        char *at = memmem(text, n, "\nsettings ", 10);
        char *nl = at ? memchr(at + 10, '\n', n - (size_t)(at + 10 - text)) : NULL;
        if (nl && (size_t)(nl - at - 10) < cap)
            snprintf(key, cap, "%.*s", (int)(nl - at - 10), at + 10);
    }
    free(text);
}

/* What the folder's cell files say of its grid: how many were made with
 * settings key (or plain, the key of a cell whose column reads no range,
 * exp_cell_key), how many with others (the first such key into other). */
typedef struct {
    size_t ours, theirs;
    char other[512];      /* the first other key */
    char other_file[256]; /* ... and the file that holds it */
} Census;

static void census(const char *dir, const char *key, const char *plain, Census *c) {
    memset(c, 0, sizeof *c);
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *ent; (ent = readdir(d));) {
        size_t len = strlen(ent->d_name);
        if (len < 6 || strcmp(ent->d_name + len - 5, ".cell") != 0)
            continue;
        char path[4096 + 256], theirs[512];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        cell_settings(path, theirs, sizeof theirs);
        if (!theirs[0])
            continue;
        if (strcmp(theirs, key) == 0 || strcmp(theirs, plain) == 0)
            c->ours++;
        else if (c->theirs++ == 0) {
            snprintf(c->other, sizeof c->other, "%s", theirs);
            snprintf(c->other_file, sizeof c->other_file, "%s", ent->d_name);
        }
    }
    closedir(d);
}

/* Another grid's name beside ours: "the quick grid", or "other settings
 * of the benchmark's full grid" when the two share a name. */
static void other_grid(char *buf, size_t cap, const char *theirs, const char *ours) {
    bool renamed = strcmp(grid_name(theirs), grid_name(ours)) == 0;
    snprintf(buf, cap, "%s%s", renamed ? "other settings of " : "", grid_name(theirs));
}

/* The folder's cells, as its grid.settings should name them: "its 330
 * cells were made by the quick grid, as this run", or, of the first cell of
 * another grid, its file and how its settings differ from this run's */
static void describe(char *buf, size_t cap, const Census *c, const char *key,
                     const char *plain) {
    char grid[128], diff[256];
    other_grid(grid, sizeof grid, c->other, key);
    /* a plain column's cell against the key without the range, as it is
     * made (exp_cell_key) */
    key_diff(diff, sizeof diff, c->other, strstr(c->other, " random_range=") ? key : plain);
    if (c->theirs)
        snprintf(buf, cap, "it holds %zu cell%s made by %s (%s%s: %s)", c->theirs,
                 c->theirs == 1 ? "" : "s", grid, c->theirs == 1 ? "" : "the first, ",
                 c->other_file, diff);
    else if (c->ours)
        snprintf(buf, cap, "its %zu cell%s made by %s, as this run", c->ours,
                 c->ours == 1 ? " was" : "s were", grid_name(key));
    else
        snprintf(buf, cap, "it holds no cells");
}

/* A cells folder is claimed only after reading what is in it: the cells'
 * own settings lines are the evidence, grid.settings the folder's label.
 * A label that is missing, damaged or contradicted by the cells is never
 * taken for "another grid" (whose advice would be to delete good cells),
 * and a folder whose cells are another grid's is never claimed. */
int exp_cells_dir_check(const char *dir, const ExpSettings *set, bool claim, Err *e) {
    char path[4096], key[512], plain[512], want[600], cells[700];
    snprintf(path, sizeof path, "%s/" GRID_FILE, dir);
    exp_settings_key(key, sizeof key, set);
    exp_settings_key_unranged(plain, sizeof plain, set);
    snprintf(want, sizeof want, GRID_MAGIC "%s\n", key);
    Census c;
    census(dir, key, plain, &c);
    describe(cells, sizeof cells, &c, key, plain);
    char *text = NULL;
    size_t n = 0;
    Err why;
    int err = read_regular(path, 4096, &text, &n, &why);
    if (!err)
        n = text_lf(text, n); /* a checkout that converted line ends */
    if (err == ENOENT) {
        if (c.theirs)
            return err_set(e, ERR_INPUT, "%s has no " GRID_FILE " and %s, and this run is %s: "
                           "it is another grid's folder; give this run another --cells "
                           "folder", dir, cells, grid_name(key));
        return claim ? write_file_atomic(path, want, strlen(want), e) : 0;
    }
    int rc = 0;
    size_t magic = strlen(GRID_MAGIC);
    bool formed = !err && n > magic && memcmp(text, GRID_MAGIC, magic) == 0 &&
                  text[n - 1] == '\n' && !memchr(text, '\0', n);
    bool same = !err && n == strlen(want) && memcmp(text, want, n) == 0;
    if (formed)
        text[n - 1] = '\0';
    if (err)
        rc = err_set(e, ERR_INPUT, "%s cannot be read (%s), and %s; remove it (rm %s; not the "
                     "cells), or give another --cells folder", path, why.msg, cells, path);
    else if (same && !c.theirs)
        rc = 0;
    else if (formed && strcmp(text + magic, key) == 0)
        rc = err_set(e, ERR_INPUT, "%s names this run's grid, %s, but %s: cells were copied "
                     "in from another folder; move them out, or give another --cells folder",
                     path, grid_name(key), cells);
    else if (formed && !(c.ours && !c.theirs)) {
        char diff[256], grid[128];
        key_diff(diff, sizeof diff, text + magic, key);
        /* the same grid under other settings (a newer protocol, say) is
         * another grid too, and said so */
        other_grid(grid, sizeof grid, text + magic, key);
        rc = err_set(e, ERR_INPUT, "%s holds the cells of another grid: %s (%s), and this run "
                     "is %s (%s); give this run another --cells folder%s%s", dir, grid, diff,
                     grid_name(key), cells,
                     c.ours + c.theirs ? "" : ", or remove that one to run this grid there: rm -r ",
                     c.ours + c.theirs ? "" : dir);
    } else
        rc = err_set(e, ERR_INPUT, "%s is %s, and %s: the file is damaged or was edited; "
                     "remove it (rm %s; not the cells) and run again, and the folder is "
                     "claimed from its cells", path,
                     formed ? "the settings of another grid" : "not a cells folder's settings "
                     "file (no '" "posenc grid 1" "' line)", cells, path);
    free(text);
    return rc;
}
