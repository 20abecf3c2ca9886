/* posenc_shift: the entry points of the page's section 4 (web/shift.js),
 * RoPE against the added sinusoid: a query and a key turned or coded by
 * their positions, the score q.k before and after both move by the same
 * shift, and RoPE's long-term decay. pe_shift and rope_decay_bound
 * (src/pe) compute it all, as pe_report --shift prints it. */
#include <stdlib.h>
#include <string.h>

#include "../src/pe/analysis_rope.h"
#include "../src/pe/analysis_shift.h"
#include "pw.h"
#include "../src/pe/pe_sinusoidal.h"

/* The sliders' ends: a head of up to 256 channels, positions up to 4096,
 * and the decay drawn over at most 4096 offsets. */
#define PW_SHIFT_MAX_HEAD 256
#define PW_SHIFT_MAX_POSITION 4096

static PeShift sh;
static double *decay;

/* 1 for a scheme the section shows (pe_shift_takes: rope, sinusoidal). */
EXPORT int pw_shift_scheme(int i) {
    return i >= 0 && (size_t)i < pe_count() && pe_shift_takes(pe_at((size_t)i));
}

/* The scheme's config with --base from its text, as the programs read it. */
static int config(PeConfig *pc, const char *scheme, const char *base, Err *e) {
    pe_config_default(pc, scheme);
    return pe_set(pc, &pe_opt_base, base, e);
}

/* pe_report --shift M,N,S --d-model head --heads 1 --base base, for one
 * scheme and one pair. */
EXPORT int pw_shift(const char *scheme, const char *head, const char *base, const char *m_s,
                    const char *n_s, const char *s_s, const char *pair_s) {
    Err *e = &pw_err;
    err_clear(e);
    memset(&sh, 0, sizeof sh);
    PeConfig pc;
    size_t HS, m, n, s, pair;
    int rc;
    if ((rc = parse_size(&HS, "the head size", head, 2, PW_SHIFT_MAX_HEAD, e)) ||
        (rc = parse_size(&m, "the query's position", m_s, 0, PW_SHIFT_MAX_POSITION, e)) ||
        (rc = parse_size(&n, "the key's position", n_s, 0, PW_SHIFT_MAX_POSITION, e)) ||
        (rc = parse_size(&s, "the shift", s_s, 0, PW_SHIFT_MAX_POSITION, e)) ||
        (rc = parse_size(&pair, "the pair", pair_s, 0, PW_SHIFT_MAX_HEAD, e)) ||
        (rc = config(&pc, scheme, base, e)))
        return rc;
    return pe_shift(&sh, &pc, HS, m, n, s, pair, e);
}

/* t = 0 before the shift, 1 after; xy = 0 or 1. */
static int ok(int t, int xy) { return t >= 0 && t < 2 && xy >= 0 && xy < 2; }
EXPORT double pw_shift_score(int t) { return ok(t, 0) ? sh.score[t] : 0.0; }
EXPORT double pw_shift_part(int t) { return ok(t, 0) ? sh.part[t] : 0.0; }
EXPORT double pw_shift_change(void) { return sh.score[1] - sh.score[0]; }
EXPORT double pw_shift_q(int t, int xy) { return ok(t, xy) ? sh.q[t][xy] : 0.0; }
EXPORT double pw_shift_k(int t, int xy) { return ok(t, xy) ? sh.k[t][xy] : 0.0; }
EXPORT double pw_shift_q0(int xy) { return ok(0, xy) ? sh.q0[xy] : 0.0; }
EXPORT double pw_shift_k0(int xy) { return ok(0, xy) ? sh.k0[xy] : 0.0; }
/* Where the query (j = 0) or the key (j = 1) sits before (t = 0) or after
 * (t = 1) the shift. */
EXPORT int pw_shift_position(int t, int j) {
    return (int)((j ? sh.n : sh.m) + (t ? sh.s : 0));
}
/* The pair's two channels (j = 0, 1), and the offset |m - n|. */
EXPORT int pw_shift_channel(int j) { return (int)(j ? sh.cb : sh.ca); }
EXPORT int pw_shift_offset(void) { return (int)(sh.m > sh.n ? sh.m - sh.n : sh.n - sh.m); }

/* RoPE's decay bound for offsets 0..count-1 (pe_plot --kind decay); the
 * config holds no scheme, only --base read as the programs read it. */
EXPORT int pw_decay(const char *head, const char *base, const char *count) {
    Err *e = &pw_err;
    err_clear(e);
    free(decay);
    decay = NULL;
    PeConfig pc;
    size_t HS, n;
    int rc;
    if ((rc = parse_size(&HS, "the head size", head, 2, PW_SHIFT_MAX_HEAD, e)) ||
        (rc = parse_size(&n, "the offsets", count, 1, PW_SHIFT_MAX_POSITION, e)) ||
        (rc = config(&pc, "", base, e)))
        return rc;
    if (!(decay = xmalloc(n * sizeof *decay, "the decay", e)))
        return ERR_RUNTIME;
    return rope_decay_bound(decay, n, HS, pe_base(&pc), e);
}

EXPORT const double *pw_decay_values(void) { return decay; }
