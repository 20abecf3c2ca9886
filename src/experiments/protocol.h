/* The benchmark's protocol as name/value pairs (experiments --bench --set,
 * protocol.c): what changes a grid's settings (grid.h) from the standard
 * or the quick protocol, and the test tapes of a cell. */
#ifndef POSENC_PROTOCOL_H
#define POSENC_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../text/tasks.h"
#include "grid.h"

/* Changes the benchmark's protocol from text such as "layers=5,d_model=64,
 * lr=1e-3/3e-4,tasks=reverse_string/duplicate_string" (experiments --set):
 * each name once, each value in its range (exp_bench_protocol lists
 * them), the lists separated by '/'. ERR_INPUT naming what is wrong. */
int exp_bench_set(ExpSettings *s, const char *text, Err *e);
/* What s changes of its protocol (the quick or the standard one), as --set
 * would take it, in the protocol's order of names: "steps=100,tasks=
 * even_pairs" ("" for none). The same changes typed in any order give the
 * same text: it names the grid. */
void exp_bench_set_text(char *buf, size_t cap, const ExpSettings *s);
/* The names --set takes, their ranges and what they mean: one line each,
 * into buf (a test holds EXP_PROTOCOL_HELP to it). */
void exp_bench_protocol(char *buf, size_t cap);
#define EXP_PROTOCOL_HELP                                                                    \
    "                        layers 1..16, d_model 2..1024, heads 1..64 (dividing\n"     \
    "                        d_model), d_ff 1..8192, batch 1..1024,\n"                   \
    "                        steps 1..1000000, lr 1e-06..1 (a sweep: A/B/..., at\n"      \
    "                        most 4), dropout 0..0.9, N 1..100 (training inputs\n"       \
    "                        1..N), M 2..500 (tests to M, past N), range 2..32768\n"     \
    "                        (random positions 0..range-1, at least M's tapes),\n"       \
    "                        per_len 1..100000 (test tapes a length), tasks A/B/...\n"   \
    "                        (default all 15), reference 0..1 (1, the standard: the\n"  \
    "                        reference code's first draws, no bias on attention's\n"     \
    "                        output projection, the loss over the padding, and a\n"      \
    "                        column random xl (as run); 0: without them). A\n"           \
    "                        standard cell takes half a minute to three minutes of\n"    \
    "                        one core (34 s on cycle_navigation, 177 s on\n"             \
    "                        duplicate_string, whose test tapes reach 375 words);\n"     \
    "                        its time grows about linearly with steps, batch and\n"      \
    "                        layers, and faster than linearly with the tapes' length\n"
/* The task options of a benchmark cell's test tapes of input length n:
 * count tapes drawn from the cell's data seed (1 + its seed) and n, apart
 * from its training data's; cell_bench.c tests on them, and the page's
 * chance floor counts their answers. */
TaskOptions exp_bench_test_tapes(size_t n, size_t count, uint64_t data_seed);

#endif
