/* The results page, docs/results.md, written from the cells' results
 * (the runs of results.h): the page, its tables' CSV files and its
 * figures. Everything in this folder writes the page only: a
 * change here runs no cell again (the Makefile's PAGE_ONLY). */
#ifndef POSENC_PAGE_H
#define POSENC_PAGE_H

#include "../../core/err.h"
#include "results.h"

/* Writes DIR/results.md, the CSV files in DIR/results and the figures in
 * DIR/img/results. */
int exp_write(const ExpResults *r, const char *dir, Err *e);

/* The benchmark's page (experiments --bench): DIR/benchmark.md, the CSV
 * files in DIR/benchmark and the figures in DIR/img/benchmark
 * (bench_page.c). */
int exp_bench_write(const ExpResults *r, const char *dir, Err *e);

/* Reads and checks the pages' templates (prose_load): a grid calls it
 * before its first cell, so that a missing or broken template folder is
 * named before the training, not after it. ERR_INPUT naming the folder,
 * or the file and line. */
int exp_page_templates(Err *e);

#endif
