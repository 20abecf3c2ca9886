/* The results page's design (docs/results.md): which schemes each of its
 * sections runs, named here as its prose names them, so that the grid
 * and the cells (grid.c, cells.c, cell_setup.c) name none. Every scheme
 * of the registry runs in sections 1 to 3 (but those that join the grids
 * later, pe.h); the others choose. */
#ifndef POSENC_DESIGN_H
#define POSENC_DESIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/model.h"

/* Rope's scalings of EXP_SCALING, as its runs are named: "none",
 * "linear-x2", ... "yarn-x4"; each also as NAME-tuned, fine-tuned at 2L. */
#define EXP_SCALINGS 7
extern const char *const exp_scaling_names[EXP_SCALINGS];

/* The tasks and schemes of EXP_CAUSAL, and the models of EXP_PROBE. */
#define EXP_CAUSAL_TASKS 2
extern const char *const exp_causal_tasks[EXP_CAUSAL_TASKS];
#define EXP_CAUSAL_SCHEMES 6
extern const char *const exp_causal_schemes[EXP_CAUSAL_SCHEMES];
/* EXP_CAUSAL's control: none without the mask, on the same tasks */
#define EXP_NO_MASK "none, no mask"
#define EXP_PROBES 2
extern const char *const exp_probe_names[EXP_PROBES];

/* The schemes of sections 1 to 3: every scheme, then the forms of one that
 * an encoder would also use ("asymmetric alibi"). exp_scheme_at(i) for
 * i < exp_scheme_count(); exp_scheme_form sets up c (config_default'ed for
 * the form's scheme) for the form. */
size_t exp_scheme_count(void);
const char *exp_scheme_at(size_t i);
/* The i of exp_scheme_at(i) == name; exp_scheme_count() when none is. */
size_t exp_scheme_index(const char *name);
/* The scheme a name of exp_scheme_at runs: "alibi" for "asymmetric alibi". */
const PeScheme *exp_scheme_base(const char *name);
void exp_scheme_form(Config *c, const char *name);

/* Section 4's schemes, with and without random positions. */
#define EXP_RANDOM_SCHEMES 3
extern const char *const exp_random_schemes[EXP_RANDOM_SCHEMES];
/* Section 5's scheme, whose variants it compares (exp_variant_names). */
extern const char *const exp_variant_scheme;
/* The scheme without position: the probes' models and the causal mask's
 * control. */
extern const char *const exp_floor_scheme;
/* Section 6's scheme: the registry's first with options a trained model
 * may change (PeOption.tunable, its long-context scalings), or NULL. */
const char *exp_scaling_scheme(void);

/* Experiment 5's variants of the sinusoid: the baseline (interleaved,
 * added), split layout, concatenated, embeddings scaled by sqrt(d_model). */
#define EXP_VARIANTS 4
extern const char *const exp_variant_names[EXP_VARIANTS];
void exp_variant_config(Config *c, size_t variant);

#endif
