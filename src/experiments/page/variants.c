/* Section 5 of the page: the sinusoid's variants (the split layout,
 * concatenation, embeddings scaled by sqrt(d_model)) against the paper's
 * interleaved code added to the embeddings, on reverse. */
#include <math.h>

#include "sections.h"
#include "tables.h"

void exp_variants_section(Buf *b, const ExpResults *r) {
    Stat st[EXP_VARIANTS];
    buf_printf(b, "## 5. Layout, combine, scaling\n\nThe sinusoid on `reverse` at its "
               "default lengths (4..12 in training and test), %zu seeds each "
               "(`results/variants.csv`): the paper's interleaved layout added to the "
               "embeddings, the split layout [sin | cos], the code concatenated in half the "
               "channels, and embeddings multiplied by sqrt(d_model) (the paper's section "
               "3.4). That last row tests our setup, not the paper's: it scales our N(0, 1) "
               "embeddings, whose rows are already about as long as the code's, where the "
               "paper's embedding matrix is shared with the output layer and its scale is "
               "not stated ([page 3](03-sinusoid.md#scaling-the-embeddings-by-sqrtd_model) "
               "shows the sizes).\n\n"
               "| variant | mean | std | lowest | highest |\n| --- | ---: | ---: | ---: | ---: |\n",
               r->set.variant_seeds);
    for (size_t v = 0; v < EXP_VARIANTS; v++) {
        st[v] = exp_stat(r, EXP_VARIANT, "reverse", exp_variant_names[v], NULL, NULL);
        buf_printf(b, "| %s | %.4f | %.4f | %.4f | %.4f |\n", exp_variant_names[v], st[v].mean,
                   st[v].sd, st[v].lo, st[v].hi);
    }
    /* each variant against the baseline, one family (Holm), through the
     * page's gate (no floor here: none is not trained on these lengths) */
    Cmp c[EXP_VARIANTS];
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    for (size_t v = 1; v < EXP_VARIANTS; v++)
        exp_cmp(&c[v], st[v], st[0], exp_gate(st[v], st[0], NAN, false, 1.0, 1.0), &f);
    exp_claim_decide(c + 1, EXP_VARIANTS - 1, &f);
    buf_printf(b, "\nEach variant against the baseline (%.4f), one family (Holm): ", st[0].mean);
    for (size_t v = 1; v < EXP_VARIANTS; v++) {
        buf_printf(b, "%s%s ", v > 1 ? "; " : "", exp_variant_names[v]);
        exp_cmp_text(b, &c[v], &f);
    }
    /* a claim of sameness: shown alike agrees, a difference disagrees */
    PairVerdict layout = c[1].v;
    const char *says = layout == V_EQUIVALENT                        ? "agrees"
                       : layout == V_AHEAD || layout == V_BEHIND     ? "disagrees"
                       : layout == V_NOT_TOLD_APART                  ? "cannot tell"
                                                                     : "cannot test it here";
    buf_printf(b, ". The two layouts are one set of channels in another order, with the same "
               "properties; the tensor2tensor discussion (PR #177) reported them training "
               "alike, and this run %s%s.\n\n", says,
               layout == V_CEILING ? " (both at the ceiling: this task cannot tell two "
                                     "layouts apart, and a harder one would)"
                                   : "");
    family_free(&f);
}
