/* The property report's tables (pe_report): the properties of each
 * scheme as a Markdown table or CSV, and the notes' worked example with
 * each of their values checked. Written to a stream, for the program and
 * the tests alike. */
#ifndef POSENC_REPORT_H
#define POSENC_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/err.h"
#include "../pe/analysis.h"

/* The longest text of one cell of a table. */
#define REPORT_CELL 48

/* rows x cols cells as a Markdown table, columns padded to line up; row 0
 * is the header. */
void report_table(FILE *out, char (*cell)[REPORT_CELL], size_t rows, size_t cols);
/* The properties of the n schemes of props (measured at far for the
 * float32 error, the learned table drawn from seed): one column per
 * scheme, then the notes' four criteria. ERR_RUNTIME out of memory. */
int report_properties(FILE *out, const PeProps *props, size_t n, size_t far, uint64_t seed,
                      Err *e);
/* The same, one CSV row per scheme. */
void report_properties_csv(FILE *out, const PeProps *props, size_t n);
/* The notes' River Bank table (d_model 6) and their sin/cos values, each
 * checked against the exact value. */
void report_worked_example(FILE *out);

#endif
