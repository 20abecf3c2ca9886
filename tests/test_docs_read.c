/* The docs test, its second half: the checks that read the pages without
 * running them (the first half, test_docs.c, runs the blocks and checks
 * what they print). A command keeps its messages and its files to the
 * reader's folder (docs/index.md, "Your working folder"); every number the
 * prose quotes from a ```console block is the number the block shows.
 *
 * Numbers in prose. A block gets a name from an HTML comment on the line
 * just before its fence, and a paragraph that quotes its output ends with
 * a comment listing the numbers it quotes (comments do not render):
 *
 *     <!-- block: reverse-seeds -->
 *     ```console
 *     $ build/compare_pe --task reverse ...
 *      sinusoidal | add | 0.9945 | ...
 *     ```
 *     The sinusoid reaches 0.9945 on average, and 0.99 on every seed.
 *     <!-- from #reverse-seeds: 0.9945@sinusoidal 0.99@sinusoidal -->
 *
 * "from PAGE#NAME" names a block of another page, the path relative to
 * the page, as a Markdown link is (05-training.md#reverse-seeds). Each
 * number must appear in the paragraph above the comment (the lines up to
 * the previous blank line), and in the named block's output, on a line
 * that has the word WORD when "@WORD" is given (words split at spaces,
 * commas and table bars: @sinusoidal, @12; @rope@pre-norm asks for both),
 * rounded to the digits the prose shows (3.6e-7 stands for 3.58e-07;
 * 0.99 for 0.9945), or at the same digits the same number (0.357 does
 * not stand for 0.356: docs_quotes). Markers indented up to three spaces
 * (under a list item) count; four make a code block, as in docs/index.md.
 * Only ```console blocks can be named, so the output the prose is checked
 * against is itself checked against the program. The numbers are read
 * from the pages, not rerun: the check is instant, and a block that
 * docs_regen.py rewrote makes the stale prose fail here (docs_regen.py
 * updates the numbers it can map, and lists the rest). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/pe/pe.h"
#include "docs_count.h"
#include "docs_pages.h"
#include "suites.h"

/* The pages' lines, loaded once per test process. */
static char **page_lines[MAX_PAGES];
static size_t page_n[MAX_PAGES];

static void load_pages(void) {
    docs_find_pages();
    for (size_t i = 0; i < docs_n_pages; i++) {
        if (page_lines[i])
            continue;
        FILE *f = fopen(docs_pages[i], "r");
        ck_assert_msg(f != NULL, "cannot open %s (run the tests from the repository root)",
                      docs_pages[i]);
        char *text = docs_read_all(f); /* kept: the lines point into it */
        fclose(f);
        page_n[i] = docs_split_lines(text, &page_lines[i]);
    }
}

/* The page a reference names: ref[0..len) is a path relative to page's
 * folder, as in a Markdown link; empty means the page itself. -1 if none. */
static long page_named(size_t page, const char *ref, size_t len) {
    if (len == 0)
        return (long)page;
    char path[512];
    const char *slash = strrchr(docs_pages[page], '/');
    int dir = slash ? (int)(slash - docs_pages[page] + 1) : 0;
    snprintf(path, sizeof path, "%.*s%.*s", dir, docs_pages[page], (int)len, ref);
    const char *p = strncmp(path, "docs/../", 8) == 0 ? path + 8 : path;
    for (size_t i = 0; i < docs_n_pages; i++)
        if (strcmp(docs_pages[i], p) == 0)
            return (long)i;
    return -1;
}

/* The output lines [*start, *end) of the block page names `name`: 0, or
 * a reason it has none. */
static const char *find_block(size_t page, const char *name, size_t *start, size_t *end) {
    char label[160];
    snprintf(label, sizeof label, "<!-- block: %s -->", name);
    char **l = page_lines[page];
    for (size_t i = 0; i < page_n[page]; i++) {
        if (strcmp(l[i], label) != 0)
            continue;
        if (i + 1 == page_n[page] || strcmp(l[i + 1], "```console") != 0)
            return "is not a ```console block (only those run)";
        *start = i + 2;
        for (*end = *start; *end < page_n[page] && strncmp(l[*end], "```", 3) != 0; (*end)++)
            ;
        return NULL;
    }
    return "is not there";
}

/* Does line have every one of words ("rope" or "rope@pre-norm") among
 * its words (split at spaces, commas and table bars)? */
static bool has_words(const char *line, const char *words) {
    for (const char *w = words; *w;) {
        size_t n = strcspn(w, "@");
        char buf[4096], *save;
        bool found = false;
        snprintf(buf, sizeof buf, "%s", line);
        for (char *t = strtok_r(buf, " \t,|", &save); t && !found;
             t = strtok_r(NULL, " \t,|", &save))
            found = strlen(t) == n && strncmp(t, w, n) == 0;
        if (!found)
            return false;
        w += n + (w[n] == '@');
    }
    return true;
}

bool docs_quotes(double a, double ua, double b, double ub) {
    if (fabs(ua - ub) <= 1e-9 * ua)
        return fabs(a - b) < 0.5 * ua; /* the same digits: equal, not a unit apart */
    /* both are rounded: the true value lies within half a unit of each */
    return fabs(a - b) <= 0.5 * (ua + ub) * (1 + 1e-9);
}

/* Does a line of out[start, end) with the word `word` (any line if NULL)
 * show a number that rounds to num at num's digits? Commands do not
 * count. */
static bool block_has(char **out, size_t start, size_t end, const char *num, const char *word) {
    double a, ua, b, ub;
    char tail[16];
    if (!docs_as_number(num, &a, &ua, tail))
        return false;
    for (size_t i = start; i < end; i++) {
        if (strncmp(out[i], "$ ", 2) == 0 || (word && !has_words(out[i], word)))
            continue;
        char buf[4096], *save;
        snprintf(buf, sizeof buf, "%s", out[i]);
        for (char *t = strtok_r(buf, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
            t += strspn(t, "([|");
            if (docs_as_number(t, &b, &ub, tail) && docs_quotes(a, ua, b, ub))
                return true;
        }
    }
    return false;
}

/* Checks one "<!-- from REF#NAME: NUM[@WORD] ... -->" at line i of a page;
 * returns the number of failures, each printed. */
static size_t check_marker(size_t page, size_t i) {
    char **l = page_lines[page];
    const char *m = l[i] + strspn(l[i], " ") + strlen("<!-- from ");
    const char *hash = strchr(m, '#'), *colon = hash ? strchr(hash, ':') : NULL;
    size_t len = strlen(m);
    if (!hash || !colon || len < 4 || strcmp(m + len - 4, " -->") != 0) {
        fprintf(stderr, "%s:%zu: write the marker as <!-- from PAGE#BLOCK: NUMBER ... -->\n",
                docs_pages[page], i + 1);
        return 1;
    }
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(colon - hash - 1), hash + 1);
    long src = page_named(page, m, (size_t)(hash - m));
    size_t start = 0, end = 0;
    const char *why = src < 0 ? "names no page in README.md or docs/"
                              : find_block((size_t)src, name, &start, &end);
    if (why) {
        fprintf(stderr, "%s:%zu: block '%.*s' %s\n", docs_pages[page], i + 1, (int)(colon - m), m,
                why);
        return 1;
    }
    /* the paragraph: the lines above, up to a blank line or a fence */
    size_t top = i;
    while (top > 0 && l[top - 1][0] != '\0' && strncmp(l[top - 1], "```", 3) != 0)
        top--;
    char list[4096], *save;
    snprintf(list, sizeof list, "%.*s", (int)(len - 4 - (size_t)(colon + 1 - m)), colon + 1);
    size_t bad = 0, count = 0;
    for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save), count++) {
        char *at = strchr(t, '@');
        if (at)
            *at++ = '\0';
        bool in_prose = false;
        for (size_t k = top; k < i && !in_prose; k++)
            in_prose = strncmp(l[k] + strspn(l[k], " "), "<!--", 4) != 0 && docs_prose_has(l[k], t);
        if (!in_prose) {
            fprintf(stderr, "%s:%zu: %s is not in the paragraph above the marker\n",
                    docs_pages[page], i + 1, t);
            bad++;
        } else if (!block_has(page_lines[src], start, end, t, at)) {
            fprintf(stderr, "%s:%zu: %s is not what block '%s' of %s shows%s%s%s\n",
                    docs_pages[page], i + 1, t, name, docs_pages[src],
                    at ? " on a line with '" : "", at ? at : "", at ? "'" : "");
            bad++;
        }
    }
    if (count == 0) {
        fprintf(stderr, "%s:%zu: the marker lists no numbers\n", docs_pages[page], i + 1);
        bad++;
    }
    return bad;
}

START_TEST(prose_numbers_match_their_blocks) {
    load_pages();
    size_t bad = 0, checked = 0;
    for (size_t p = 0; p < docs_n_pages; p++) {
        char **l = page_lines[p];
        for (size_t i = 0; i < page_n[p]; i++) {
            /* a marker may be indented under a list item; four spaces
             * or more make a code block, which shows one */
            size_t indent = strspn(l[i], " ");
            if (indent > 3)
                continue;
            const char *t = l[i] + indent;
            if (strncmp(t, "<!-- from ", 10) == 0) {
                bad += check_marker(p, i);
                checked++;
            } else if (strncmp(l[i], "<!-- block: ", 12) == 0) {
                /* a name is unique on its page and names a console block */
                for (size_t j = i + 1; j < page_n[p]; j++)
                    if (strcmp(l[i], l[j]) == 0) {
                        fprintf(stderr, "%s:%zu: %s is used again at line %zu\n",
                                docs_pages[p], i + 1, l[i], j + 1);
                        bad++;
                    }
                if (i + 1 == page_n[p] || strcmp(l[i + 1], "```console") != 0) {
                    fprintf(stderr, "%s:%zu: a block name must stand just before a ```console "
                            "fence\n", docs_pages[p], i + 1);
                    bad++;
                }
            } else if (strncmp(t, "<!-- from", 9) == 0 || strncmp(t, "<!-- block", 10) == 0) {
                fprintf(stderr, "%s:%zu: malformed marker '%s'\n", docs_pages[p], i + 1, l[i]);
                bad++;
            }
        }
    }
    ck_assert_msg(bad == 0, "%zu prose numbers or markers are wrong (listed above); after "
                  "scripts/docs_regen.py, fix the prose the diff changed", bad);
    ck_assert_msg(checked > 0, "no page has a <!-- from ... --> marker");
}
END_TEST

/* A prose number at the block's digits must be the block's number: the
 * old rule, within half a unit of each, let one unit through (0.356
 * quoted as 0.357 passed). At fewer digits it rounds from the block's. */
START_TEST(a_number_at_the_blocks_digits_is_the_blocks_number) {
    static const struct {
        const char *prose, *block;
        bool quotes;
    } cases[] = {
        {"0.356", "0.356", true},   {"0.357", "0.356", false}, {"0.355", "0.356", false},
        {"0.36", "0.356", true},    {"0.35", "0.356", false},  {"0.99", "0.9945", true},
        {"3.6e-7", "3.58e-07", true}, {"3.7e-7", "3.58e-07", false},
        {"3.58e-7", "3.58e-07", true}, {"3.59e-7", "3.58e-07", false},
        {"12", "12", true},         {"13", "12", false},       {"0.0012", "1.2e-3", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double a, ua, b, ub;
        char tail[16];
        ck_assert(docs_as_number(cases[i].prose, &a, &ua, tail));
        ck_assert(docs_as_number(cases[i].block, &b, &ub, tail));
        ck_assert_msg(docs_quotes(a, ua, b, ub) == cases[i].quotes, "%s quoting %s: %s",
                      cases[i].prose, cases[i].block, cases[i].quotes ? "refused" : "passed");
    }
    /* scripts/docs_regen.py --check holds the same rule: a copy of the
     * pages passes, and fails once 0.356 is quoted as 0.357 */
    char *dir = scratch();
    expect_sh(dir, "mkdir scripts docs && cp $TOP/scripts/docs_regen.py scripts/ && cp "
              "$TOP/README.md . && cp $TOP/docs/*.md docs/ && python3 scripts/docs_regen.py "
              "--check > out", 0, NULL);
    expect_sh(dir, "sed -i 's/\\[0\\.620, 0\\.356, 1\\.125\\], and out of/[0.620, 0.357, "
              "1.125], and out of/; s/0\\.356@Rohan/0.357@Rohan/' docs/01-order-blind.md && "
              "grep -c '0\\.357' docs/01-order-blind.md | grep -qx 2", 0, NULL);
    expect_sh(dir, "python3 scripts/docs_regen.py --check > out; test $? -eq 1 && grep -q "
              "'01-order-blind.md:[0-9]*: 0.357 on a line with Rohan is not in' out", 0, NULL);
    remove_dir(dir);
}
END_TEST

START_TEST(trainings_are_counted_from_their_commands) {
    ck_assert_uint_eq(docs_trainings_of("build/train --task agent --out work/a.bin"), 1);
    ck_assert_uint_eq(docs_trainings_of("build/train --resume work/a.bin --steps 3000"), 0);
    ck_assert_uint_eq(docs_trainings_of("build/compare_pe --task agent --out work/agent.csv "
                                        "--quiet | cut -d'|' -f2-7"), 3 * pe_count());
    ck_assert_uint_eq(docs_trainings_of("build/compare_pe --schemes sinusoidal,learned --seeds "
                                        "5"), 10);
    ck_assert_uint_eq(docs_trainings_of("for pe in a b c; do for seed in 42 43; do build/train "
                                        "--pe $pe --quiet | grep -e '^test' -e ';' | sed "
                                        "\"s/;/ /\"; done; done; build/train --task reverse"), 7);
    ck_assert_uint_eq(docs_trainings_of("for f in x y; do build/evaluate --model $f; done"), 0);
    ck_assert_uint_eq(docs_trainings_of("done; build/train"), DOCS_NO_COUNT);
    /* the markers, as written and as not */
    DocsCount m;
    ck_assert_int_eq(docs_count_marker("<!-- runs: 51 = build/compare_pe -->", &m),
                     DOCS_COUNT_RUNS);
    ck_assert_str_eq(m.num, "51");
    ck_assert_str_eq(m.cmd, "build/compare_pe");
    ck_assert_uint_eq(docs_count_want(&m), 3 * pe_count());
    ck_assert_int_eq(docs_count_marker("    <!-- schemes: 17 -->", &m), DOCS_COUNT_SCHEMES);
    ck_assert_uint_eq(docs_count_want(&m), pe_count());
    ck_assert_int_eq(docs_count_marker("<!-- runs: 51 build/compare_pe -->", &m),
                     DOCS_COUNT_BAD);
    ck_assert_int_eq(docs_count_marker("<!-- schemes: many -->", &m), DOCS_COUNT_BAD);
    ck_assert_int_eq(docs_count_marker("the runs: 51", &m), DOCS_COUNT_NONE);
}
END_TEST

/* The counts of trainings and of schemes the prose states
 * (tests/docs_count.h: a page's first lines, <!-- runs: N = COMMAND --> and
 * <!-- schemes: N --> after a paragraph), each against what the commands
 * and the registry give. `make fixtures` writes them so (tests/regen/):
 * a scheme added or a command changed is one command away from true
 * counts. */
START_TEST(prose_counts_of_trainings_match_the_commands) {
    load_pages();
    size_t bad = 0, headers = 0, markers = 0, schemes = 0;
    for (size_t p = 0; p < docs_n_pages; p++) {
        char **l = page_lines[p];
        long claimed = -1;
        for (size_t i = 0; i < page_n[p] && i < 5 && claimed < 0; i++)
            claimed = docs_models_claimed(l[i]);
        for (size_t i = 0; i < page_n[p]; i++) {
            DocsCount m;
            DocsCountKind kind = docs_count_marker(l[i], &m);
            if (kind == DOCS_COUNT_NONE)
                continue;
            if (kind == DOCS_COUNT_BAD) {
                fprintf(stderr, "%s:%zu: write the marker as <!-- runs: N = COMMAND --> or "
                        "<!-- schemes: N -->\n", docs_pages[p], i + 1);
                bad++;
                continue;
            }
            markers += kind == DOCS_COUNT_RUNS;
            schemes += kind == DOCS_COUNT_SCHEMES;
            bool in_prose = docs_paragraph_has(l, docs_paragraph_top(l, i), i, m.num);
            size_t want = docs_count_want(&m);
            ck_assert_msg(want != DOCS_NO_COUNT, "%s:%zu: '%s' cannot be counted (loops "
                          "nested too deep, or a 'done' without its loop)", docs_pages[p], i + 1,
                          m.cmd);
            if (!in_prose || (size_t)strtoul(m.num, NULL, 10) != want) {
                if (kind == DOCS_COUNT_RUNS)
                    fprintf(stderr, "%s:%zu: '%s' trains %zu models; the paragraph above says "
                            "%s%s\n", docs_pages[p], i + 1, m.cmd, want, m.num,
                            in_prose ? "" : " nowhere");
                else
                    fprintf(stderr, "%s:%zu: the registry has %zu schemes; the paragraph above "
                            "says %s%s\n", docs_pages[p], i + 1, want, m.num,
                            in_prose ? "" : " nowhere");
                bad++;
            }
        }
        if (claimed < 0)
            continue;
        headers++;
        size_t counted = docs_page_trainings(l, page_n[p]);
        ck_assert_msg(counted != DOCS_NO_COUNT, "%s: a command cannot be counted",
                      docs_pages[p]);
        if ((size_t)claimed != counted) {
            fprintf(stderr, "%s: its commands train %zu small models; its first lines say %ld\n",
                    docs_pages[p], counted, claimed);
            bad++;
        }
    }
    ck_assert_msg(bad == 0, "%zu counts of trainings or schemes in prose are wrong (listed "
                  "above); `make fixtures` writes them from the commands and the registry", bad);
    ck_assert_msg(headers > 0 && markers > 0 && schemes > 0, "no page states a count of "
                  "trainings or of schemes: is the check reading them?");
}
END_TEST

/* The other kind of block (docs/index.md, "Conventions the pages share"):
 * a ```text block that shows a command, a line "$ ...", is output pasted
 * from one run, which this test does not rerun. The line just before its
 * fence marks it, <!-- illustration: WHY -->, so that no output goes
 * untested without a reason the page gives. */
START_TEST(pasted_output_is_marked_as_an_illustration) {
    load_pages();
    size_t bad = 0, marked = 0;
    for (size_t p = 0; p < docs_n_pages; p++) {
        char **l = page_lines[p];
        for (size_t i = 0; i < page_n[p]; i++) {
            if (strcmp(l[i], "```text") != 0)
                continue;
            bool command = false, mark = i > 0 && strncmp(l[i - 1], "<!-- illustration: ", 19) == 0;
            size_t end = i + 1;
            for (; end < page_n[p] && strncmp(l[end], "```", 3) != 0; end++)
                command = command || strncmp(l[end], "$ ", 2) == 0;
            if (command && !mark) {
                fprintf(stderr, "%s:%zu: this ```text block shows a command and its output, "
                        "which the docs test does not run: make it a ```console block, or mark "
                        "it <!-- illustration: WHY --> on the line before the fence and say so "
                        "on the page\n", docs_pages[p], i + 1);
                bad++;
            }
            marked += command && mark;
            i = end;
        }
    }
    ck_assert_msg(bad == 0, "%zu blocks of pasted output are not marked (listed above)", bad);
    ck_assert_msg(marked > 0, "no page has a marked illustration: is the check reading them?");
}
END_TEST

/* Does a command of a page write outside the reader's folder, or throw
 * its messages away? Why, or NULL. Quoted programs (awk's "$1 > 16")
 * are skipped; what follows --out, --log, --npy, --plot, > and tee must
 * be in work/ (or /dev/null). */
static const char *leaves_the_reader(const char *cmd) {
    if (strstr(cmd, "/tmp/"))
        return "names /tmp/, which every user of the machine shares";
    if (strstr(cmd, "2>/dev/null") || strstr(cmd, "/dev/null 2>&1") || strstr(cmd, "2>&-"))
        return "throws its errors away (--quiet drops the progress only)";
    char buf[4096];
    size_t n = 0;
    for (const char *p = cmd; *p && n + 1 < sizeof buf; p++) {
        if (*p == '\'') { /* a quoted program: its '>' compares */
            const char *q = strchr(p + 1, '\'');
            if (!q)
                break;
            p = q;
            continue;
        }
        buf[n++] = *p;
    }
    buf[n] = '\0';
    static const char *const WRITES[] = {"--out", "--log", "--npy", "--plot", ">", ">>", "tee"};
    char *save;
    bool writes = false;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (writes && strncmp(w, "work/", 5) != 0 && strncmp(w, "/dev/null", 9) != 0)
            return "writes a file outside work/";
        writes = false;
        for (size_t k = 0; k < sizeof WRITES / sizeof *WRITES; k++)
            writes = writes || strcmp(w, WRITES[k]) == 0;
    }
    return NULL;
}

START_TEST(commands_keep_messages_and_files_to_the_reader) {
    docs_find_pages();
    size_t bad = 0, seen = 0;
    for (size_t p = 0; p < docs_n_pages; p++) {
        FILE *f = fopen(docs_pages[p], "r");
        ck_assert_msg(f != NULL, "cannot open %s", docs_pages[p]);
        char *text = docs_read_all(f), **l;
        fclose(f);
        size_t n = docs_split_lines(text, &l);
        bool in_block = false;
        for (size_t i = 0; i < n; i++) {
            if (strncmp(l[i], "```", 3) == 0) {
                in_block = !in_block && (strcmp(l[i], "```console") == 0 ||
                                         strcmp(l[i], "```text") == 0);
                continue;
            }
            if (!in_block || strncmp(l[i], "$ ", 2) != 0)
                continue;
            seen++;
            const char *why = leaves_the_reader(l[i] + 2);
            if (why) {
                fprintf(stderr, "%s:%zu: '%s' %s\n", docs_pages[p], i + 1, l[i] + 2, why);
                bad++;
            }
        }
        free(l);
        free(text);
    }
    ck_assert_msg(bad == 0, "%zu commands of the pages leave the reader's folder or hide their "
                  "errors (listed above; docs/index.md, \"Your working folder\")", bad);
    ck_assert_msg(seen > 100, "only %zu commands found: is the check reading the pages?", seen);
}
END_TEST


TCase *tcase_docs_read(void) {
    TCase *prose = tcase_create("prose");
    tcase_add_test(prose, commands_keep_messages_and_files_to_the_reader);
    tcase_add_test(prose, prose_numbers_match_their_blocks);
    tcase_add_test(prose, a_number_at_the_blocks_digits_is_the_blocks_number);
    tcase_add_test(prose, pasted_output_is_marked_as_an_illustration);
    tcase_add_test(prose, trainings_are_counted_from_their_commands);
    tcase_add_test(prose, prose_counts_of_trainings_match_the_commands);
    return prose;
}
