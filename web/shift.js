// Section 4 of the page: RoPE against the added sinusoid. The sliders pick
// a head size, a base, the query's position m, the key's n, a shift s and a
// pair of channels; web/posenc_shift.c (pe_shift and rope_decay_bound of
// src/pe) computes every number, as `build/pe_report --shift` prints them.
// This file reads the sliders, draws and writes what comes back.
import { $, el, fmtE, fmtF, lineChart, pairPlot } from './draw.js';

const COLOURS = { q: '#23508c', k: '#e07b39', content: '#999' };
const DECAY_OFFSETS = 257;

export function startShift(M) {
  const S = 'string', N = 'number';
  const api = {
    error: M.cwrap('pw_error', S, []),
    schemeName: M.cwrap('pw_scheme_name', S, [N]),
    schemeAbout: M.cwrap('pw_scheme_about', S, [N]),
    schemeCount: M.cwrap('pw_scheme_count', N, []),
    takes: M.cwrap('pw_shift_scheme', N, [N]),
    shift: M.cwrap('pw_shift', N, [S, S, S, S, S, S, S]),
    score: M.cwrap('pw_shift_score', N, [N]),
    part: M.cwrap('pw_shift_part', N, [N]),
    change: M.cwrap('pw_shift_change', N, []),
    q: M.cwrap('pw_shift_q', N, [N, N]),
    k: M.cwrap('pw_shift_k', N, [N, N]),
    q0: M.cwrap('pw_shift_q0', N, [N]),
    k0: M.cwrap('pw_shift_k0', N, [N]),
    channel: M.cwrap('pw_shift_channel', N, [N]),
    offset: M.cwrap('pw_shift_offset', N, []),
    position: M.cwrap('pw_shift_position', N, [N, N]),
    decay: M.cwrap('pw_decay', N, [S, S, S]),
    decayValues: M.cwrap('pw_decay_values', N, []),
  };
  const schemes = [];
  for (let i = 0; i < api.schemeCount(); i++) {
    if (!api.takes(i)) continue;
    const name = api.schemeName(i), canvas = el('canvas', { className: 'map', width: 500, height: 440 });
    const readout = el('div', { className: 'readout sh-readout' });
    const panel = el('div', { className: 'sh-panel' }, el('div', { className: 'heading', textContent: name }),
                     el('div', { className: 'muted', textContent: api.schemeAbout(i) }), canvas, readout);
    panel.dataset.scheme = name;
    $('#sh-panels').append(panel);
    schemes.push({ name, canvas, readout, panel });
  }

  // The sliders' values as the programs' options take them (text).
  function sliders() {
    const v = (id) => $(id).value;
    // the base slider is its log10: three significant digits, so that the
    // text given to the C and to pe_report is the same number
    const base = String(Number((10 ** Number(v('#sh-base'))).toPrecision(3)));
    $('#sh-pair').max = String(Number(v('#sh-head')) / 2 - 1);
    return { base, head: v('#sh-head'), m: v('#sh-m'), n: v('#sh-n'), s: v('#sh-s'), pair: v('#sh-pair') };
  }

  function one(o, scheme) {
    if (api.shift(scheme.name, o.head, o.base, o.m, o.n, o.s, o.pair)) return { error: api.error() };
    const xy = (f, t) => [f(t, 0), f(t, 1)];
    return {
      score: [api.score(0), api.score(1)], part: [api.part(0), api.part(1)], change: api.change(),
      q: [xy(api.q, 0), xy(api.q, 1)], k: [xy(api.k, 0), xy(api.k, 1)],
      q0: [api.q0(0), api.q0(1)], k0: [api.k0(0), api.k0(1)],
      channels: [api.channel(0), api.channel(1)], offset: api.offset(),
      at: [xy(api.position, 0), xy(api.position, 1)],  // [[m, n], [m + s, n + s]]
    };
  }

  function draw(o, scheme, r) {
    const [[m, n], [m2, n2]] = r.at;
    const arrow = (v, colour, dash, label, width) => ({ x: v[0], y: v[1], colour, dash, label, width });
    pairPlot(scheme.canvas, [
      arrow(r.q0, COLOURS.content, [], 'q0', 1), arrow(r.k0, COLOURS.content, [], 'k0', 1),
      arrow(r.q[0], COLOURS.q, [], `q at ${m}`), arrow(r.k[0], COLOURS.k, [], `k at ${n}`),
      arrow(r.q[1], COLOURS.q, [6, 4], `q at ${m2}`), arrow(r.k[1], COLOURS.k, [6, 4], `k at ${n2}`),
    ], [], { title: `${scheme.name}, pair ${o.pair} (solid: at m, n; dashed: at m + s, n + s)`,
             xlabel: `channel ${r.channels[0]}`, ylabel: `channel ${r.channels[1]}` });
    const vec = (v) => `(${fmtF(v[0], 3)}, ${fmtF(v[1], 3)})`;
    scheme.readout.replaceChildren(
      el('div', { textContent: `q.k/sqrt(${o.head}) at m ${m}, n ${n}: ${fmtF(r.score[0], 6)};` +
                  ` shifted to ${m2}, ${n2}: ${fmtF(r.score[1], 6)} (change ${fmtE(r.change, 2)})` }),
      el('div', { textContent: `pair ${o.pair}, channels ${r.channels.join(' and ')}: q ${vec(r.q[0])}` +
                  ` k ${vec(r.k[0])}, its part ${fmtF(r.part[0], 6)}; shifted ${fmtF(r.part[1], 6)}` }));
    scheme.panel.dataset.values = JSON.stringify(r);
  }

  function drawDecay(o, offset) {
    if (api.decay(o.head, o.base, String(DECAY_OFFSETS))) return api.error();
    const ptr = api.decayValues() >> 3, y = M.HEAPF64.slice(ptr, ptr + DECAY_OFFSETS);
    const at = y[Math.min(offset, DECAY_OFFSETS - 1)];
    lineChart($('#sh-decay'), [{ name: `rope, head of ${o.head}, base ${o.base}`, colour: COLOURS.q,
                                 points: Array.from(y, (v, r) => [r, v]) }],
      { title: "RoPE's long-term decay: the bound (1/(d/2)) sum |S_j| against the offset",
        xlabel: 'offset |m - n|', ylabel: 'relative upper bound', xmin: 0, xmax: DECAY_OFFSETS - 1,
        xwhole: true, ymin: 0, ymax: y[0] * 1.05,
        marks: offset < DECAY_OFFSETS ? [[offset, `|m - n| = ${offset}: ${fmtF(at, 4)}`]] : [] });
    $('#sh-decay').dataset.values = JSON.stringify({ offset, bound: offset < DECAY_OFFSETS ? at : null,
                                                    first: y[0] });
    return '';
  }

  function update() {
    const o = sliders();
    for (const [id, text] of [['#sh-base-out', o.base], ['#sh-head-out', o.head], ['#sh-m-out', o.m],
                              ['#sh-n-out', o.n], ['#sh-s-out', o.s], ['#sh-pair-out', o.pair]])
      $(id).textContent = text;
    let error = '', offset = 0;
    for (const scheme of schemes) {
      const r = one(o, scheme);
      if (r.error) { error = r.error; break; }
      draw(o, scheme, r);
      offset = r.offset;
    }
    error = error || drawDecay(o, offset);
    $('#sh-error').textContent = error;
    $('#sh-results').classList.toggle('hidden', Boolean(error));
    $('#sh-command').textContent = `$ build/pe_report --shift ${o.m},${o.n},${o.s} --d-model ${o.head} ` +
      `--heads 1 --base ${o.base}`;
  }

  for (const id of ['#sh-base', '#sh-head', '#sh-m', '#sh-n', '#sh-s', '#sh-pair'])
    $(id).addEventListener('input', update);
  update();
}
