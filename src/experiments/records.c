/* Cell records as they arrive from other machines (experiments --store):
 * lines in, whole records out, each checked as a cell file is before it is
 * written, so that a run stopped midway keeps every record that came
 * whole and none that did not. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cellfile.h"

/* err_set's message, and the verdict */
static int bad(Err *e, const char *fmt, ...) POSENC_PRINTF(2, 3);
static int bad(Err *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char msg[sizeof e->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err_set(e, ERR_INPUT, "%s", msg);
    return EXP_RECORD_BAD;
}

/* The id a record names on its second line, however damaged the rest,
 * so that a refusal says which cell is still missing ("?" if none). */
static void record_id(char *id, size_t cap, const char *text, size_t len) {
    const char *nl = len ? memchr(text, '\n', len) : NULL; /* an empty Buf has no text */
    if (!nl || (size_t)(text + len - nl) < 5 || memcmp(nl + 1, "id ", 3) != 0)
        return;
    const char *p = nl + 4;
    size_t n = 0;
    while (p + n < text + len && n + 1 < cap && n < 95 &&
           (isalnum((unsigned char)p[n]) || strchr("-_.", p[n])))
        n++;
    if (n && p + n < text + len && p[n] == '\n')
        snprintf(id, cap, "%.*s", (int)n, p);
}

/* Where a magic line begins inside line past its first byte (a writer
 * cut off mid-line, and the next record glued on), or 0. */
static size_t glued_magic(const char *line, size_t len) {
    size_t any = strlen(EXP_CELL_MAGIC_ANY);
    for (size_t k = 1; k + any <= len; k++)
        if (line[k] == EXP_CELL_MAGIC_ANY[0] && memcmp(line + k, EXP_CELL_MAGIC_ANY, any) == 0)
            return k;
    return 0;
}

int exp_record_line(ExpRecordReader *r, const char *line, size_t len, Err *e) {
    if (r->done)
        r->text.n = 0, r->done = false;
    /* a record that crossed a link converting line ends: the checksum
     * then says whether taking the carriage returns out gave it back */
    if (len >= 2 && line[len - 2] == '\r' && line[len - 1] == '\n') {
        r->line.n = 0;
        buf_put(&r->line, line, len - 2);
        buf_put(&r->line, "\n", 1);
        if (r->line.failed)
            return bad(e, "out of memory reading a record");
        line = (const char *)r->line.p, len = r->line.n;
    }
    size_t any = strlen(EXP_CELL_MAGIC_ANY), glued = glued_magic(line, len);
    if (glued) {
        /* what came before the magic is the end of a cut record (or no
         * record): refused, and the record that begins here kept whole */
        bool cut = r->text.n > 0;
        char id[96] = "?";
        record_id(id, sizeof id, (const char *)r->text.p, r->text.n);
        r->text.n = 0, r->skipping = false;
        buf_put(&r->text, line + glued, len - glued);
        return cut ? bad(e, "the record of %s was cut short mid-line (the next one began on "
                         "its last line): that cell is still missing", id)
                   : bad(e, "a line that begins no cell record: '%.*s'",
                         (int)(glued > 60 ? 60 : glued), line);
    }
    bool magic = len >= any && memcmp(line, EXP_CELL_MAGIC_ANY, any) == 0;
    if (magic && r->text.n) {
        /* a record cut short (its writer died), and the next begins */
        char id[96] = "?";
        record_id(id, sizeof id, (const char *)r->text.p, r->text.n);
        r->text.n = 0;
        buf_put(&r->text, line, len);
        return bad(e, "the record of %s was cut short: a new one began before its 'end' "
                   "line; that cell is still missing", id);
    }
    if (!r->text.n && !magic) {
        if (r->skipping)
            return EXP_RECORD_WAIT;
        r->skipping = true;
        return bad(e, "a line that begins no cell record: '%.*s'",
                       (int)(len > 60 ? 60 : len - (len && line[len - 1] == '\n')), line);
    }
    r->skipping = false;
    buf_put(&r->text, line, len);
    if (r->text.failed || r->text.n > EXP_CELL_MAX) {
        r->text.n = 0, r->text.failed = false, r->skipping = true;
        return bad(e, "a record longer than %zu bytes (or out of memory)",
                       EXP_CELL_MAX);
    }
    if (len == 4 && memcmp(line, "end\n", 4) == 0) {
        r->done = true;
        return EXP_RECORD_DONE;
    }
    return EXP_RECORD_WAIT;
}

int exp_record_end(ExpRecordReader *r, Err *e) {
    if (r->done || !r->text.n)
        return 0;
    char id[96] = "?";
    record_id(id, sizeof id, (const char *)r->text.p, r->text.n);
    r->text.n = 0;
    return err_set(e, ERR_INPUT, "the input ended inside a record, that of %s (its writer "
                   "stopped): that cell is still missing", id);
}

void exp_record_reader_free(ExpRecordReader *r) {
    buf_free(&r->text);
    buf_free(&r->line);
    memset(r, 0, sizeof *r);
}

int exp_cell_store(const char *dir, const ExpSettings *set, const ExpCell *cells, size_t n,
                   const char *source, const char *text, size_t len, char *id, size_t cap,
                   Err *e) {
    ExpCellFile f;
    size_t used;
    bool old;
    snprintf(id, cap, "?");
    char why[sizeof e->msg];
    if (exp_cell_parse(text, len, &used, &f, &old, e)) {
        record_id(id, cap, text, len);
        snprintf(why, sizeof why, "%s", e->msg);
        return old ? err_set(e, ERR_INPUT, "%s; build every machine at the same commit", why)
                   : ERR_INPUT;
    }
    snprintf(id, cap, "%s", f.id);
    const ExpCell *cell = exp_cell_find(cells, n, f.id);
    ExpCellState st = cell ? exp_cell_check(&f, set, cell, source, e) : CELL_DAMAGED;
    int rc = 0;
    if (!cell)
        rc = err_set(e, ERR_INPUT, "it is no cell of this grid (settings %s)", f.settings);
    else if (st == CELL_OTHER_SOURCE || st == CELL_OTHER_SETTINGS) {
        snprintf(why, sizeof why, "%s", e->msg);
        rc = err_set(e, ERR_INPUT, "%s; build every machine at the same commit with the same "
                     "options", why);
    }
    else if (st != CELL_DONE)
        rc = ERR_INPUT;
    else if (exp_cell_save_text(dir, f.id, text, used, e))
        rc = ERR_RUNTIME; /* the folder, not the record: the caller tells them apart */
    exp_cell_file_free(&f);
    return rc;
}
