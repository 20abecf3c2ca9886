/* pe_report: the properties of each position scheme, as numbers.
 *
 * Measures the properties of docs/properties.md on each scheme's code
 * (src/pe/analysis.h)
 * and prints a Markdown table, or CSV; --worked-example prints the notes'
 * "River Bank" example with the values the notes got wrong. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/clock.h"
#include "../src/core/rng.h"
#include "../src/pe/analysis.h"
#include "../src/pe/analysis_rope.h"
#include "../src/pe/analysis_shift.h"
#include "../src/run/report.h"
#include "cli.h"
#include "../src/pe/pe_sinusoidal.h"
#include "../src/pe/pe_rope.h"
#include "../src/pe/pe_alibi.h"
#include "../src/pe/pe_t5.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: pe_report [options]\n"
    "       pe_report --worked-example\n"
    "       pe_report --options\n"
    "       pe_report --relative K [--d-model C] [--heads H] [--seed S] [--base B]\n"
    "                 [--layout L] [--buckets N] [--max-distance D]\n"
    "       pe_report --wavelengths [--d-model C] [--heads H] [--base B]\n"
    "                 [--rope-scaling S --rope-factor F] [--rope-original-len L]\n"
    "       pe_report --shift M,N,S [--d-model C] [--heads H] [--base B] [--layout L]\n"
    "\n"
    "Measures the properties of each positional-encoding scheme on its code\n"
    "alone (no model): uniqueness, boundedness, length consistency,\n"
    "determinism, extrapolation, translation invariance, symmetry, monotone\n"
    "radius, linear-shift residual, reflection, LayerNorm erasure and float32\n"
    "fidelity, then the notes' four ideal criteria as yes/no. docs/properties.md\n"
    "defines each one.\n"
    "\n"
    "Options:\n"
    "  --pe LIST|all         schemes, comma-separated (listed below; default all)\n"
    "  --d-model C           model width (default 64)\n"
    "  --heads H             heads: the schemes inside attention act per head\n"
    "                        (default 4)\n"
    "  --positions N         positions measured, 2..2048, with N^2 times --d-model\n"
    "                        at most 2^30 (default 256)\n"
    "  --far F               position where the float32 error is taken, 1024..10^9\n"
    "                        (default 1000000)\n"
    "  --seed S              seed of the untrained schemes' tables (default 42)\n"
    "  --csv                 one CSV row per scheme, with a fixed header\n"
    "  --quiet               no time estimate on stderr (given before a report of\n"
    "                        1024 positions or more): only errors\n"
    "  --relative K          what the schemes make of an offset of K: the sinusoid's\n"
    "                        dot product PE(p).PE(p+K), the same through a random\n"
    "                        matrix, rope's logit, at positions p = 0 to 200; ALiBi's\n"
    "                        slopes; T5's buckets\n"
    "  --wavelengths         rope's pairs in one head: the wavelength 2 pi / theta_i of\n"
    "                        each and the turns it makes over L positions\n"
    "                        (--rope-original-len, default 8), as trained and under\n"
    "                        --rope-scaling with --rope-factor S (over S L)\n"
    "  --shift M,N,S         a query at position M and a key at N, then both moved by\n"
    "                        S, in one head: the score q.k / sqrt(HS) of rope and of\n"
    "                        the sinusoid added to them, whole and pair by pair, and\n"
    "                        rope's long-term decay bound at the offset (the web\n"
    "                        page's section 4)\n"
    "  --options             which schemes read each scheme option (the table the\n"
    "                        programs refuse unread options by)\n"
    "  --worked-example      the notes' River Bank table (d_model 6) and their sin/cos\n"
    "                        values, each checked against the exact value\n"
    "  --help                show this help\n"
    "\n"
    "Scheme options (a scheme reads the options its line names; --options lists\n"
    "who reads each):\n", CLI_SCHEME_OPTIONS,
    "\n", CLI_SCHEMES,
    "\n"
    "Exit status: 0 on success, 2 for bad options, 1 on failure.\n",
    NULL};

/* positions^2 x channels a report may measure (see main) */
#define MAX_WORK 1073741824.0
#define CELL REPORT_CELL

/* --options: the scheme options and who reads them, from the registry. */
static void print_options(void) {
    printf("The options of a position code and the schemes that read them. demo_order,\n"
           "train, encode, compare_pe, pe_plot and pe_report take them; an option that\n"
           "no chosen scheme reads is refused, and in a list of schemes each scheme\n"
           "takes the ones it reads.\n\n");
    printf("| option | read by |\n| --- | --- |\n");
    for (size_t o = 0; o < pe_option_count(); o++) {
        printf("| %s |", pe_option_at(o)->flag);
        size_t k = 0;
        for (size_t i = 0; i < pe_count(); i++) {
            const PeScheme *sc = pe_at(i);
            if (pe_reads(sc, COMBINE_CONCAT, pe_option_at(o)))
                printf("%s %s", k++ ? "," : "", sc->name);
        }
        printf("%s |\n", pe_option_at(o) == &pe_opt_width ? " (under --combine concat)" : "");
    }
}

/* --relative K: what the sinusoid, a learned product of it, RoPE, ALiBi
 * and T5 make of an offset of K, at several positions. */
static void relative(const Cli *cli, const Config *cfg, size_t K) {
    static const size_t ps[] = {0, 10, 50, 100, 200};
    size_t d = cfg->d_model, N = 200 + K + 1;
    Err e;
    PeConfig rope;
    PePlan plan;
    pe_config_default(&rope, pe_tunable_scheme()->name);
    if (pe_given(&cfg->pe, &pe_opt_base))
        pe_put(&rope, &pe_opt_base, pe_base(&cfg->pe));
    if (pe_given(&cfg->pe, &pe_opt_layout))
        pe_put(&rope, &pe_opt_layout, pe_layout(&cfg->pe));
    float *P = cli_alloc(cli, N * d, sizeof *P, "the sinusoid");
    float *A = cli_alloc(cli, d * d, sizeof *A, "a random matrix");
    double *S = cli_alloc(cli, N * N, sizeof *S, "rope's logits");
    sinusoid_table(P, 0, N, d, pe_layout(&cfg->pe), pe_base(&cfg->pe));
    Rng r;
    rng_seed(&r, cfg->seed);
    for (size_t i = 0; i < d * d; i++)
        A[i] = rng_normal(&r) / sqrtf((float)d);
    if (pe_plan(&plan, &rope, d, cfg->n_heads, N, &e) ||
        attention_logits(S, &plan, &rope, cfg->seed, N, &e))
        cli_error(cli, &e);
    printf("What the schemes make of an offset of %zu (d_model %zu, %zu heads):\n\n", K, d,
           cfg->n_heads);
    printf("%6s  %16s  %20s  %16s\n", "p", "PE(p).PE(p+k)", "PE(p)^T A PE(p+k)",
           "rope S(p, p+k)");
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        const float *x = P + ps[i] * d, *y = P + (ps[i] + K) * d;
        double dot = 0.0, bil = 0.0;
        for (size_t a = 0; a < d; a++) {
            dot += (double)x[a] * y[a];
            for (size_t b = 0; b < d; b++)
                bil += (double)x[a] * A[a * d + b] * y[b];
        }
        printf("%6zu  %16.6f  %20.6f  %16.6f\n", ps[i], dot, bil, S[ps[i] * N + ps[i] + K]);
    }
    printf("\nk = %zu. A is a random %zu x %zu matrix (entries N(0, 1/%zu), seed %llu), standing\n"
           "in for a trained W_q^T W_k; rope's S is the logit of one fixed query and key\n"
           "turned to positions p and p+k (head size %zu).\n\n", K, d, d, d,
           (unsigned long long)cfg->seed, plan.head_size);
    printf("ALiBi's slopes m for %zu heads (the bias is -m|i-j|):", cfg->n_heads);
    for (size_t h = 0; h < cfg->n_heads; h++)
        printf(" %g", alibi_slope(h, cfg->n_heads));
    size_t buckets = (size_t)pe_get(&cfg->pe, pe_option_find("buckets"));
    size_t distance = (size_t)pe_get(&cfg->pe, pe_option_find("max-distance"));
    static const long offs[] = {-200, -128, -64, -16, -8, -7, -1, 0, 1, 7, 8, 16, 64, 128, 200};
    printf("\n\nT5's buckets (%zu buckets, max distance %zu) of the offset key - query:\n",
           buckets, distance);
    printf("  offset");
    for (size_t i = 0; i < sizeof offs / sizeof *offs; i++)
        printf(" %5ld", offs[i]);
    printf("\n  bucket");
    for (size_t i = 0; i < sizeof offs / sizeof *offs; i++)
        printf(" %5zu", t5_bucket(offs[i], buckets, distance));
    printf("\n");
    free(P), free(A), free(S);
}

/* --wavelengths: rope's pairs as trained and under the scaling of cfg.
 * Past L a pair whose turns over L are below 1 meets angles it never saw;
 * a scaling works when the turns over S L, scaled, stay within those. */
static void wavelengths(const Cli *cli, const Config *cfg) {
    size_t C = cfg->d_model, NH = cfg->n_heads;
    if (NH == 0 || C % NH || (C / NH) % 2 || C / NH < 4)
        cli_usage_error(cli, "--wavelengths shows the pairs of one head: --heads %zu must divide "
                        "--d-model %zu into heads of an even number of channels, 4 or more",
                        NH, C);
    const PeConfig *given = &cfg->pe;
    size_t HS = C / NH, half = HS / 2;
    size_t L = pe_given(given, &pe_opt_rope_original_len)
                   ? (size_t)pe_get(given, &pe_opt_rope_original_len)
                   : 8;
    PeConfig plain, sc = *given;
    pe_config_default(&plain, pe_tunable_scheme()->name);
    if (pe_given(given, &pe_opt_base))
        pe_put(&plain, &pe_opt_base, pe_base(given));
    bool scaled = rope_scaling_of(given) != ROPE_SCALING_NONE;
    if (scaled != pe_given(given, &pe_opt_rope_factor))
        cli_usage_error(cli, "--rope-scaling and --rope-factor go together");
    double S = rope_factor_of(given);
    rope_set_scaling(&sc, rope_scaling_of(given), S, L);
    double *t0 = cli_alloc(cli, half, sizeof *t0, "the frequencies");
    double *t1 = cli_alloc(cli, half, sizeof *t1, "the frequencies");
    rope_inv_freq(&plain, HS, t0);
    double gain = rope_inv_freq(&sc, HS, t1);
    const double two_pi = 2.0 * 3.14159265358979323846;
    printf("rope: a head of %zu channels (%zu pairs), base %g; L = %zu", HS, half,
           pe_base(&plain), L);
    if (scaled)
        printf("; %s x%g", rope_scaling_name(rope_scaling_of(&sc)), S);
    printf("\n\n| pair | wavelength | turns over L |");
    if (scaled)
        printf(" scaled wavelength | turns over %g L |", S);
    printf("\n| ---: | ---: | ---: |%s\n", scaled ? " ---: | ---: |" : "");
    for (size_t i = 0; i < half; i++) {
        printf("| %zu | %.1f | %.3f |", i, two_pi / t0[i], (double)L * t0[i] / two_pi);
        if (scaled)
            printf(" %.1f | %.3f |", two_pi / t1[i], S * (double)L * t1[i] / two_pi);
        printf("\n");
    }
    if (gain != 1.0)
        printf("\nyarn multiplies cos and sin by %.4f, so q.k by %.4f\n", gain, gain * gain);
    free(t0);
    free(t1);
}

/* --shift M,N,S: pe_shift of every scheme it takes, each pair of a head
 * and the whole head, and rope's decay bound at the offset. */
static int shift_scores(const Cli *cli, const Config *cfg, const char *text) {
    static const char *const unread[] = {"--pe", "--positions", "--far", "--csv", "--relative",
                                         "--wavelengths", "--seed", "--quiet", NULL};
    cli_refuse_given(cli, unread, "with --shift, which reads --d-model, --heads and the "
                     "options of the schemes it shows");
    size_t v[3];
    const char *p = text;
    for (int i = 0; i < 3; i++, p++) {
        char *end;
        v[i] = isdigit((unsigned char)*p) ? (size_t)strtoull(p, &end, 10) : SIZE_MAX;
        if (v[i] > SHIFT_MAX_POSITION || *(p = end) != (i < 2 ? ',' : '\0'))
            cli_usage_error(cli, "--shift wants M,N,S: the query's position, the key's and the "
                            "shift, whole numbers from 0 to %d, not '%s'", SHIFT_MAX_POSITION,
                            text);
    }
    if (cfg->n_heads == 0 || cfg->d_model % cfg->n_heads)
        cli_usage_error(cli, "--heads %zu does not divide --d-model %zu", cfg->n_heads,
                        cfg->d_model);
    size_t HS = cfg->d_model / cfg->n_heads, n = 0, rows = 1;
    const char **names = cli_alloc(cli, pe_count(), sizeof *names, "the schemes");
    for (size_t i = 0; i < pe_count(); i++)
        if (pe_shift_takes(pe_at(i)))
            names[n++] = pe_at(i)->name;
    cli_refuse_unread(cli, &cfg->pe, names, n);
    cli_refuse_layer_draws(cli, &cfg->pe);
    char (*cell)[CELL] = cli_alloc(cli, (n * (HS / 2 + 1) + 1) * 8, sizeof *cell, "the table");
    const char *head[8] = {"scheme", "pair (channels)", "q", "k", "score", "q shifted",
                           "k shifted", "score shifted"};
    for (size_t c = 0; c < 8; c++)
        snprintf(cell[c], CELL, "%s", head[c]);
    for (size_t i = 0; i < n; i++) {
        PeConfig pc = pe_config_for(&cfg->pe, pe_find(names[i]));
        for (size_t pair = 0; pair <= HS / 2; pair++, rows++) {
            PeShift sh;
            Err e;
            bool all = pair == HS / 2;
            if (pe_shift(&sh, &pc, HS, v[0], v[1], v[2], all ? 0 : pair, &e))
                cli_error(cli, &e);
            char (*row)[CELL] = cell + rows * 8;
            snprintf(row[0], CELL, "%s", names[i]);
            if (all)
                snprintf(row[1], CELL, "all");
            else
                snprintf(row[1], CELL, "%zu (%zu, %zu)", pair, sh.ca, sh.cb);
            for (size_t t = 0, c = 2; t < 2; t++, c += 3) {
                if (!all) {
                    snprintf(row[c], CELL, "%.6f, %.6f", sh.q[t][0], sh.q[t][1]);
                    snprintf(row[c + 1], CELL, "%.6f, %.6f", sh.k[t][0], sh.k[t][1]);
                }
                snprintf(row[c + 2], CELL, "%.6f", all ? sh.score[t] : sh.part[t]);
            }
        }
    }
    printf("A query at position %zu and a key at %zu, then both moved by %zu, in a head of %zu "
           "channels (q0 and k0 drawn as for --relative; the sinusoid's code added to them).\n"
           "score: q.k / sqrt(%zu), the pair's part of it, or the whole head's; then the same "
           "at %zu and %zu.\n\n", v[0], v[1], v[2], HS, HS, v[0] + v[2], v[1] + v[2]);
    report_table(stdout, cell, rows, 8);
    size_t r = v[0] > v[1] ? v[0] - v[1] : v[1] - v[0];
    double base = pe_base(&cfg->pe);
    printf("\nrope's long-term decay bound (RoFormer 3.4.3) at the offset %zu, head of %zu, base "
           "%g: %.6f (%.6f at offset 0)\n", r, HS, base, rope_decay_at(r, HS, base),
           rope_decay_at(0, HS, base));
    free(cell);
    free(names);
    return 0;
}

/* The command line, as given. */
typedef struct {
    Config cfg;
    const char *list;
    size_t N, far, offset;
    bool csv, example, options, waves, quiet;
    const char *shift; /* --shift M,N,S, or NULL */
} Args;

static void parse(Cli *cli, Args *a) {
    *a = (Args){.list = "all", .N = 256, .far = 1000000};
    config_default(&a->cfg, 0, "none");
    for (const char *arg; (arg = cli_next(cli));) {
        cli_help(cli, USAGE);
        if (cli_flag(cli, "--csv")) {
            a->csv = true;
        } else if (cli_flag(cli, "--quiet")) {
            a->quiet = true;
        } else if (cli_flag(cli, "--options")) {
            a->options = true;
        } else if (cli_flag(cli, "--wavelengths")) {
            a->waves = true;
        } else if (cli_flag(cli, "--worked-example")) {
            a->example = true;
        } else if (cli_opt(cli, "--relative")) {
            a->offset = cli_size(cli, "--relative", cli->val, 1, 1000);
        } else if (cli_opt(cli, "--shift")) {
            a->shift = cli->val;
        } else if (cli_opt(cli, "--pe")) {
            a->list = cli->val;
        } else if (cli_opt(cli, "--positions")) {
            a->N = cli_size(cli, "--positions", cli->val, 2, ANALYSIS_MAX_POSITIONS);
        } else if (cli_opt(cli, "--far")) {
            a->far = cli_size(cli, "--far", cli->val, 1024, 1000000000);
        } else if (cli_scheme_option(cli, &a->cfg)) {
        } else {
            cli_unknown(cli, arg);
        }
    }
}

/* A report that reads the scheme options of reads (NULL-terminated)
 * alone refuses any other given, as cli_refuse_given does. */
static void refuse_options_but(const Cli *cli, const PeConfig *pc, const PeOption *const *reads,
                               const char *why) {
    for (size_t i = 0; i < pe_option_count(); i++) {
        const PeOption *o = pe_option_at(i);
        bool read = false;
        for (size_t k = 0; reads[k]; k++)
            read |= reads[k] == o;
        if (pe_given(pc, o) && !read)
            cli_usage_error(cli, "%s does nothing %s; drop it", o->flag, why);
    }
}

/* The reports other than the properties' table (--options,
 * --worked-example, --wavelengths, --relative), each refusing the options
 * it does not read; false for none of them. */
static bool other_report(Cli *cli, const Args *a, int argc, char **argv) {
    for (int i = 1; (a->example || a->options) && i < argc; i++)
        if (strcmp(argv[i], a->example ? "--worked-example" : "--options") != 0)
            cli_usage_error(cli, "%s prints one fixed table and takes no other option; drop %s",
                            a->example ? "--worked-example" : "--options", argv[i]);
    if (a->options) {
        print_options();
    } else if (a->example) {
        report_worked_example(stdout);
    } else if (a->shift) {
        shift_scores(cli, &a->cfg, a->shift);
    } else if (a->waves) {
        static const char *const unread[] = {"--pe", "--positions", "--far", "--seed",
                                             "--csv", "--relative", "--quiet", NULL};
        static const PeOption *const reads[] = {&pe_opt_base, &pe_opt_rope_scaling,
                                                &pe_opt_rope_factor, &pe_opt_rope_original_len,
                                                NULL};
        const char *why = "with --wavelengths, which reads --d-model, --heads, --base and the "
                          "--rope- options";
        cli_refuse_given(cli, unread, why);
        refuse_options_but(cli, &a->cfg.pe, reads, why);
        wavelengths(cli, &a->cfg);
    } else if (a->offset) {
        static const char *const unread[] = {"--pe", "--positions", "--far", "--csv",
                                             "--quiet", NULL};
        const PeOption *const reads[] = {&pe_opt_base, &pe_opt_layout,
                                         pe_option_find("buckets"),
                                         pe_option_find("max-distance"), NULL};
        const char *why = "with --relative, which reads --d-model, --heads, --seed, --base, "
                          "--layout, --buckets and --max-distance";
        cli_refuse_given(cli, unread, why);
        refuse_options_but(cli, &a->cfg.pe, reads, why);
        relative(cli, &a->cfg, a->offset);
    } else {
        return false;
    }
    return true;
}

/* A report of ESTIMATE_FROM positions or more takes seconds to minutes,
 * as the schemes, the width and the machine go (2048 positions at
 * d_model 256, all the schemes: 42 s, 64 s and 157 s on three machines
 * or days): no fixed figure holds, so the time is measured on a small
 * piece first, the same report at a quarter of the positions (2 to 5% of
 * the work), and scaled by the growth of the measures, on stderr before
 * the run. An input scheme's measures compare positions pairwise, N^2;
 * an attention scheme's compare the scores of pairs of positions, N^3.
 * Scaled so, it came out 1.1 to 1.8 times the time the run then took, at
 * 1024 and 2048 positions and d_model 64 and 256 (2026-11, two cores
 * shared with other work): the piece's lower-order terms weigh more, so
 * the figure is given as an upper one. */
#define ESTIMATE_FROM 1024
#define PILOT 4 /* the piece: N / 4 positions */

static void print_estimate(const Args *a, const char *const *names, size_t n) {
    const Config *cfg = &a->cfg;
    double total = 0.0, pilot = clock_seconds();
    for (size_t i = 0; i < n; i++) {
        const PeScheme *s = pe_find(names[i]);
        PeConfig pc = pe_config_for(&cfg->pe, s);
        PeProps p;
        Err e;
        double t0 = clock_seconds();
        if (pe_properties(&p, &pc, cfg->seed, cfg->d_model, cfg->n_heads, a->N / PILOT, a->far,
                          &e))
            return; /* the report itself will say what is wrong */
        total += (clock_seconds() - t0) * pow(PILOT, pe_in_attention(s) ? 3.0 : 2.0);
    }
    fprintf(stderr, "pe_report: %zu positions at d_model %zu, %zu scheme%s: %.0f s or less "
            "on this machine as it is now (the same report at %zu positions took %.1f s; "
            "scaled by N^2, N^3 inside attention)\n", a->N, cfg->d_model, n, n == 1 ? "" : "s",
            total, a->N / PILOT, clock_seconds() - pilot);
}

/* The properties of each scheme of --pe, as a table or CSV. */
static void properties(Cli *cli, const Args *a) {
    const Config *cfg = &a->cfg;
    size_t N = a->N;
    /* The measures compare positions pairwise, channel by channel: a
     * scheme's time grows as N^2 C (and N^3 inside attention), hours at
     * --positions 2048 --d-model 32768. The bound keeps a run within
     * minutes (print_estimate says how many, before the run). */
    double work = (double)N * (double)N * (double)cfg->d_model;
    if (work > MAX_WORK)
        cli_usage_error(cli, "--positions %zu at --d-model %zu is %.3g pairs of positions "
                        "times channels, more than the %.3g a report measures; give "
                        "--positions %zu or fewer, or a smaller --d-model", N, cfg->d_model,
                        work, MAX_WORK, (size_t)sqrt(MAX_WORK / (double)cfg->d_model));
    const char **names;
    size_t n = cli_scheme_list(cli, "--pe", a->list, &names);
    cli_refuse_unread(cli, &cfg->pe, names, n);
    cli_refuse_layer_draws(cli, &cfg->pe);
    if (N >= ESTIMATE_FROM && !a->quiet)
        print_estimate(a, names, n);
    PeProps *props = cli_alloc(cli, n, sizeof *props, "the properties");
    Err e;
    for (size_t i = 0; i < n; i++) {
        PeConfig pc = pe_config_for(&cfg->pe, pe_find(names[i]));
        int rc = pe_properties(&props[i], &pc, cfg->seed, cfg->d_model, cfg->n_heads, N, a->far,
                               &e);
        if (rc == ERR_INPUT)
            cli_usage_error(cli, "%s", e.msg);
        if (rc)
            cli_fail(cli, &e);
    }
    if (a->csv)
        report_properties_csv(stdout, props, n);
    else if (report_properties(stdout, props, n, a->far, cfg->seed, &e))
        cli_fail(cli, &e);
    free(props);
    free(names);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "pe_report");
    Args a;
    parse(&cli, &a);
    if (!other_report(&cli, &a, argc, argv))
        properties(&cli, &a);
    return 0;
}
