#define _XOPEN_SOURCE 700 /* realpath */
#include "export.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/fileio.h"
#include "npy.h"
#include "../pe/pe_sinusoidal.h"
#include "../pe/pe_rope.h"
#include "../pe/pe_t5.h"

static const char *const TOP_FILES[] = {"input_ids.npy", "input.npy", "output.npy", "pooled.npy",
                                        "vocab.txt", "config.json", "params",
                                        "rope_inv_freq.npy"};

static bool is_export_name(const char *n) {
    for (size_t i = 0; i < sizeof TOP_FILES / sizeof *TOP_FILES; i++)
        if (strcmp(n, TOP_FILES[i]) == 0)
            return true;
    return false;
}

/* Removes dir, its files and the files of its subdirectories (an export
 * is two levels deep); a best effort on a path this module made. */
static void remove_tree(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (d) {
        char path[4096];
        for (struct dirent *ent; (ent = readdir(d));) {
            if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
            struct stat st;
            if (depth > 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(path, depth - 1);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

int export_target(const char *dir, char *target, size_t cap, Err *e) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--; /* "out/" and "out" are one directory; the temporary goes beside it */
    if (n == 0 || n + 32 > cap)
        return err_set(e, ERR_INPUT, "--npy wants a directory name, not '%s'", dir);
    snprintf(target, cap, "%.*s", (int)n, dir);
    bool exists;
    struct stat st;
    int rc = path_folder(target, "--npy", &exists, e);
    if (rc || !exists || lstat(target, &st) != 0 || !S_ISLNK(st.st_mode))
        return rc;
    /* a link to a folder: the folder is replaced, beside itself, and the
     * link keeps pointing at it */
    char *real = realpath(target, NULL);
    if (!real)
        rc = err_set(e, ERR_INPUT, "cannot follow --npy %s to its folder: %s", target,
                     strerror(errno));
    else if (strlen(real) + 32 > cap)
        rc = err_set(e, ERR_INPUT, "--npy %s leads to too long a path, %s", target, real);
    else
        snprintf(target, cap, "%s", real);
    free(real);
    return rc;
}

/* An existing dir (a target, links followed) may be replaced only if it is
 * empty or holds nothing but an export's names (config.json among them). */
static int check_target(const char *dir, bool *exists, Err *e) {
    struct stat st;
    *exists = lstat(dir, &st) == 0;
    if (!*exists)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return err_set(e, ERR_INPUT, "cannot read the directory %s: %s", dir, strerror(errno));
    bool config = false, empty = true;
    char stranger[256] = "";
    for (struct dirent *ent; (ent = readdir(d));) {
        const char *n = ent->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        empty = false;
        config |= strcmp(n, "config.json") == 0;
        if (!is_export_name(n) && !stranger[0])
            snprintf(stranger, sizeof stranger, "%s", n);
    }
    closedir(d);
    if (!empty && (stranger[0] || !config))
        return err_set(e, ERR_INPUT, "--npy %s is not an earlier export of encode (it holds %s); "
                       "give a new or empty directory, so that nothing of yours is replaced",
                       dir, stranger[0] ? stranger : "no config.json");
    return 0;
}

/* The value of the option of key in pc, given or its default (0 for a
 * key no scheme has), and whether the model's scheme reads it. */
static double option(const PeConfig *pc, const char *key) {
    const PeOption *o = pe_option_find(key);
    return o ? pe_get(pc, o) : 0.0;
}

static bool reads(const Model *m, const char *key) {
    const PeOption *o = pe_option_find(key);
    return o && pe_reads(m->pe.scheme, m->pe.combine, o);
}

static int write_config(const char *path, const Model *m, Err *e) {
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set(e, ERR_RUNTIME, "cannot write %s: %s", path, strerror(errno));
    const Config *c = &m->cfg;
    const PeConfig *pc = &c->pe;
    int ok = fprintf(f, "{\n  \"vocab_size\": %zu,\n  \"d_model\": %zu,\n  \"nhead\": %zu,\n"
            "  \"num_layers\": %zu,\n  \"dim_feedforward\": %zu,\n  \"norm_first\": %s,\n"
            "  \"activation\": \"%s\",\n  \"layer_norm_eps\": 1e-05,\n  \"pe\": \"%s\",\n"
            "  \"pe_in_attention\": %s,\n  \"combine\": %s,\n  \"pe_width\": %zu,\n"
            "  \"embedding_width\": %zu,\n  \"pe_layout\": \"%s\",\n  \"pe_base\": %.17g,\n"
            "  \"t5_buckets\": %zu,\n  \"t5_max_distance\": %zu,\n  \"scale_embed\": %s,\n"
            "  \"n_classes\": %zu,\n  \"per_token\": %s,\n  \"causal\": %s,\n"
            "  \"dropout\": %.9g,\n  \"pool\": \"%s\",\n  \"out_proj_bias\": %s",
            c->vocab_size, c->d_model, c->n_heads, c->n_layers, c->d_ff,
            c->norm == NORM_PRE ? "true" : "false", c->act == ACT_GELU ? "gelu" : "relu",
            pc->name, pe_in_attention(m->pe.scheme) ? "true" : "false",
            /* null, as compare_pe's '-', where no code meets the embedding */
            m->pe.w == 0 ? "null" : m->pe.combine == COMBINE_CONCAT ? "\"concat\"" : "\"add\"",
            m->pe.w, m->pe.E,
            pe_layout(pc) == LAYOUT_SPLIT ? "split" : "interleaved", pe_base(pc),
            (size_t)option(pc, "buckets"), (size_t)option(pc, "max-distance"), c->scale_embed ? "true" : "false", c->n_classes,
            c->per_token ? "true" : "false", c->causal ? "true" : "false",
            (double)c->dropout, c->pool == POOL_CLS ? "cls" : "mean",
            c->no_out_bias ? "false" : "true") >= 0;
    /* Keys of the first versions, kept for their readers: rope's scaling
     * and the factor its cos and sin are multiplied by (Hugging Face's
     * attention_factor), shaw's clipping distance (its table holds 2k+1
     * key vectors, then 2k+1 value vectors), alibi's slopes. */
    if (ok && reads(m, "rope-scaling"))
        ok = fprintf(f, ",\n  \"rope_scaling\": \"%s\",\n  \"rope_factor\": %.17g,\n"
                     "  \"rope_original_len\": %zu,\n  \"rope_attention_factor\": %.17g",
                     rope_scaling_name(rope_scaling_of(pc)), rope_factor_of(pc),
                     (size_t)option(pc, "rope-original-len"), rope_inv_freq(pc, 0, NULL)) >= 0;
    if (ok && reads(m, "max-relative"))
        ok = fprintf(f, ",\n  \"shaw_max_relative\": %zu", (size_t)option(pc, "max-relative")) >=
             0;
    if (ok && reads(m, "alibi-slopes")) { /* the option's own text: every form by its name */
        char form[32];
        pe_option_text(pc, pe_option_find("alibi-slopes"), form, sizeof form);
        ok = fprintf(f, ",\n  \"alibi_slopes\": \"%s\"", form) >= 0;
    }
    /* every option given, as the checkpoint stores it: by name, as its
     * command-line text (the registry's), so that a reader needs no list */
    ok = ok && fprintf(f, ",\n  \"pe_options\": {") >= 0;
    for (size_t i = 0, k = 0; ok && i < pe_option_count(); i++) {
        const PeOption *o = pe_option_at(i);
        if (!pe_given(pc, o))
            continue;
        char text[64];
        pe_option_text(pc, o, text, sizeof text);
        ok = fprintf(f, "%s\"%s\": \"%s\"", k++ ? ", " : "", o->flag + 2, text) >= 0;
    }
    /* and the model's own, the same way (model.h) */
    ok = ok && fprintf(f, "},\n  \"model_options\": {") >= 0;
    for (size_t i = 0, k = 0; ok && i < MODEL_OPT_COUNT; i++) {
        if (!model_option_given(c, i))
            continue;
        char text[64];
        model_option_text(c, i, text, sizeof text);
        ok = fprintf(f, "%s\"%s\": \"%s\"", k++ ? ", " : "", model_option_name(i), text) >= 0;
    }
    ok = ok && fprintf(f, "}\n}\n") >= 0;
    if (fclose(f) != 0 || !ok)
        return err_set(e, ERR_RUNTIME, "writing %s failed: %s", path, strerror(errno));
    return 0;
}

/* rope's inverse frequencies theta_i as the model uses them, one per pair
 * of a head (float32, as Hugging Face's inv_freq), to hold against other
 * code's. */
static int write_inv_freq(const char *tmp, const Model *m, Err *e) {
    size_t half = m->pe.head_size / 2;
    double *theta = xmalloc(half * sizeof *theta, "rope's frequencies", e);
    float *f = xmalloc(half * sizeof *f, "rope's frequencies", e);
    int rc = theta && f ? 0 : ERR_RUNTIME;
    if (!rc) {
        rope_inv_freq(&m->cfg.pe, m->pe.head_size, theta);
        for (size_t i = 0; i < half; i++)
            f[i] = (float)theta[i];
        char path[8192];
        snprintf(path, sizeof path, "%s/rope_inv_freq.npy", tmp);
        rc = npy_write_f32(path, f, &half, 1, e);
    }
    free(theta);
    free(f);
    return rc;
}

/* Every file, into tmp. */
static int write_all(const char *tmp, const Model *m, const Vocab *v, const int *ids, size_t T,
                     const Acts *a, Err *e) {
    char path[8192];
    size_t C = m->cfg.d_model;
    snprintf(path, sizeof path, "%s/params", tmp);
    if (mkdir(path, 0777) != 0)
        return err_set(e, ERR_RUNTIME, "cannot create %s: %s", path, strerror(errno));
    int64_t *ids64 = xmalloc(T * sizeof *ids64, "the ids", e);
    if (!ids64)
        return ERR_RUNTIME;
    for (size_t t = 0; t < T; t++)
        ids64[t] = ids[t];
    size_t s_ids[2] = {1, T}, s_out[3] = {1, T, C}, s_pool[2] = {1, C};
    snprintf(path, sizeof path, "%s/input_ids.npy", tmp);
    int rc = npy_write_i64(path, ids64, s_ids, 2, e);
    free(ids64);
    snprintf(path, sizeof path, "%s/input.npy", tmp);
    rc = rc ? rc : npy_write_f32(path, a->x0, s_out, 3, e);
    snprintf(path, sizeof path, "%s/output.npy", tmp);
    rc = rc ? rc : npy_write_f32(path, a->hidden, s_out, 3, e);
    snprintf(path, sizeof path, "%s/pooled.npy", tmp);
    rc = rc ? rc : npy_write_f32(path, a->pooled, s_pool, 2, e);
    for (size_t i = 0; i < m->n_specs && !rc; i++) {
        const ParamSpec *s = &m->specs[i];
        /* vectors are 1-D in torch's state_dict */
        size_t shape[2] = {s->rows, s->cols};
        snprintf(path, sizeof path, "%s/params/%s.npy", tmp, s->name);
        rc = s->rows == 1 ? npy_write_f32(path, m->mem + s->offset, shape + 1, 1, e)
                          : npy_write_f32(path, m->mem + s->offset, shape, 2, e);
    }
    if (!rc && reads(m, "rope-scaling"))
        rc = write_inv_freq(tmp, m, e);
    snprintf(path, sizeof path, "%s/vocab.txt", tmp);
    rc = rc ? rc : vocab_save(v, path, e);
    snprintf(path, sizeof path, "%s/config.json", tmp);
    return rc ? rc : write_config(path, m, e);
}

int export_check(const char *dir, Err *e) {
    bool exists;
    char target[4096];
    return export_target(dir, target, sizeof target, e) || check_target(target, &exists, e)
               ? ERR_INPUT : 0;
}

int export_npy(const char *dir, const Model *m, const Vocab *v, const int *ids, size_t T,
               const Acts *a, Err *e) {
    char target[4096], tmp[4096 + 32], old[4096 + 32];
    bool exists;
    int rc = export_target(dir, target, sizeof target, e);
    if (rc || (rc = check_target(target, &exists, e)))
        return rc;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", target, (long)getpid());
    snprintf(old, sizeof old, "%s.%ld.old", target, (long)getpid());
    if (mkdir(tmp, 0777) != 0)
        return err_set(e, ERR_INPUT, "cannot create the directory %s: %s; check that the "
                       "parent of %s exists and is writable", tmp, strerror(errno), target);
    rc = write_all(tmp, m, v, ids, T, a, e);
    if (!rc && exists && rename(target, old) != 0)
        rc = err_set(e, ERR_RUNTIME, "cannot move the earlier export %s aside: %s", target,
                     strerror(errno));
    if (!rc && rename(tmp, target) != 0) {
        rc = err_set(e, ERR_RUNTIME, "cannot rename %s to %s: %s", tmp, target,
                     strerror(errno));
        if (exists)
            rename(old, target); /* put the earlier export back */
    }
    if (rc)
        remove_tree(tmp, 1);
    else if (exists)
        remove_tree(old, 1);
    return rc;
}
