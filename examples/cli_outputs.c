/* The files a program writes (cli.h): each checked apart from its inputs
 * and the other outputs, and locked for the rest of the process so that a
 * second run on it is refused at its start (src/run/outputs.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* The outputs this process holds (train's two, make_data's folder, ...) */
static OutputLock held[4];
static size_t n_held;

static void release_locks(void) {
    while (n_held)
        output_unlock(&held[--n_held]);
}

/* The next free lock, or NULL with e set. */
static OutputLock *next_held(Err *e) {
    if (n_held == sizeof held / sizeof *held) {
        err_set(e, ERR_RUNTIME, "more than %zu outputs to lock", n_held);
        return NULL;
    }
    if (n_held == 0)
        atexit(release_locks);
    return &held[n_held];
}

int cli_hold_output(const char *path, const char *opt, bool sidecar, Err *e) {
    OutputLock *l = next_held(e);
    int rc = l ? output_lock(l, path, opt, sidecar, e) : ERR_RUNTIME;
    n_held += rc == 0;
    return rc;
}

int cli_hold_folder(const char *dir, const char *name, const char *opt, Err *e) {
    OutputLock *l = next_held(e);
    int rc = l ? output_lock_folder(l, dir, name, opt, e) : ERR_RUNTIME;
    n_held += rc == 0;
    return rc;
}

void cli_check_files(const Cli *cli, const FileArg *files, size_t n) {
    Err e;
    if (outputs_distinct(files, n, &e))
        cli_error(cli, &e);
}

int cli_train_outputs(const TrainMeta *mt, const char *out, const char *log,
                      const char *resume, const char *init, Err *e) {
    /* a run goes on in the checkpoint it resumes; the model it starts
     * from (--init) is another run's, and stays as it is */
    char lock[4096 + 8] = "";
    if (out)
        snprintf(lock, sizeof lock, "%s.lock", out);
    const FileArg files[] = {
        {out, "--out", FILE_OUTPUT, "--resume"},
        {lock, "--out's lock file", FILE_OUTPUT, NULL},
        {log, "--log", FILE_OUTPUT, NULL},
        {mt->data, "--data", FILE_INPUT, NULL},
        {mt->valid, "--valid", FILE_INPUT, NULL},
        {resume, "--resume", FILE_INPUT, NULL},
        {init, "--init", FILE_INPUT, NULL},
    };
    int rc = 0;
    if (out)
        rc = output_check(out, "--out", true, e);
    if (!rc && log)
        rc = output_check(log, "--log", false, e);
    if (!rc)
        rc = outputs_distinct(files, sizeof files / sizeof *files, e);
    if (!rc && out)
        rc = cli_hold_output(out, "--out", true, e);
    if (!rc && log)
        rc = cli_hold_output(log, "--log", false, e);
    return rc;
}
