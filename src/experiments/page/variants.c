/* Section 5 of the page: the sinusoid's variants (the split layout,
 * concatenation, embeddings scaled by sqrt(d_model)) against the paper's
 * interleaved code added to the embeddings, on reverse. */
#include <math.h>

#include "prose.h"
#include "sections.h"
#include "tables.h"

/* The claim that the two layouts are the same: shown alike agrees, a
 * difference disagrees. */
static const char *sameness_name(PairVerdict layout) {
    return layout == V_EQUIVALENT                        ? "variants.agrees"
           : layout == V_AHEAD || layout == V_BEHIND     ? "variants.disagrees"
           : layout == V_NOT_TOLD_APART                  ? "variants.cannot_tell"
                                                         : "variants.untestable";
}

void exp_variants_section(Buf *b, const ExpResults *r) {
    Stat st[EXP_VARIANTS];
    Buf rows = {0}, pairs = {0};
    for (size_t v = 0; v < EXP_VARIANTS; v++) {
        st[v] = exp_stat(r, EXP_VARIANT, "reverse", exp_variant_names[v], NULL, NULL);
        buf_printf(&rows, "%s| %s | %.4f | %.4f | %.4f | %.4f |", v ? "\n" : "",
                   exp_variant_names[v], st[v].mean, st[v].sd, st[v].lo, st[v].hi);
    }
    /* each variant against the baseline, one family (Holm), through the
     * page's gate (no floor here: none is not trained on these lengths) */
    Cmp c[EXP_VARIANTS];
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    for (size_t v = 1; v < EXP_VARIANTS; v++)
        exp_cmp(&c[v], st[v], st[0], exp_gate(st[v], st[0], NAN, false, 1.0, 1.0), &f);
    exp_claim_decide(c + 1, EXP_VARIANTS - 1, &f);
    for (size_t v = 1; v < EXP_VARIANTS; v++) {
        buf_printf(&pairs, "%s%s ", v > 1 ? "; " : "", exp_variant_names[v]);
        exp_cmp_text(&pairs, &c[v], &f);
    }
    PairVerdict layout = c[1].v;
    PROSE(b, "variants", pv_count("seeds", r->set.variant_seeds), pv_buf("rows", &rows),
          pv_real("baseline", st[0].mean), pv_buf("pairs", &pairs),
          pv_tmpl("says", sameness_name(layout)),
          layout == V_CEILING ? pv_tmpl("ceiling", "variants.ceiling") : pv_text("ceiling", ""));
    buf_printf(b, "\n\n");
    exp_part_done(b, &rows), exp_part_done(b, &pairs);
    family_free(&f);
}
