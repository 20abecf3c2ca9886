/* Section 5 of the page: the sinusoid's variants (the split layout,
 * concatenation, embeddings scaled by sqrt(d_model)) against the paper's
 * interleaved code added to the embeddings, on reverse. */
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
    buf_printf(b, "\nAgainst the baseline (%.4f), a difference is called real when the seeds "
               "differ at p < %.2f (two-sided Mann-Whitney, exact), its size given by Cliff's "
               "delta: ", st[0].mean, EXP_P_REAL);
    for (size_t v = 1; v < EXP_VARIANTS; v++) {
        bool differ = exp_p(st[v], st[0]) < EXP_P_REAL;
        buf_printf(b, "%s%s %+.4f (%s: ", v > 1 ? "; " : "", exp_variant_names[v],
                   st[v].mean - st[0].mean, differ ? "real" : "not told from seed noise");
        exp_test_text(b, st[v], st[0]);
        buf_printf(b, ")");
    }
    bool split_same = exp_p(st[1], st[0]) >= EXP_P_REAL;
    buf_printf(b, ". The two layouts are one set of channels in another order, with the same "
               "properties; the tensor2tensor discussion (PR #177) found them training alike, "
               "and this run %s. Near the ceiling a real difference can be a small one: read "
               "its size beside it.\n", split_same ? "agrees" : "does not agree");
}
