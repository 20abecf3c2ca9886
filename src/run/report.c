/* The property report's tables (report.h). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../pe/pe_sinusoidal.h"

#define CELL REPORT_CELL

/* The widest cell of column c. */
static size_t column_width(char (*cell)[CELL], size_t rows, size_t cols, size_t c) {
    size_t w = 0;
    for (size_t r = 0; r < rows; r++)
        w = strlen(cell[r * cols + c]) > w ? strlen(cell[r * cols + c]) : w;
    return w;
}

/* Prints rows x cols cells as a Markdown table, columns padded to line up;
 * row 0 is the header. */
void report_table(FILE *out, char (*cell)[CELL], size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++)
            fprintf(out, "| %-*s ", (int)column_width(cell, rows, cols, c), cell[r * cols + c]);
        fprintf(out, "|\n");
        if (r == 0) {
            for (size_t c = 0; c < cols; c++) {
                fprintf(out, "|");
                for (size_t k = 0; k < column_width(cell, rows, cols, c) + 2; k++)
                    fputc('-', out);
            }
            fprintf(out, "|\n");
        }
    }
}

static void num(char *buf, double v, int digits) {
    if (isnan(v))
        snprintf(buf, CELL, "n/a");
    else if (v == 0.0)
        snprintf(buf, CELL, "0");
    else
        snprintf(buf, CELL, "%.*g", digits, v);
}

static const char *yes(bool b) { return b ? "yes" : "no"; }

/* One row of the properties table: a label and one cell per scheme. */
typedef void (*CellFn)(char *buf, const PeProps *p);

/* How the code meets the input, or "attention" for a scheme with none. */
static const char *meets(const PeProps *p) {
    return p->in_attention ? "attention" : combine_name(p->combine);
}

static void c_combine(char *b, const PeProps *p) { snprintf(b, CELL, "%s, %zu", meets(p), p->w); }
static void c_unique(char *b, const PeProps *p) { num(b, p->uniqueness, 3); }
static void c_closest(char *b, const PeProps *p) {
    snprintf(b, CELL, "%zu, %zu", p->closest_a, p->closest_b);
}
static void c_maxabs(char *b, const PeProps *p) { num(b, p->max_abs, 4); }
static void c_norms(char *b, const PeProps *p) {
    char x[CELL], y[CELL];
    num(x, p->norm_first, 6);
    num(y, p->norm_last, 6);
    snprintf(b, CELL, "%.20s, %.20s", x, y);
}
static void c_growth(char *b, const PeProps *p) { num(b, p->growth, 4); }
static void c_length(char *b, const PeProps *p) { num(b, p->length_inconsistency, 3); }
static void c_seed(char *b, const PeProps *p) { num(b, p->seed_sensitivity, 3); }
static void c_defined(char *b, const PeProps *p) { snprintf(b, CELL, "%s", yes(p->defined_past)); }
static void c_excursion(char *b, const PeProps *p) { num(b, p->range_excursion, 3); }
static void c_ti(char *b, const PeProps *p) { num(b, p->translation_invariance, 3); }
static void c_sym(char *b, const PeProps *p) { num(b, p->symmetry, 3); }
static void c_radius(char *b, const PeProps *p) { snprintf(b, CELL, "%zu", p->monotone_radius); }
static void c_shift(char *b, const PeProps *p) { num(b, p->shift_residual, 3); }
static void c_refl(char *b, const PeProps *p) { num(b, p->reflection, 3); }
static void c_ln(char *b, const PeProps *p) { num(b, p->layernorm_erasure, 3); }
static void c_f32(char *b, const PeProps *p) { num(b, p->float32_error, 3); }

int report_properties(FILE *out, const PeProps *props, size_t n, size_t far, uint64_t seed,
                      Err *e) {
    const struct {
        const char *label;
        CellFn fn;
    } rows[] = {
        {"combine, channels", c_combine},
        {"uniqueness: min distance / mean norm", c_unique},
        {"uniqueness: closest pair of positions", c_closest},
        {"boundedness: max abs value up to N", c_maxabs},
        {"boundedness: norm at first, last position", c_norms},
        {"boundedness: growth of max abs to 4N", c_growth},
        {"length inconsistency: N vs 2N", c_length},
        {"determinism: seed sensitivity", c_seed},
        {"extrapolation: defined past N", c_defined},
        {"extrapolation: range excursion N..4N", c_excursion},
        {"translation invariance", c_ti},
        {"symmetry", c_sym},
        {"monotone radius r*", c_radius},
        {"linear-shift residual, k = 1..10", c_shift},
        {"reflection", c_refl},
        {"LayerNorm erasure", c_ln},
        {"float32 error (float angles)", c_f32},
    };
    size_t R = sizeof rows / sizeof *rows + 1, K = n + 1;
    char(*cell)[CELL] = calloc(R * K, sizeof *cell); /* R > 5: the criteria table fits too */
    if (!cell)
        return err_set(e, ERR_RUNTIME, "out of memory for the properties' table");
    fprintf(out,
            "Properties of the position codes: d_model %zu, positions 0..%zu (the notes'\n"
            "schemes count them 1..%zu), learned table drawn from seed %llu, float32 error\n"
            "at positions %zu..%zu.\n\n",
            props[0].C, props[0].N - 1, props[0].N, (unsigned long long)seed,
            far - (far < 1024 ? far : 1024), far - 1);
    for (size_t s = 0; s < n; s++)
        if (props[s].in_attention) {
            fprintf(out,
                    "The schemes inside attention add no code: their columns measure S, the part\n"
                    "of head 0's attention logit that the two positions decide (%zu heads of %zu\n"
                    "channels; rope's for one fixed query and key), and a position's row of S\n"
                    "stands for its code.\n\n",
                    props[s].heads, props[s].head_size);
            break;
        }
    snprintf(cell[0], CELL, "property");
    for (size_t s = 0; s < n; s++)
        snprintf(cell[s + 1], CELL, "%s", props[s].scheme->name);
    for (size_t r = 1; r < R; r++) {
        snprintf(cell[r * K], CELL, "%s", rows[r - 1].label);
        for (size_t s = 0; s < n; s++)
            rows[r - 1].fn(cell[r * K + s + 1], &props[s]);
    }
    report_table(out, cell, R, K);

    fprintf(out, "\nThe notes' four ideal criteria:\n\n");
    const char *head[5] = {"scheme", "unique", "consistent across lengths", "bounded, generalizes",
                           "deterministic"};
    for (size_t c = 0; c < 5; c++)
        snprintf(cell[c], CELL, "%s", head[c]);
    for (size_t s = 0; s < n; s++) {
        char *row = cell[(s + 1) * 5];
        snprintf(row, CELL, "%s", props[s].scheme->name);
        snprintf(row + CELL, CELL, "%s", yes(props[s].unique));
        snprintf(row + 2 * CELL, CELL, "%s", yes(props[s].consistent));
        snprintf(row + 3 * CELL, CELL, "%s", yes(props[s].bounded));
        snprintf(row + 4 * CELL, CELL, "%s", yes(props[s].deterministic));
    }
    report_table(out, cell, n + 1, 5);
    fprintf(out,
            "\nunique: uniqueness >= %g; consistent: length inconsistency <= %g;\n"
            "bounded: defined past N and growth <= %g; deterministic: seed sensitivity = %g.\n",
            CRIT_UNIQUE_MIN, CRIT_CONSISTENT_MAX, CRIT_GROWTH_MAX, CRIT_SEED_MAX);
    free(cell);
    return 0;
}

/* ",value", or "," alone for n/a. */
static void csv_num(FILE *out, double v) {
    fprintf(out, ",");
    if (!isnan(v))
        fprintf(out, "%.9g", v);
}

void report_properties_csv(FILE *out, const PeProps *props, size_t n) {
    fprintf(out, "scheme,combine,channels,d_model,positions,uniqueness,closest_a,closest_b,max_abs,"
                 "norm_first,norm_last,growth,length_inconsistency,seed_sensitivity,defined_past,"
                 "range_excursion,translation_invariance,symmetry,monotone_radius,shift_residual,"
                 "reflection,layernorm_erasure,float32_error,float32_at,unique,consistent,bounded,"
                 "deterministic\n");
    for (size_t s = 0; s < n; s++) {
        const PeProps *p = &props[s];
        fprintf(out, "%s,%s,%zu,%zu,%zu", p->scheme->name, meets(p), p->w, p->C, p->N);
        csv_num(out, p->uniqueness);
        fprintf(out, ",%zu,%zu", p->closest_a, p->closest_b);
        csv_num(out, p->max_abs);
        csv_num(out, p->norm_first);
        csv_num(out, p->norm_last);
        csv_num(out, p->growth);
        csv_num(out, p->length_inconsistency);
        csv_num(out, p->seed_sensitivity);
        fprintf(out, ",%s", yes(p->defined_past));
        csv_num(out, p->range_excursion);
        csv_num(out, p->translation_invariance);
        csv_num(out, p->symmetry);
        fprintf(out, ",%zu", p->monotone_radius);
        csv_num(out, p->shift_residual);
        csv_num(out, p->reflection);
        csv_num(out, p->layernorm_erasure);
        csv_num(out, p->float32_error);
        fprintf(out, ",%zu,%s,%s,%s,%s\n", p->far, yes(p->unique), yes(p->consistent),
                yes(p->bounded), yes(p->deterministic));
    }
}

/* ---- the worked example ---- */

/* A value as the notes wrote it, to two decimals or fewer. */
typedef struct {
    const char *expr; /* what it is, e.g. "sin(2)" */
    double exact;
    const char *note; /* the notes' text, e.g. "0.87" */
} Noted;

/* The notes mostly work to two decimals. A value is ok when it is the
 * exact one rounded to two decimals (no more than 0.005 away); rounded when
 * it shows fewer decimals and is right to those; truncated when it drops
 * the digits instead of rounding them; otherwise wrong. */
static void check_cell(char *buf, double exact, const char *note) {
    const char *dot = strchr(note, '.');
    int dec = dot ? (int)strlen(dot + 1) : 0;
    double v = atof(note), unit = pow(10.0, -dec);
    if (fabs(v - exact) <= 1e-12)
        snprintf(buf, CELL, "ok");
    else if (dec < 2 && fabs(v - exact) <= unit / 2 + 1e-12)
        snprintf(buf, CELL, "rounded to %d decimal%s: %.2f", dec, dec == 1 ? "" : "s", exact + 0.0);
    else if (fabs(v - exact) <= 0.005 + 1e-12)
        snprintf(buf, CELL, "ok");
    else if (fabs(v - trunc(exact / unit) * unit) <= 1e-12)
        snprintf(buf, CELL, "truncated: %s, correct %.2f", note, exact + 0.0);
    else
        snprintf(buf, CELL, "wrong: %s, correct %.2f", note, exact + 0.0);
}

void report_worked_example(FILE *out) {
    const size_t d = 6;
    /* The two vectors the notes end with: "River" [0|1|0|1|0|1] and
     * "bank" [0.94|0.54|0.04|0.99|0.00|0.99]. */
    const char *const notes[2][6] = {{"0", "1", "0", "1", "0", "1"},
                                     {"0.94", "0.54", "0.04", "0.99", "0.00", "0.99"}};
    const char *const words[2] = {"River", "bank"};
    fprintf(out,
            "River Bank, the notes' worked example: d_model = %zu, \"River\" at position 0,\n"
            "\"bank\" at position 1.\n"
            "PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))\n\n",
            d);
    char cell[13 * 7][CELL];
    const char *head[7] = {"word", "pos", "channel", "formula", "exact", "notes", "check"};
    for (size_t c = 0; c < 7; c++)
        snprintf(cell[c], CELL, "%s", head[c]);
    for (size_t pos = 0; pos < 2; pos++)
        for (size_t ch = 0; ch < d; ch++) {
            char(*row)[CELL] = cell + (1 + pos * d + ch) * 7;
            double v = sinusoid_value((double)pos, ch, d, LAYOUT_INTERLEAVED, 0.0);
            snprintf(row[0], CELL, "%s", words[pos]);
            snprintf(row[1], CELL, "%zu", pos);
            snprintf(row[2], CELL, "%zu", ch);
            snprintf(row[3], CELL, "%s(%zu / 10000^(%zu/%zu))", ch % 2 ? "cos" : "sin", pos,
                     ch / 2 * 2, d);
            snprintf(row[4], CELL, "%.6f", v + 0.0);
            snprintf(row[5], CELL, "%s", notes[pos][ch]);
            check_cell(row[6], v, notes[pos][ch]);
        }
    report_table(out, cell, 13, 7);

    /* The steps before the formula, on "Rohan killed the lion": sin(pos)
     * alone, then sin and cos (the notes give sin(2) twice, differently). */
    const Noted steps[] = {
        {"sin(1)", sin(1.0), "0.84"},  {"sin(2)", sin(2.0), "0.87"}, {"sin(3)", sin(3.0), "0.19"},
        {"sin(4)", sin(4.0), "-0.90"}, {"sin(2)", sin(2.0), "0.71"}, {"cos(1)", cos(1.0), "0.5"},
        {"cos(2)", cos(2.0), "-0.4"},
    };
    size_t ns = sizeof steps / sizeof *steps;
    fprintf(out, "\nThe notes' values of sin(pos) and cos(pos) for \"Rohan killed the lion\":\n\n");
    const char *head2[4] = {"value", "exact", "notes", "check"};
    for (size_t c = 0; c < 4; c++)
        snprintf(cell[c], CELL, "%s", head2[c]);
    for (size_t i = 0; i < ns; i++) {
        char(*row)[CELL] = cell + (i + 1) * 4;
        snprintf(row[0], CELL, "%s", steps[i].expr);
        snprintf(row[1], CELL, "%.6f", steps[i].exact);
        snprintf(row[2], CELL, "%s", steps[i].note);
        check_cell(row[3], steps[i].exact, steps[i].note);
    }
    report_table(out, cell, ns + 1, 4);
    fprintf(out, "\nA value is ok when it is the exact value to two decimals (within 0.005);\n"
                 "rounded, when it shows fewer decimals and is right to those; truncated, when\n"
                 "its last digit is cut instead of rounded.\n");
}
