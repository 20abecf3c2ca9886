/* NumPy .npy files (format version 1.0), so that a learner can load what
 * the model computed with numpy.load or torch.from_numpy. */
#ifndef POSENC_NPY_H
#define POSENC_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* Writes a C-order array of float32 ('<f4') or int64 ('<i8') with the
 * given shape (ndim up to 4; ndim 0 is a scalar). */
int npy_write_f32(const char *path, const float *x, const size_t *shape, size_t ndim, Err *e);
int npy_write_i64(const char *path, const int64_t *x, const size_t *shape, size_t ndim, Err *e);

/* Reads a float32 array of at most 4 dimensions written by numpy (C order,
 * little-endian); *x is allocated. Used by the tests to load fixtures. */
int npy_read_f32(const char *path, float **x, size_t *shape, size_t *ndim, Err *e);

#endif
