/* Running the programs from the suites, as a user runs them. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <spawn.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/model/kernels.h"
#include "suites.h"

extern char **environ;

char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = slurp_stream(f);
    fclose(f);
    return buf;
}

char *slurp_stream(FILE *f) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    for (size_t got; (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
    }
    buf[n] = '\0';
    return buf;
}

Run run(const char *prog, const char *args) {
    const char *bin = getenv("POSENC_BIN");
    char out[] = "/tmp/posenc_outXXXXXX", err[] = "/tmp/posenc_errXXXXXX";
    int fo = mkstemp(out), fe = mkstemp(err);
    ck_assert(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/%s %s >%s 2>%s", bin ? bin : "build", prog, args, out, err);
    int st = system(cmd);
    Run r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1, .out = slurp(out), .err = slurp(err)};
    unlink(out);
    unlink(err);
    return r;
}

Run run_parse(const char *prog, const char *const *args) {
    const char *bin = getenv("POSENC_BIN");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", bin ? bin : "build", prog);
    char *argv[64];
    size_t n = 0;
    argv[n++] = path;
    for (; args[n - 1] && n < 63; n++)
        argv[n] = (char *)args[n - 1];
    ck_assert_msg(args[n - 1] == NULL, "run_parse: too many arguments");
    argv[n] = NULL;
    /* the environment, and the kernels the program would start itself
     * again for when this one runs Haswell's (kernels.h): the same
     * kernels, without a second start that would double a short run's
     * cost */
    size_t k = 0;
    while (environ[k])
        k++;
    char **envp = malloc((k + 2) * sizeof *envp);
    ck_assert_ptr_nonnull(envp);
    memcpy(envp, environ, k * sizeof *envp);
    if (!getenv("OPENBLAS_CORETYPE") && strcasecmp(kernels_name(), "Haswell") == 0)
        envp[k++] = "OPENBLAS_CORETYPE=Haswell";
    envp[k] = NULL;
    FILE *fo = tmpfile(), *fe = tmpfile();
    ck_assert(fo && fe);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fileno(fo), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fileno(fe), STDERR_FILENO);
    pid_t pid;
    int rc = posix_spawn(&pid, path, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    ck_assert_msg(rc == 0, "cannot start %s", path);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    rewind(fo);
    rewind(fe);
    Run r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1, .out = slurp_stream(fo),
             .err = slurp_stream(fe)};
    fclose(fo);
    fclose(fe);
    return r;
}

Run run_words(const char *prog, const char *args) {
    char *text = strdup(args), *words[63];
    ck_assert_ptr_nonnull(text);
    size_t n = 0;
    for (char *p = text, *to; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        ck_assert_msg(n < 62, "run_words: too many words in '%s'", args);
        words[n++] = to = p;
        for (bool quoted = false; *p && (quoted || *p != ' '); p++)
            if (*p == '\'')
                quoted = !quoted;
            else
                *to++ = *p;
        if (*p)
            p++;
        *to = '\0';
    }
    words[n] = NULL;
    Run r = run_parse(prog, (const char *const *)words);
    free(text);
    return r;
}

void run_free(Run *r) {
    free(r->out);
    free(r->err);
}

void expect_run(Run r, const char *prog, const char *args, int code, const char *want) {
    ck_assert_msg(r.status == code, "%s %s: exit %d, want %d; stderr: %s", prog, args, r.status,
                  code, r.err);
    ck_assert_msg(strstr(r.err, want) != NULL, "%s %s: stderr lacks '%s': %s", prog, args, want,
                  r.err);
    ck_assert_msg(r.out[0] == '\0', "%s %s printed on stdout: %s", prog, args, r.out);
    run_free(&r);
}

void expect_exit(const char *prog, const char *args, int code, const char *want) {
    expect_run(run(prog, args), prog, args, code, want);
}

size_t for_each_fuzz_input(const char *target,
                           void (*fn)(const unsigned char *bytes, size_t n, const char *path)) {
    const char *kinds[] = {"seeds", "regressions"};
    size_t files = 0;
    for (size_t k = 0; k < 2; k++) {
        char dirpath[256];
        snprintf(dirpath, sizeof dirpath, "tests/fuzz/%s/%s", kinds[k], target);
        DIR *dir = opendir(dirpath);
        if (!dir)
            continue;
        for (struct dirent *ent; (ent = readdir(dir));) {
            if (ent->d_name[0] == '.')
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirpath, ent->d_name);
            FILE *f = fopen(path, "rb");
            ck_assert_ptr_nonnull(f);
            static unsigned char buf[1 << 20];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            fn(buf, n, path);
            files++;
        }
        closedir(dir);
    }
    return files;
}

char *scratch(void) {
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/posenc_testXXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

void remove_dir(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

bool same_bytes(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    for (int ca = 0, cb = 0; same && ca != EOF; same = ca == cb)
        ca = fgetc(fa), cb = fgetc(fb);
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

char *temp_file(void) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/posenc_testXXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    return path;
}

bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

void expect_csv(const char *dir, const char *name, const char *header, size_t lines) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = slurp(path);
    ck_assert_msg(strncmp(text, header, strlen(header)) == 0, "%s begins: %.80s", path, text);
    size_t n = 0;
    for (char *p = text; *p; p++)
        n += *p == '\n';
    ck_assert_msg(n == lines, "%s has %zu lines, want %zu", path, n, lines);
    free(text);
}

/* Runs cmd through sh in dir (B is the programs' folder, made absolute;
 * NOBODY runs what follows as an unprivileged user when root, for whom
 * no folder is read-only); returns its exit status, stderr in *err. */
int sh_in(const char *dir, const char *cmd, char **err) {
    const char *bin = getenv("POSENC_BIN");
    char abs[4096], top[4096], errpath[512], full[16384];
    ck_assert_ptr_nonnull(realpath(bin ? bin : "build", abs));
    ck_assert_ptr_nonnull(getcwd(top, sizeof top));
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
    snprintf(full, sizeof full, "cd '%s' && B='%s' TOP='%s'; NOBODY=; [ \"$(id -u)\" -eq 0 ] && "
             "NOBODY='setpriv --reuid=65534 --regid=65534 --clear-groups'; { %s\n} 2>'%s'",
             dir, abs, top, cmd, errpath);
    int st = system(full);
    *err = slurp(errpath);
    unlink(errpath);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void expect_sh(const char *dir, const char *cmd, int code, const char *want) {
    char *err;
    int st = sh_in(dir, cmd, &err);
    ck_assert_msg(st == code, "%s: exit %d, want %d; stderr: %s", cmd, st, code, err);
    ck_assert_msg(!want || strstr(err, want), "%s: stderr lacks '%s': %s", cmd, want, err);
    free(err);
}

void refute_sh(const char *dir, const char *cmd, const char *unwanted) {
    char *err;
    sh_in(dir, cmd, &err);
    ck_assert_msg(!strstr(err, unwanted), "%s: stderr says '%s': %s", cmd, unwanted, err);
    free(err);
}

/* Every program: examples/NAME.c but the code they share, cli*.c, as the
 * Makefile finds them. */
size_t example_programs(char names[][32], size_t cap) {
    DIR *d = opendir("examples");
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    for (struct dirent *ent; (ent = readdir(d)) && n < cap;) {
        size_t k = strlen(ent->d_name);
        if (k > 2 && k < 34 && strcmp(ent->d_name + k - 2, ".c") == 0 &&
            strncmp(ent->d_name, "cli", 3) != 0)
            snprintf(names[n++], 32, "%.*s", (int)(k - 2), ent->d_name);
    }
    closedir(d);
    ck_assert_uint_ge(n, 10);
    return n;
}
