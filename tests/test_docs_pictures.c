/* The docs test's pictures: every picture a page shows from docs/img is
 * drawn again by the command that made it, and must be the committed file
 * byte for byte, so a change of the numbers that moves a picture fails
 * until the picture is drawn again (scripts/docs_regen.py copies them).
 *
 * A page names the file a picture was drawn as, in a comment on the
 * image's line (it renders as nothing, and keeps images that share a
 * paragraph side by side):
 *
 *     ![Loss and accuracy on reverse](img/curves_reverse.png)<!-- drawn: work/curves_reverse.png -->
 *
 * The command that writes work/curves_reverse.png (on this page or the
 * one that draws it, docs/pictures.md for the untrained pictures) is
 * followed, when the docs test runs it, by the comparison. The checks
 * here read the pages only: every picture names its drawing, every
 * drawing is a command of some page, and every picture a tutorial's
 * command draws (README, pages 01-08, answers.md) is shown. Byte for
 * byte holds because the pages' numbers do: make pins OpenBLAS's kernels
 * (tests/test_docs.c), and a PNG is a function of the numbers. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docs_pages.h"
#include "suites.h"

#define MARK "<!-- drawn: "

/* The picture shown at page:line, if the line shows one from docs/img
 * (not a subfolder: the grids' figures are the results pages' own), with
 * the work file named in its marker ("" when there is none). */
static bool picture_on_line(const char *line, DocsPicture *p) {
    const char *img = strstr(line, "](img/");
    if (!img || !strstr(line, "!["))
        return false;
    img += 2;
    size_t len = strcspn(img, ")");
    if (img[len] != ')' || len >= sizeof p->img - 5 || memchr(img + 4, '/', len - 4) ||
        len < 8 || strncmp(img + len - 4, ".png", 4) != 0)
        return false;
    snprintf(p->img, sizeof p->img, "docs/%.*s", (int)len, img);
    p->work[0] = '\0';
    const char *m = strstr(img + len, MARK);
    if (m) {
        m += strlen(MARK);
        size_t wl = strcspn(m, " ");
        if (strncmp(m + wl, " -->", 4) == 0 && wl < sizeof p->work)
            snprintf(p->work, sizeof p->work, "%.*s", (int)wl, m);
    }
    return true;
}

/* The lines of page p (*text holds them; the caller frees both). */
static size_t page_lines(size_t p, char **text, char ***lines) {
    FILE *f = fopen(docs_pages[p], "r");
    ck_assert_msg(f != NULL, "cannot open %s", docs_pages[p]);
    *text = docs_read_all(f);
    fclose(f);
    return docs_split_lines(*text, lines);
}

size_t docs_pictures(DocsPicture *out, size_t cap) {
    docs_find_pages();
    size_t n = 0;
    for (size_t p = 0; p < docs_n_pages; p++) {
        char *text, **l;
        size_t nl = page_lines(p, &text, &l);
        for (size_t i = 0; i < nl; i++) {
            DocsPicture pic;
            if (!picture_on_line(l[i], &pic))
                continue;
            ck_assert_msg(n < cap, "more than %zu pictures on the pages", cap);
            snprintf(pic.page, sizeof pic.page, "%s", docs_pages[p]);
            pic.line = i + 1;
            out[n++] = pic;
        }
        free(l);
        free(text);
    }
    return n;
}

/* The work files ("work/NAME.png") cmd names, in turn: *at moves past
 * each; false when there are no more. */
static bool next_work_png(const char **at, char *name, size_t cap) {
    for (const char *p = *at; (p = strstr(p, "work/")); p++) {
        if (p != *at && !strchr(" (=", p[-1]))
            continue;
        size_t len = strcspn(p, " ;&|)'\"");
        if (len > 9 && strncmp(p + len - 4, ".png", 4) == 0 && len < cap) {
            snprintf(name, cap, "%.*s", (int)len, p);
            *at = p + len;
            return true;
        }
    }
    return false;
}

bool docs_check_pictures(const char *page, size_t lineno, const char *cmd, const char *work,
                         char *msg, size_t cap) {
    static DocsPicture pics[256];
    static size_t n_pics;
    static bool read;
    if (!read)
        n_pics = docs_pictures(pics, sizeof pics / sizeof *pics), read = true;
    char name[256];
    for (const char *at = cmd; next_work_png(&at, name, sizeof name);)
        for (size_t k = 0; k < n_pics; k++) {
            if (strcmp(pics[k].work, name) != 0)
                continue;
            char drawn[4096];
            snprintf(drawn, sizeof drawn, "%s%s", work, name + 4);
            if (!same_bytes(drawn, pics[k].img)) {
                snprintf(msg, cap, "%s:%zu: '%s' draws %s, which is not %s (shown at %s:%zu): "
                         "the numbers moved it; draw it again (scripts/docs_regen.py copies "
                         "it) and look at it",
                         page, lineno, cmd, name, pics[k].img, pics[k].page, pics[k].line);
                return false;
            }
        }
    return true;
}

/* The commands of the pages' ```console blocks that write a work file
 * named "work/...png", each once, with its page: returns how many. */
typedef struct {
    char name[256], page[256];
} Drawing;

static size_t drawings(Drawing *out, size_t cap) {
    docs_find_pages();
    size_t n = 0;
    for (size_t p = 0; p < docs_n_pages; p++) {
        char *text, **l;
        size_t nl = page_lines(p, &text, &l);
        bool in_console = false;
        for (size_t i = 0; i < nl; i++) {
            if (strncmp(l[i], "```", 3) == 0) {
                in_console = !in_console && strcmp(l[i], "```console") == 0;
                continue;
            }
            if (!in_console || strncmp(l[i], "$ ", 2) != 0)
                continue;
            char name[256];
            for (const char *at = l[i]; next_work_png(&at, name, sizeof name);) {
                ck_assert_msg(n < cap, "more than %zu drawings on the pages", cap);
                snprintf(out[n].name, sizeof out[n].name, "%s", name);
                snprintf(out[n].page, sizeof out[n].page, "%s", docs_pages[p]);
                n++;
            }
        }
        free(l);
        free(text);
    }
    return n;
}

/* README.md, docs/0N-*.md and docs/answers.md: the tutorial and its
 * answers, whose every picture a reader draws is shown. */
static bool is_tutorial(const char *page) {
    return strcmp(page, "README.md") == 0 || strcmp(page, "docs/answers.md") == 0 ||
           (strncmp(page, "docs/0", 6) == 0 && page[6] >= '1' && page[6] <= '9');
}

START_TEST(every_picture_names_the_command_that_draws_it) {
    static DocsPicture pics[256];
    static Drawing draws[512];
    size_t np = docs_pictures(pics, 256), nd = drawings(draws, 512), bad = 0;
    for (size_t k = 0; k < np; k++) {
        bool drawn = false;
        for (size_t j = 0; j < nd && !drawn; j++)
            drawn = strcmp(draws[j].name, pics[k].work) == 0;
        FILE *f = fopen(pics[k].img, "rb");
        if (f)
            fclose(f);
        if (!drawn || !f) {
            fprintf(stderr, "%s:%zu: %s %s\n", pics[k].page, pics[k].line, pics[k].img,
                    !f              ? "is not committed"
                    : *pics[k].work ? "names a file no command of the pages draws"
                                    : "has no marker \"" MARK "work/NAME.png -->\" on its line");
            bad++;
        }
    }
    /* and the other way: what a tutorial's command draws, the page shows */
    for (size_t j = 0; j < nd; j++) {
        bool shown = false;
        for (size_t k = 0; k < np && !shown; k++)
            shown = strcmp(draws[j].name, pics[k].work) == 0;
        if (!shown && is_tutorial(draws[j].page)) {
            fprintf(stderr, "%s: draws %s, which no page shows from docs/img\n", draws[j].page,
                    draws[j].name);
            bad++;
        }
    }
    ck_assert_msg(bad == 0, "%zu pictures of the pages are not checked against their "
                  "commands (listed above)", bad);
    ck_assert_msg(np >= 30 && nd >= 30, "%zu pictures, %zu drawings: is the check reading the "
                  "pages?", np, nd);
}
END_TEST

/* The comparison itself, on a committed picture: the same bytes pass; a
 * picture one pixel off (a redraw from other numbers) fails, naming the
 * page's picture and the fix. */
START_TEST(a_picture_drawn_from_other_numbers_fails) {
    static DocsPicture pics[256];
    size_t np = docs_pictures(pics, 256), k = 0;
    while (k < np && strcmp(pics[k].img, "docs/img/curves_reverse.png") != 0)
        k++;
    ck_assert_msg(k < np, "docs/img/curves_reverse.png is not on a page");
    char *dir = scratch(), path[4096], cmd[4096], msg[8192] = "";
    snprintf(path, sizeof path, "%s%s", dir, pics[k].work + 4);
    FILE *in = fopen(pics[k].img, "rb");
    ck_assert_ptr_nonnull(in);
    ck_assert_int_eq(fseek(in, 0, SEEK_END), 0);
    long size = ftell(in);
    ck_assert_int_gt(size, 1000);
    rewind(in);
    char *bytes = malloc((size_t)size);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_uint_eq(fread(bytes, 1, (size_t)size, in), (size_t)size);
    fclose(in);
    FILE *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(fwrite(bytes, 1, (size_t)size, out), (size_t)size);
    ck_assert_int_eq(fclose(out), 0);
    snprintf(cmd, sizeof cmd, "build/pe_plot --kind curves --out %s", pics[k].work);
    ck_assert_msg(docs_check_pictures("p.md", 1, cmd, dir, msg, sizeof msg), "%s", msg);
    /* a byte of the image data changed: another picture */
    bytes[size / 2] ^= 1;
    out = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(bytes, 1, (size_t)size, out), (size_t)size);
    ck_assert_int_eq(fclose(out), 0);
    ck_assert(!docs_check_pictures("p.md", 1, cmd, dir, msg, sizeof msg));
    ck_assert_ptr_nonnull(strstr(msg, "docs/img/curves_reverse.png"));
    ck_assert_ptr_nonnull(strstr(msg, "draw it again"));
    /* a command that draws no page's picture is not compared */
    ck_assert(docs_check_pictures("p.md", 1, "build/pe_plot --out work/other.png", dir, msg,
                                  sizeof msg));
    free(bytes);
    remove_dir(dir);
}
END_TEST

TCase *tcase_docs_pictures(void) {
    TCase *tc = tcase_create("pictures");
    tcase_add_test(tc, every_picture_names_the_command_that_draws_it);
    tcase_add_test(tc, a_picture_drawn_from_other_numbers_fails);
    return tc;
}
