/* The figures of sections 3 and 4: accuracy by sentence length, the mean
 * over seeds, one panel per family of schemes (section 3) or per scheme
 * with and without random positions (section 4), with the longest
 * training length marked. */
#include <stdio.h>
#include <stdlib.h>

#include "../../pe/pe.h"
#include "../../plot/chart.h"
#include "prose.h"
#include "sections.h"

/* The mean accuracy at each length 0..max_len over a configuration's
 * seeds (NaN where undefined). */
static void mean_curve(double *y, const ExpResults *r, ExpKind kind, const char *task,
                       const char *name, size_t max_len) {
    for (size_t len = 0; len <= max_len; len++) {
        Band one = {len, len};
        y[len] = exp_stat(r, kind, task, name, exp_band_value, &one).mean;
    }
}

/* The panel of a scheme in a length figure: none and the notes' naive
 * codes, the absolute codes (the sinusoid, the learned table), or the
 * schemes inside attention; small multiples instead of ten lines in one. */
static size_t family_of(const PeScheme *s) {
    return pe_in_attention(s) ? 2 : s->first_position == 1 ? 0 : 1;
}

/* The templates of the panels' families, and of the three lines of a
 * random figure's panel. */
static const char *const FAMILY[3] = {"figure.naive", "figure.absolute", "figure.attention"};
static const char *const WHAT[3] = {"figure.trained", "figure.random", "figure.random_at_0"};

/* A figure's labels, each from its template (results-3-lengths.md) as a C
 * string, NUL-terminated in its Buf. */
typedef struct {
    Buf what[3], longest, x, y, title[3];
} Labels;

static const char *label(Buf *b, const char *name, const ProseVal *v, size_t n) {
    prose_fill(b, name, v, n);
    buf_put(b, "", 1);
    return b->failed || !b->p ? "" : (const char *)b->p;
}

static void labels_free(Labels *w) {
    for (int i = 0; i < 3; i++)
        buf_free(&w->what[i]), buf_free(&w->title[i]);
    buf_free(&w->longest), buf_free(&w->x), buf_free(&w->y);
}

/* The panels' charts: the series of panel p are the n[p] from s + p *
 * stride, to which the mark of L (vx, the caller's, as long as the
 * charts) is added. */
static void panels(LineChart *lc, Labels *w, Series *s, size_t stride, size_t *n,
                   const double *vx, const ExpResults *r, const char *task, bool random) {
    static const double vy[2] = {0.0, 1.0};
    const char *longest = label(&w->longest, "figure.longest", NULL, 0);
    const char *xlabel = label(&w->x, "figure.x", NULL, 0);
    const char *ylabel = label(&w->y, "figure.y", NULL, 0);
    for (size_t p = 0; p < 3; p++) {
        Series *panel = s + p * stride;
        panel[n[p]++] = (Series){.x = vx, .y = vy, .n = 2, .label = longest,
                                 .color = RGB_GREY, .dashed = true};
        ProseVal v[3] = {pv_text("task", task),
                         random ? pv_text("panel", exp_random_schemes[p])
                                : pv_tmpl("panel", FAMILY[p]),
                         pv_count("seeds", r->set.seeds)};
        lc[p] = (LineChart){.series = panel, .n_series = n[p],
                            .title = label(&w->title[p], "figure.title", v, 3),
                            .xlabel = xlabel, .ylabel = ylabel, .plot_w = 560, .plot_h = 220,
                            .fixed_y = true, .ymin = 0.0, .ymax = 1.0, .x_integer = true,
                            .legend = true};
    }
}

int exp_length_figure(const ExpResults *r, const char *dir, const char *task, bool random,
                      Err *e) {
    /* a panel each: of the random schemes, or of the three families */
    _Static_assert(EXP_RANDOM_SCHEMES == 3, "the random figure has three panels");
    const char *const *rnd = exp_random_schemes;
    /* random: trained at 0..T-1; with random positions, tested at random
     * positions (Ruoss et al.); the same tested at 0..T-1 */
    static const ExpKind kinds[3] = {EXP_LENGTHS, EXP_RANDOM_TEST, EXP_RANDOM};
    size_t L = r->set.L, top = 4 * L, S = random ? 3 : exp_scheme_count();
    size_t withs = random ? 3 : 1, lines = S * withs;
    /* x, then a curve per line; each panel holds up to every line, and the
     * mark of L */
    double *x = xcalloc((lines + 1) * (top + 1), sizeof *x, "a length figure", e);
    Series *s = xcalloc(3 * (lines + 1), sizeof *s, "a length figure", e);
    if (!x || !s) {
        free(x), free(s);
        return ERR_RUNTIME;
    }
    Labels w = {0};
    const char *what[3];
    for (int i = 0; i < 3; i++)
        what[i] = label(&w.what[i], WHAT[i], NULL, 0);
    size_t n[3] = {0}, k = 0;
    for (size_t len = 0; len <= top; len++)
        x[len] = (double)len;
    for (size_t i = 0; i < S; i++)
        for (size_t with = 0; with < withs; with++, k++) {
            const char *name = random ? rnd[i] : exp_scheme_at(i);
            size_t panel = random ? i : family_of(exp_scheme_base(name));
            double *y = x + (k + 1) * (top + 1);
            mean_curve(y, r, kinds[with], task, name, top);
            s[panel * (lines + 1) + n[panel]] = (Series){
                .x = x + r->set.min_len, .y = y + r->set.min_len,
                .n = top - r->set.min_len + 1,
                .label = random ? what[with] : name,
                .color = series_color(random ? with : n[panel]), .dashed = with == 2,
                .markers = true};
            n[panel]++;
        }
    double vx[2] = {(double)L, (double)L};
    LineChart lc[3];
    panels(lc, &w, s, lines + 1, n, vx, r, task, random);
    /* a template missing or malformed: no figure with a blank label */
    int rc = prose_end(e);
    char path[4096];
    snprintf(path, sizeof path, "%s/img/results/%s_%s.png", dir, random ? "random" : "lengths",
             task);
    if (!rc)
        rc = linecharts_png(path, lc, 3, 1, e);
    labels_free(&w);
    free(x), free(s);
    return rc;
}
