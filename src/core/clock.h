/* Wall-clock seconds for progress lines and benchmarks, never for seeds. */
#ifndef POSENC_CLOCK_H
#define POSENC_CLOCK_H

/* Seconds on a monotonic clock since an arbitrary start: only differences
 * mean anything. */
double clock_seconds(void);

#endif
