/* Line charts stacked top to bottom on one canvas, as the pictures of
 * several panels are laid out (figures.h, fig_stack). */
#include "../plot/chart.h"
#include "figures.h"

int fig_stack(Canvas *out, LineChart *charts, size_t n, int margin, int gap, Box *areas,
              Err *e) {
    int W = 0, H = 0, hs[FIG_MAX_PANELS] = {0};
    if (n > FIG_MAX_PANELS)
        return err_set(e, ERR_INPUT, "%zu panels: a picture stacks at most %d", n,
                       FIG_MAX_PANELS);
    for (size_t i = 0; i < n; i++) {
        if (!charts[i].n_series)
            continue;
        int w;
        linechart_size(&charts[i], &w, &hs[i]);
        W = w > W ? w : W;
        H += hs[i] + (H ? gap : 0);
    }
    int rc = canvas_init(out, W + 2 * margin, H + 2 * margin, e);
    for (size_t i = 0, y = (size_t)margin; !rc && i < n; i++)
        if (charts[i].n_series) {
            linechart_draw(out, margin, (int)y, &charts[i], areas ? &areas[i] : NULL);
            y += (size_t)(hs[i] + gap);
        }
    return rc;
}
