#include "analysis_shift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_attn.h"
#include "pe_sinusoidal.h"

bool pe_shift_takes(const PeScheme *s) {
    return pe_reads(s, COMBINE_DEFAULT, &pe_opt_base) && (s->rotate || (pe_in_input(s) && s->value));
}

/* X (2,HS): row 0 the query at pos[0], row 1 the key at pos[1], made from
 * q0 and k0 by the scheme as the model makes them: turned in place
 * (rotate, after prepare), or with the code of the two positions combined
 * into them. */
static int place(float *X, const PePlan *plan, const PeConfig *pc, const float *q0,
                 const float *k0, const size_t pos[2], Err *e) {
    const PeScheme *s = plan->scheme;
    size_t HS = plan->head_size, w = plan->w;
    memcpy(X, q0, HS * sizeof *X);
    memcpy(X + HS, k0, HS * sizeof *X);
    size_t n = (pos[0] > pos[1] ? pos[0] : pos[1]) + 1; /* the sentence they sit in */
    size_t n_buf = s->rotate ? pe_scratch(plan, pc, 2) + 2 * HS : 2 * w;
    float *buf = xmalloc(n_buf * sizeof *buf, "the code", e);
    if (!buf)
        return ERR_RUNTIME;
    if (s->rotate) {
        /* the two a sentence at pos[0..2), prepared as the model prepares
         * one (xpos counts its scale from the sentence's centre: one token
         * alone would be its own centre, and the scale would vanish); the
         * rows turned as queries, and a copy as keys: the query is the
         * first row of one, the key the second of the other */
        float *keys = buf + n_buf - 2 * HS;
        memcpy(keys, X, 2 * HS * sizeof *keys);
        if (s->prepare)
            s->prepare(buf, pc, pos, 2, HS);
        PeHead hd = {.pc = pc, .scratch = buf, .pos = pos, .T = 2, .len = 2, .HS = HS, .NH = 1,
                     .ld = HS};
        s->rotate(&hd, X, PE_QUERY, false);
        s->rotate(&hd, keys, PE_KEY, false);
        memcpy(X + HS, keys + HS, HS * sizeof *X);
    } else {
        pe_fill_at(buf, plan, pc, NULL, pos, 2, n);
        pe_combine(X, buf, 2, w, HS, plan->combine);
    }
    free(buf);
    return 0;
}

int pe_shift(PeShift *out, const PeConfig *pc, size_t HS, size_t m, size_t n, size_t s,
             size_t pair, Err *e) {
    memset(out, 0, sizeof *out);
    const PeScheme *sc = pe_find(pc->name);
    if (sc && !pe_shift_takes(sc))
        return err_set(e, ERR_INPUT, "%s has no pairs that turn at base^(-2i/d): the shift shows "
                       "the schemes that read --base and turn q and k or add their code",
                       sc->name);
    if (HS < 2 || HS % 2 || HS > PE_MAX_WIDTH)
        return err_set(e, ERR_INPUT, "a head of %zu channels: the pairs need an even number "
                       "from 2 to %d", HS, PE_MAX_WIDTH);
    if (pair >= HS / 2)
        return err_set(e, ERR_INPUT, "a head of %zu channels has pairs 0 to %zu, not %zu", HS,
                       HS / 2 - 1, pair);
    if (m > SHIFT_MAX_POSITION || n > SHIFT_MAX_POSITION || s > SHIFT_MAX_POSITION)
        return err_set(e, ERR_INPUT, "positions and the shift go up to %d", SHIFT_MAX_POSITION);
    PePlan plan;
    size_t far = (m > n ? m : n) + s + 1;
    int rc = pe_plan(&plan, pc, HS, 1, far, e);
    if (rc)
        return rc;
    float *buf = xmalloc(6 * HS * sizeof *buf, "a query and a key", e);
    if (!buf)
        return ERR_RUNTIME;
    float *q0 = buf, *k0 = buf + HS, *X = buf + 2 * HS; /* X (2,2,HS): before, after */
    attention_probe_qk(q0, k0, HS);
    for (int t = 0; t < 2 && !rc; t++) {
        size_t pos[2] = {m + (t ? s : 0), n + (t ? s : 0)};
        rc = place(X + 2 * t * HS, &plan, pc, q0, k0, pos, e);
    }
    if (rc) {
        free(buf);
        return rc;
    }
    bool split = pe_layout(pc) == LAYOUT_SPLIT;
    size_t ca = split ? pair : 2 * pair, cb = split ? pair + HS / 2 : 2 * pair + 1;
    double scale = 1.0 / sqrt((double)HS);
    *out = (PeShift){.HS = HS, .m = m, .n = n, .s = s, .pair = pair, .ca = ca, .cb = cb,
                     .q0 = {q0[ca], q0[cb]}, .k0 = {k0[ca], k0[cb]}};
    for (int t = 0; t < 2; t++) {
        const float *q = X + 2 * t * HS, *k = q + HS;
        double dot = 0.0;
        for (size_t c = 0; c < HS; c++)
            dot += (double)q[c] * k[c];
        out->score[t] = dot * scale;
        out->q[t][0] = q[ca], out->q[t][1] = q[cb];
        out->k[t][0] = k[ca], out->k[t][1] = k[cb];
        out->part[t] = ((double)q[ca] * k[ca] + (double)q[cb] * k[cb]) * scale;
    }
    free(buf);
    return 0;
}
