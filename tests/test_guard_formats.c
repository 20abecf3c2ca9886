/* Edge cases round four (issue 36): see test_guards.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"

/* Debian's interpreter, which scripts/deps.sh installs, rather than a
 * pyenv or virtualenv python3 that happens to come first on PATH; the one
 * on PATH where Debian's is missing. */
static const char *python(void) {
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* tests/reference/read_formats.py on files (quoted by the caller): its exit
 * status, and what it printed on stdout and stderr (free it). */
static int read_formats(const char *files, char **out) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "%s tests/reference/read_formats.py %s 2>&1", python(), files);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    *out = slurp_stream(p);
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* What of the reader's output fits in an assertion's message (cap bytes):
 * its BAD lines, or without any, its last cap - 1 bytes (a traceback's
 * end). Check refuses a message past 4 KiB (CK_MAX_MSG_SIZE): the
 * reader's whole output for some 30 files is past it, and such a failure
 * showed as "Early exit with return value 2", with no message at all. So
 * the whole output goes to stdout (the test's log) and the message keeps
 * the part that says what is wrong. */
static const char *verdict(const char *out, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (const char *l = out; *l;) {
        size_t n = strcspn(l, "\n");
        const char *bad = strstr(l, "BAD");
        if (bad && bad < l + n && len + n + 2 <= cap)
            len += (size_t)snprintf(buf + len, cap - len, "%.*s\n", (int)n, l);
        l += n + (l[n] == '\n');
    }
    size_t all = strlen(out);
    return len ? buf : all < cap ? out : out + all - (cap - 1);
}

/* The whole output of the reader, to the test's log, before a check of it
 * that fails. */
static void show(const char *out, bool failing) {
    if (failing) {
        printf("read_formats.py printed:\n%s", out);
        fflush(stdout);
    }
}

/* A copy of src at dst with byte `at` changed (at clamped into the file). */
static void flipped_copy(const char *src, const char *dst, size_t at) {
    FILE *f = fopen(src, "rb");
    ck_assert_ptr_nonnull(f);
    static unsigned char b[1 << 22];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    ck_assert(n > 0 && n < sizeof b);
    b[at < n ? at : n / 2] ^= 0x01;
    f = fopen(dst, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert(fwrite(b, 1, n, f) == n);
    ck_assert_int_eq(fclose(f), 0);
}

/* Issue 36, item 11: docs/formats.md said only "FNV-1a (64-bit)", whose
 * standard offset basis is not the one the code starts from, so a reader
 * written from the page refused every checkpoint and cell file; nor did
 * it name xl's, kerple's and fire's tables. read_formats.py is written from
 * the page alone: it walks a checkpoint field by field, works out the
 * parameter count from the page's table, and checks both checksums. Every
 * scheme of the registry is trained, at its options' defaults and with
 * each option it reads at its example, so a scheme or an option whose
 * table the page does not describe fails here. */
START_TEST(files_verify_with_a_reader_written_from_the_docs) {
    char *dir = scratch(), files[12288] = "", args[2048], path[1024];
    size_t len = 0;
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *s = pe_at(i);
        bool reads_any = false;
        for (size_t o = 0; o < pe_option_count(); o++)
            reads_any |= pe_reads(s, COMBINE_CONCAT, pe_option_at(o));
        for (int examples = 0; examples <= reads_any; examples++) {
            int at = snprintf(args, sizeof args, "--task agent --steps 1 --d-model 16 --heads 2 "
                              "--layers 2 --d-ff 8 --pe %s", s->name);
            bool layer_draws = false; /* an option read only at ruoss's draws */
            for (size_t o = 0; examples && o < pe_option_count(); o++)
                if (pe_reads(s, COMBINE_CONCAT, pe_option_at(o))) {
                    at += snprintf(args + at, sizeof args - (size_t)at, " %s %s",
                                   pe_option_at(o)->flag, pe_option_at(o)->example);
                    layer_draws |= pe_option_at(o)->layer_draws;
                }
            if (layer_draws)
                at += snprintf(args + at, sizeof args - (size_t)at,
                               " --random-positions 64 --random-draw ruoss");
            snprintf(path, sizeof path, "%s/%s%s.bin", dir, s->name, examples ? "-examples" : "");
            snprintf(args + at, sizeof args - (size_t)at, " --out %s", path);
            Run r = run_words("train", args); /* a start each, no shell */
            ck_assert_msg(r.status == 0, "train %s: exit %d: %s", args, r.status, r.err);
            run_free(&r);
            len += (size_t)snprintf(files + len, sizeof files - len, " '%s'", path);
            ck_assert(len < sizeof files);
        }
    }
    /* the model options (version 7): without the output projection's bias,
     * alone and with the reference's draws; and version 6's fixture */
    static const char *const model_opts[] = {"--no-out-bias",
                                             "--first-draws reference --no-out-bias --pe xl"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/model-options-%zu.bin", dir, k);
        snprintf(args, sizeof args, "--task agent --steps 1 --d-model 16 --heads 2 --layers 2 "
                 "--d-ff 8 %s --out %s", model_opts[k], path);
        Run r = run_words("train", args);
        ck_assert_msg(r.status == 0, "train %s: exit %d: %s", args, r.status, r.err);
        run_free(&r);
        len += (size_t)snprintf(files + len, sizeof files - len, " '%s'", path);
    }
    len += (size_t)snprintf(files + len, sizeof files - len,
                            " tests/reference/checkpoints/v6.bin");
    ck_assert(len < sizeof files);
    /* a cell of the quick grid with numbers per length: a length run */
    Run list = run("experiments", "--list --quick");
    ck_assert_int_eq(list.status, 0);
    const char *id = strstr(list.out, "\nlengths-");
    ck_assert_msg(id != NULL, "the quick grid lists no lengths cell: %s", list.out);
    id++;
    char cell[256];
    snprintf(cell, sizeof cell, "%.*s", (int)strcspn(id, "\n"), id);
    run_free(&list);
    snprintf(args, sizeof args, "--quick --cell %s --cells -", cell);
    Run r = run("experiments", args);
    ck_assert_msg(r.status == 0, "experiments %s: exit %d: %s", args, r.status, r.err);
    snprintf(path, sizeof path, "%s/%s.cell", dir, cell);
    write_text(path, r.out);
    run_free(&r);
    len += (size_t)snprintf(files + len, sizeof files - len, " '%s'", path);
    ck_assert(len < sizeof files);

    char *out, part[3072];
    int st = read_formats(files, &out);
    ck_assert_msg(st != 127, "no %s to run the reader with: run scripts/deps.sh, which "
                  "installs Debian's python3\n%s", python(), verdict(out, part, sizeof part));
    bool ok = st == 0 && !strstr(out, "BAD");
    show(out, !ok);
    ck_assert_msg(ok, "read_formats.py (exit %d) refuses files the programs wrote: "
                  "docs/formats.md does not describe them as they are (its whole output is in "
                  "the test's log, before this)\n%s", st, verdict(out, part, sizeof part));
    show(out, !strstr(out, "first-draws reference, out-bias false"));
    ck_assert_msg(strstr(out, "first-draws reference, out-bias false") != NULL, "no model "
                  "options read: %s", verdict(out, part, sizeof part));
    show(out, !strstr(out, ".cell: ok, cell record"));
    ck_assert_msg(strstr(out, ".cell: ok, cell record") != NULL, "no cell record read: %s",
                  verdict(out, part, sizeof part));
    free(out);

    /* and it is a check: one byte changed in each is refused, by the checksum */
    char model[64], record[300], bad[512];
    snprintf(model, sizeof model, "%s.bin", pe_at(0)->name);
    snprintf(record, sizeof record, "%s.cell", cell);
    const char *kinds[] = {model, record};
    for (size_t k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, kinds[k]);
        snprintf(bad, sizeof bad, "%s/flipped-%s", dir, kinds[k]);
        /* in a checkpoint a byte in its middle, in a cell a letter of its
         * id: fields the reader takes as they come, which the checksum
         * alone vouches for */
        flipped_copy(path, bad, k ? strlen("posenc cell 4\nid ") : (size_t)-1);
        snprintf(args, sizeof args, "'%s'", bad);
        st = read_formats(args, &out);
        ck_assert_msg(st == 1 && strstr(out, "BAD: checksum") != NULL, "a changed byte in %s: "
                      "exit %d, %s", kinds[k], st, verdict(out, part, sizeof part));
        free(out);
    }
    remove_dir(dir);
}
END_TEST

TCase *tcase_guard_formats(void) {
    TCase *tc = tcase_create("formats");
    /* some 25 trainings of a step each: seconds alone, more beside other
     * work or under the sanitizers */
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, files_verify_with_a_reader_written_from_the_docs);
    return tc;
}
