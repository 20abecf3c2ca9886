/* The pages' templates (prose.h): read once from their folder, each
 * checked as it is read, and filled strictly. */
#define _DEFAULT_SOURCE /* readlink, DT_REG */
#include "prose.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/fileio.h"

#define TEMPLATES "src/experiments/page/templates"
#define MAX_FILES 64
#define MAX_TEMPLATES 512
#define MAX_VALUES 64
#define FILE_MAX ((size_t)1 << 20)

typedef struct {
    const char *name; /* in its file's text, NUL-terminated there */
    const char *text; /* its text, n bytes, in the file's text */
    size_t n;
    const char *file; /* the file's name, for messages */
    size_t line;      /* of its header */
} Template;

static struct {
    bool loaded;
    char folder[4096];
    char *files[MAX_FILES]; /* each file's text (the templates point into it) */
    char *paths[MAX_FILES];  /* and its path, for messages */
    char names[MAX_FILES][256];
    size_t n_files;
    Template t[MAX_TEMPLATES];
    size_t n;
    Err first; /* the first error since prose_begin (or of loading) */
    bool failed;
} P;

static void fail(const char *fmt, ...) POSENC_PRINTF(1, 2);
static void fail(const char *fmt, ...) {
    if (P.failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P.first.msg, sizeof P.first.msg, fmt, ap);
    va_end(ap);
    P.first.code = ERR_INPUT;
    P.failed = true;
}

ProseVal pv_text(const char *name, const char *text) {
    return (ProseVal){.name = name, .kind = PV_TEXT, .text = text, .n = strlen(text)};
}

ProseVal pv_buf(const char *name, const Buf *b) {
    return (ProseVal){.name = name, .kind = PV_TEXT, .text = b->p ? (const char *)b->p : "",
                      .n = b->failed ? 0 : b->n};
}

ProseVal pv_count(const char *name, size_t n) {
    return (ProseVal){.name = name, .kind = PV_COUNT, .count = n};
}

ProseVal pv_real(const char *name, double x) {
    return (ProseVal){.name = name, .kind = PV_REAL, .real = x};
}

ProseVal pv_tmpl(const char *name, const char *template_name) {
    return (ProseVal){.name = name, .kind = PV_TEMPLATE, .text = template_name};
}

/* ---- a placeholder: {{name}} or {{name:FMT}} ---- */

typedef struct {
    const char *name, *fmt; /* fmt NULL without one */
    size_t name_n, fmt_n, len; /* len: the placeholder's bytes, braces included */
} Slot;

static bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.';
}

/* FMT as the filler knows it: [+][.N]f, [+][.N]e or [.N]g, N one or two
 * digits; into a printf format "%+.2f" (cap 16). */
static bool format_of(const char *f, size_t n, char *out) {
    size_t i = 0;
    bool plus = i < n && f[i] == '+';
    i += plus;
    size_t digits = 0;
    if (i < n && f[i] == '.') {
        for (i++; i < n && f[i] >= '0' && f[i] <= '9'; i++)
            digits++;
        if (digits == 0 || digits > 2)
            return false;
    }
    if (i + 1 != n || (f[i] != 'f' && f[i] != 'g' && f[i] != 'e') || (plus && f[i] == 'g'))
        return false;
    snprintf(out, 16, "%%%.*s", (int)n, f);
    return true;
}

/* Reads the placeholder at p ("{{..."), within the line that ends at end;
 * 0 with s filled, or an error naming the placeholder. */
static int slot_at(const char *p, const char *end, Slot *s, char *why, size_t cap) {
    const char *close = NULL;
    for (const char *q = p + 2; q + 1 < end; q++)
        if (q[0] == '}' && q[1] == '}') {
            close = q;
            break;
        }
    if (!close) {
        snprintf(why, cap, "a '{{' not closed by '}}' on its line");
        return 1;
    }
    memset(s, 0, sizeof *s);
    s->name = p + 2;
    while (s->name + s->name_n < close && name_char(s->name[s->name_n]))
        s->name_n++;
    const char *after = s->name + s->name_n;
    s->len = (size_t)(close + 2 - p);
    if (s->name_n == 0 || (after < close && *after != ':')) {
        snprintf(why, cap, "'%.*s' is no placeholder: {{name}} or {{name:FMT}}, a name of "
                 "letters, digits, '_' and '.'", (int)s->len, p);
        return 1;
    }
    if (after < close) {
        char f[16];
        s->fmt = after + 1, s->fmt_n = (size_t)(close - s->fmt);
        if (!format_of(s->fmt, s->fmt_n, f)) {
            snprintf(why, cap, "'%.*s': unknown format '%.*s' (the formats: .2f, +.2f, .2g, "
                     "g, .1e, +.1e)", (int)s->len, p, (int)s->fmt_n, s->fmt);
            return 1;
        }
    }
    return 0;
}

/* Walks text (n bytes, starting at line `line` of file), calling each
 * placeholder's slot; a stray "}}" or a malformed one is an error. */
typedef int (*SlotFn)(void *ctx, const Slot *s, const char *before, size_t before_n,
                      size_t line);

static int walk(const char *text, size_t n, const char *file, size_t line, SlotFn fn,
                void *ctx, Err *e) {
    const char *p = text, *end = text + n, *plain = text;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        eol = eol ? eol : end;
        for (const char *q = p; q < eol; q++) {
            char why[512];
            if (q + 1 < eol && q[0] == '}' && q[1] == '}')
                return err_set(e, ERR_INPUT, "%s:%zu: a '}}' with no '{{' before it", file,
                               line);
            if (!(q + 1 < eol && q[0] == '{' && q[1] == '{'))
                continue;
            Slot s;
            if (slot_at(q, eol, &s, why, sizeof why))
                return err_set(e, ERR_INPUT, "%s:%zu: %s", file, line, why);
            if (fn && fn(ctx, &s, plain, (size_t)(q - plain), line))
                return ERR_INPUT;
            q += s.len - 1;
            plain = q + 1;
        }
        p = eol + (eol < end);
        line++;
    }
    return fn ? fn(ctx, NULL, plain, (size_t)(end - plain), line) : 0;
}

/* ---- the folder ---- */

static bool is_dir(const char *path) {
    DIR *d = opendir(path);
    if (d)
        closedir(d);
    return d != NULL;
}

/* The folder, as prose.h says it is found. */
static int find_folder(char *out, size_t cap, Err *e) {
    const char *env = getenv("POSENC_TEMPLATES");
    if (env && env[0]) {
        snprintf(out, cap, "%s", env);
        return is_dir(out) ? 0 : err_set(e, ERR_INPUT, "POSENC_TEMPLATES is %s, which is no "
                                        "folder: give the folder of the pages' templates (%s "
                                        "in the sources)", env, TEMPLATES);
    }
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = '\0';
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                break;
            *slash = '\0';
            int n = snprintf(out, cap, "%s/%s", exe, TEMPLATES);
            if (n > 0 && (size_t)n < cap && is_dir(out))
                return 0;
        }
    }
    snprintf(out, cap, "%s", TEMPLATES);
    if (is_dir(out))
        return 0;
    return err_set(e, ERR_INPUT, "the pages' templates (%s) are neither in the source tree "
                   "beside this program nor under the current folder: run it from the "
                   "sources' top folder, or set POSENC_TEMPLATES to that folder", TEMPLATES);
}

static int by_name(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* The template of a name, or NULL. */
static const Template *find(const char *name) {
    for (size_t i = 0; i < P.n; i++)
        if (strcmp(P.t[i].name, name) == 0)
            return &P.t[i];
    return NULL;
}

/* One file's templates: split at its "@@ NAME" lines, each checked. */
static int split(char *text, size_t n, const char *file, Err *e) {
    char *p = text, *end = text + n;
    size_t line = 1;
    Template *cur = NULL;
    while (p < end) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        eol = eol ? eol : end;
        if (eol - p >= 3 && memcmp(p, "@@ ", 3) == 0) {
            *eol = '\0';
            char *name = p + 3;
            if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_.-") != strlen(name))
                return err_set(e, ERR_INPUT, "%s:%zu: '@@ %s' names no template: a name of "
                               "letters, digits, '_', '.' and '-'", file, line, name);
            const Template *twin = find(name);
            if (twin)
                return err_set(e, ERR_INPUT, "%s:%zu: a second template %s (the first: %s:%zu)",
                               file, line, name, twin->file, twin->line);
            if (P.n == MAX_TEMPLATES)
                return err_set(e, ERR_INPUT, "%s:%zu: more than %d templates", file, line,
                               MAX_TEMPLATES);
            cur = &P.t[P.n++];
            *cur = (Template){.name = name, .text = eol + (eol < end), .file = file,
                              .line = line};
        } else if (cur) {
            cur->n = (size_t)(eol + (eol < end) - cur->text);
        }
        p = eol + (eol < end);
        line++;
    }
    for (size_t i = 0; i < P.n; i++)
        if (P.t[i].file == file) {
            Template *t = &P.t[i];
            while (t->n && t->text[t->n - 1] == '\n')
                t->n--; /* the blank lines at its end */
            if (walk(t->text, t->n, file, t->line + 1, NULL, NULL, e))
                return ERR_INPUT;
        }
    return 0;
}

/* A template file's bytes are UTF-8 text: a NUL (which ends a C string
 * early) or a byte of another encoding (Latin-1's é, the one byte 0xE9)
 * would reach the page as it is, so it is refused with its line. */
static int check_bytes(const char *text, size_t n, const char *file, Err *e) {
    const unsigned char *p = (const unsigned char *)text;
    size_t line = 1;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '\n' || (c && c < 0x80)) {
            line += c == '\n', i++;
            continue;
        }
        if (!c)
            return err_set(e, ERR_INPUT, "%s:%zu: a NUL byte (byte %zu of the file): a "
                           "template is text; take it out", file, line, i + 1);
        /* the sequence's length from its first byte; C0, C1 and F5..FF
         * begin none (overlong, or past U+10FFFF) */
        size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                     : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        bool ok = len && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (p[i + k] & 0xC0) == 0x80;
        /* the overlong forms, the surrogates and past U+10FFFF */
        if (ok && ((c == 0xE0 && p[i + 1] < 0xA0) || (c == 0xED && p[i + 1] >= 0xA0) ||
                   (c == 0xF0 && p[i + 1] < 0x90) || (c == 0xF4 && p[i + 1] >= 0x90)))
            ok = false;
        if (!ok)
            return err_set(e, ERR_INPUT, "%s:%zu: the byte 0x%02X (byte %zu of the file) is "
                           "not UTF-8: save the file as UTF-8 (Latin-1's é, for one, is the "
                           "byte 0xE9)", file, line, c, i + 1);
        i += len;
    }
    return 0;
}

/* A template file holds at most FILE_MAX bytes: one longer was cut off
 * there, mid-sentence, without a word; it is refused, named. */
static int too_long(const char *path, size_t n, Err *e) {
    if (n <= FILE_MAX)
        return 0;
    return err_set(e, ERR_INPUT, "the template file %s is longer than %zu bytes (1 MiB), the "
                   "most a template file may hold: split it into files of their own", path,
                   FILE_MAX);
}

static void unload(void) {
    for (size_t i = 0; i < P.n_files; i++)
        free(P.files[i]), free(P.paths[i]);
    P.n_files = P.n = 0;
    P.loaded = false;
}

static int load(Err *e) {
    if (P.loaded)
        return 0;
    unload();
    if (find_folder(P.folder, sizeof P.folder, e))
        return ERR_INPUT;
    DIR *d = opendir(P.folder);
    if (!d)
        return err_set(e, ERR_INPUT, "cannot read the templates' folder %s: %s", P.folder,
                       strerror(errno));
    for (struct dirent *ent; (ent = readdir(d));) {
        size_t len = strlen(ent->d_name);
        if (len < 4 || strcmp(ent->d_name + len - 3, ".md") != 0 || ent->d_name[0] == '.')
            continue;
        if (P.n_files == MAX_FILES || len >= sizeof P.names[0]) {
            closedir(d);
            return err_set(e, ERR_INPUT, "%s: more than %d template files, or a name too long",
                           P.folder, MAX_FILES);
        }
        memcpy(P.names[P.n_files++], ent->d_name, len + 1);
    }
    closedir(d);
    /* in the order of their names: the same errors first on every machine */
    qsort(P.names, P.n_files, sizeof P.names[0], by_name);
    size_t files = P.n_files;
    P.n_files = 0;
    for (size_t i = 0; i < files; i++) {
        char *path = malloc(strlen(P.folder) + strlen(P.names[i]) + 2), *text = NULL;
        size_t n = 0;
        Err why;
        if (!path)
            return err_set(e, ERR_RUNTIME, "out of memory reading the templates");
        sprintf(path, "%s/%s", P.folder, P.names[i]);
        /* a byte past the most tells a file at the limit from a longer one */
        int rc = read_regular(path, FILE_MAX + 1, &text, &n, &why);
        P.files[P.n_files] = text, P.paths[P.n_files++] = path;
        if (rc)
            return err_set(e, ERR_INPUT, "cannot read the template file %s: %s", path,
                           why.msg);
        if (too_long(path, n, e) || check_bytes(text, n, path, e))
            return ERR_INPUT;
        n = text_lf(text, n);
        if (split(text, n, path, e))
            return ERR_INPUT;
    }
    P.loaded = true;
    return 0;
}

int prose_load(Err *e) {
    int rc = load(e);
    if (rc)
        unload(); /* the files read before the one that failed */
    return rc;
}

const char *prose_folder(void) { return P.loaded ? P.folder : ""; }

void prose_reload(void) { unload(); }

void prose_begin(void) {
    P.failed = false;
    P.first = (Err){0};
}

int prose_end(Err *e) {
    if (!P.failed)
        return 0;
    *e = P.first;
    return ERR_INPUT;
}

/* ---- filling ---- */

typedef struct {
    Buf *out;
    const Template *t;
    const ProseVal *v;
    size_t n;
    bool used[MAX_VALUES];
} Fill;

static int put_slot(void *ctx, const Slot *s, const char *before, size_t before_n,
                    size_t line) {
    Fill *f = ctx;
    buf_put(f->out, before, before_n);
    if (!s)
        return 0;
    size_t i = 0;
    while (i < f->n && !(strlen(f->v[i].name) == s->name_n &&
                         memcmp(f->v[i].name, s->name, s->name_n) == 0))
        i++;
    if (i == f->n) {
        char given[1024] = "";
        for (size_t k = 0, at = 0; k < f->n && at < sizeof given; k++)
            at += (size_t)snprintf(given + at, sizeof given - at, "%s%s", k ? ", " : "",
                                   f->v[k].name);
        fail("%s:%zu: {{%.*s}}: template %s is given no value of that name (it is given: %s)",
             f->t->file, line, (int)s->name_n, s->name, f->t->name, f->n ? given : "none");
        return 1;
    }
    const ProseVal *v = &f->v[i];
    f->used[i] = true;
    if (v->kind == PV_REAL && !s->fmt) {
        fail("%s:%zu: {{%.*s}} is a number: give it a format, e.g. {{%.*s:.2f}}", f->t->file,
             line, (int)s->name_n, s->name, (int)s->name_n, s->name);
        return 1;
    }
    if (v->kind != PV_REAL && s->fmt) {
        fail("%s:%zu: {{%.*s:%.*s}}: %s is %s, printed as it is: leave the format out",
             f->t->file, line, (int)s->name_n, s->name, (int)s->fmt_n, s->fmt, v->name,
             v->kind == PV_COUNT ? "a count" : "a text");
        return 1;
    }
    char fmt[16];
    if (v->kind == PV_TEMPLATE)
        prose_fill(f->out, v->text, NULL, 0);
    else if (v->kind == PV_TEXT)
        buf_put(f->out, v->text, v->n);
    else if (v->kind == PV_COUNT)
        buf_printf(f->out, "%zu", v->count);
    else if (format_of(s->fmt, s->fmt_n, fmt)) {
        /* a half of the last digit away from zero, as every number the
         * pages print from data (number.c) */
        const char *dot = strchr(fmt, '.');
        buf_printf(f->out, fmt,
                   exp_half_away(v->real, fmt[strlen(fmt) - 1], dot ? atoi(dot + 1) : 6));
    }
    return P.failed; /* an error of the template it holds */
}

void prose_fill(Buf *b, const char *name, const ProseVal *v, size_t n) {
    Err e;
    if (P.failed)
        return;
    if (prose_load(&e)) {
        fail("%s", e.msg);
        return;
    }
    const Template *t = find(name);
    if (!t) {
        fail("no template named %s in %s (the page's writer asks for it): add it to one of "
             "the template files there", name, P.folder);
        return;
    }
    if (n > MAX_VALUES) {
        fail("template %s is given %zu values, more than %d", name, n, MAX_VALUES);
        return;
    }
    Fill f = {.out = b, .t = t, .v = v, .n = n};
    size_t start = b->n;
    if (walk(t->text, t->n, t->file, t->line + 1, put_slot, &f, &e)) {
        if (!P.failed) /* a syntax error is found when the file is read; kept all the same */
            fail("%s", e.msg);
        b->n = start; /* the partial fill undone */
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!f.used[i]) {
            fail("%s:%zu: template %s does not use the value %s the page's writer gives it: "
                 "place it ({{%s}}), or take it out of the code", t->file, t->line, name,
                 v[i].name, v[i].name);
            b->n = start;
            return;
        }
}

int prose_check_file(const char *path, Err *e) {
    char *text = NULL;
    size_t n = 0;
    Err why;
    if (read_regular(path, FILE_MAX + 1, &text, &n, &why) != 0)
        return err_set(e, ERR_INPUT, "cannot read %s: %s", path, why.msg);
    int rc = too_long(path, n, e) || check_bytes(text, n, path, e) ? ERR_INPUT : 0;
    n = text_lf(text, n);
    if (!rc)
        rc = walk(text, n, path, 1, NULL, NULL, e);
    free(text);
    return rc;
}
