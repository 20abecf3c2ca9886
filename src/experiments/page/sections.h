/* What page.c calls to write the page: the sections in the page's order,
 * each in its own file (one or two sections a file), the length figures
 * and the CSV files. Below them: tables.h, results.h, and the statistics
 * (src/stats/stats.h). */
#ifndef POSENC_SECTIONS_H
#define POSENC_SECTIONS_H

#include <stdbool.h>

#include "../../core/buf.h"
#include "../../core/err.h"
#include "results.h"

/* The sections, in the page's order. */
void exp_order_section(Buf *b, const ExpResults *r);    /* 1 (order.c) */
void exp_tasks_section(Buf *b, const ExpResults *r);    /* 2 (order.c) */
void exp_lengths_section(Buf *b, const ExpResults *r);  /* 3 (lengths.c) */
void exp_random_section(Buf *b, const ExpResults *r);   /* 4 (random.c) */
void exp_variants_section(Buf *b, const ExpResults *r); /* 5 (variants.c) */
void exp_scaling_section(Buf *b, const ExpResults *r);  /* 6 (scaling.c) */
void exp_causal_section(Buf *b, const ExpResults *r);   /* 7 (causal.c) */
void exp_probe_section(Buf *b, const ExpResults *r);    /* 8 (causal.c) */

/* DIR/img/results/lengths_TASK.png (section 3), or random_TASK.png with
 * random (section 4): accuracy by length, mean over seeds (figures.c). */
int exp_length_figure(const ExpResults *r, const char *dir, const char *task, bool random,
                      Err *e);

/* DIR/results/KIND.csv, the numbers behind every table (csv.c). */
int exp_write_csv(const ExpResults *r, const char *dir, Err *e);

#endif
