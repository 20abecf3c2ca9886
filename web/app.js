// The page's script: reads the controls, calls the C entry points of
// web/posenc_web.c (built by `make web` into posenc.js + posenc.wasm), and
// draws what they return. It computes nothing itself: every number shown
// comes from the library; this file formats and paints.
import createPosenc from './posenc.js';
import { $, el, fmtE, fmtF, colour, maxAbs, drawMap, cellAt } from './draw.js';
import { startShift } from './shift.js';

const M = await createPosenc();

const S = 'string', N = 'number';
const api = {
  error: M.cwrap('pw_error', S, []),
  schemeCount: M.cwrap('pw_scheme_count', N, []),
  schemeName: M.cwrap('pw_scheme_name', S, [N]),
  schemeAbout: M.cwrap('pw_scheme_about', S, [N]),
  schemeInAttention: M.cwrap('pw_scheme_in_attention', N, [N]),
  schemeDemoDefault: M.cwrap('pw_scheme_demo_default', N, [N]),
  order: M.cwrap('pw_order', N, [S, S, S, S, S, S, S, N, S]),
  orderWords: M.cwrap('pw_order_words', N, []),
  orderChannels: M.cwrap('pw_order_channels', N, []),
  orderMaxDiff: M.cwrap('pw_order_max_diff', N, []),
  orderCosine: M.cwrap('pw_order_cosine', N, []),
  orderVerdict: M.cwrap('pw_order_verdict', S, []),
  orderHow: M.cwrap('pw_order_how', S, []),
  orderAbout: M.cwrap('pw_order_about', S, []),
  orderRows: M.cwrap('pw_order_rows', N, []),
  orderPooled: M.cwrap('pw_order_pooled', N, []),
  orderWordDiffs: M.cwrap('pw_order_word_diffs', N, []),
  orderWord: M.cwrap('pw_order_word', S, [N, N]),
  orderAligned: M.cwrap('pw_order_aligned', N, [N]),
  code: M.cwrap('pw_code', N, [S, S, S, S, N, N, S, S]),
  codeWidth: M.cwrap('pw_code_width', N, []),
  codeInAttention: M.cwrap('pw_code_in_attention', N, []),
  codeHeads: M.cwrap('pw_code_heads', N, []),
  codeFirst: M.cwrap('pw_code_first_position', N, []),
  codeCombine: M.cwrap('pw_code_combine', S, []),
  codeTable: M.cwrap('pw_code_table', N, []),
  codeDots: M.cwrap('pw_code_dots', N, []),
  codeAxis: M.cwrap('pw_code_axis', S, []),
  codeChannel: M.cwrap('pw_code_channel', S, [N]),
  rotation: M.cwrap('pw_rotation', N, [S, S, N, S, S]),
  rotationValues: M.cwrap('pw_rotation_values', N, []),
  rotationMatrix: M.cwrap('pw_rotation_matrix', N, []),
  rotationMaxError: M.cwrap('pw_rotation_max_error', N, []),
  rotationChannel: M.cwrap('pw_rotation_channel', S, [N]),
};

// Copies out of the module's memory: a later call may grow it (which
// replaces the HEAP views) or free what the pointer points to.
const f32 = (ptr, n) => M.HEAPF32.slice(ptr >> 2, (ptr >> 2) + n);
const f64 = (ptr, n) => M.HEAPF64.slice(ptr >> 3, (ptr >> 3) + n);

const schemes = Array.from({ length: api.schemeCount() }, (_, i) => api.schemeName(i));
// The demo's schemes, as build/demo_order's: the seven the tutorial opens
// with, or with the box ticked every one (--pe all).
const demoDefaults = schemes.filter((_, i) => api.schemeDemoDefault(i));
const orderSchemes = () => ($('#all-schemes').checked ? schemes : demoDefaults);
$('#all-schemes-label').textContent = `all ${schemes.length} schemes`;

// The selector lists the table's schemes; the one selected stays if it is
// still there, else the sinusoid.
function fillSchemes(id, names) {
  const sel = $(id), was = sel.value;
  sel.replaceChildren(...names.map((name) => el('option', {
    value: name, textContent: name, title: api.schemeAbout(schemes.indexOf(name)) })));
  sel.value = names.includes(was) ? was : names.includes('sinusoidal') ? 'sinusoidal' : names[0];
}
fillSchemes('#scheme', orderSchemes());
fillSchemes('#code-scheme', schemes);

// ---------------------------------------------------------------- 1. Order

function orderOptions() {
  return {
    s1: $('#s1').value, s2: $('#s2').value,
    dModel: $('#d-model').value.trim(), heads: $('#heads').value.trim(),
    layers: $('#layers').value.trim(), dff: $('#d-ff').value.trim(),
    pre: $('#norm').value === 'pre', seed: $('#seed').value.trim(),
    all: $('#all-schemes').checked,
  };
}

// One scheme on the two sentences: demo_order --pe scheme, through
// src/run/orderdemo.c. Returns {error} or everything the page shows.
function runScheme(o, scheme) {
  if (api.order(o.s1, o.s2, scheme, o.dModel, o.heads, o.layers, o.dff, o.pre ? 1 : 0, o.seed))
    return { scheme, error: api.error() };
  const n = api.orderWords(), C = api.orderChannels();
  return {
    scheme, n, C,
    maxDiff: api.orderMaxDiff(), cos: api.orderCosine(), verdict: api.orderVerdict(),
    how: api.orderHow(), about: api.orderAbout(),
    words: [0, 1].map((s) => Array.from({ length: n }, (_, i) => api.orderWord(s, i))),
    aligned: Array.from({ length: n }, (_, i) => api.orderAligned(i)),
    rows: f32(api.orderRows(), 2 * n * C),
    pooled: f32(api.orderPooled(), 2 * C),
    wordDiffs: f64(api.orderWordDiffs(), n),
  };
}

// One demo: the schemes of the table, as build/demo_order runs them. Like
// demo_order, the first failure (in the registry's order) stops it, with
// its message.
function runDemo(o) {
  const t0 = performance.now();
  const results = [];
  for (const s of o.all ? schemes : demoDefaults) {
    const r = runScheme(o, s);
    if (r.error) return { error: r.error, ms: performance.now() - t0 };
    results.push(r);
  }
  return { results, ms: performance.now() - t0 };
}

function strip(row, vmax, cellW) {
  const c = el('canvas', { className: 'strip', width: row.length, height: 1 });
  c.style.width = `${row.length * cellW}px`;
  c.style.height = '14px';
  const g = c.getContext('2d'), img = g.createImageData(row.length, 1);
  row.forEach((v, i) => {
    const [r, gg, b] = colour(v / vmax);
    img.data.set([r, gg, b, 255], 4 * i);
  });
  g.putImageData(img, 0, 0);
  return c;
}

function showScheme(r) {
  const { n, C } = r;
  $('#order-heading').textContent = `== ${r.scheme} (${r.how}): ${r.about} ==`;
  const vmax = maxAbs(r.rows), cellW = Math.max(1, Math.min(12, Math.floor(200 / C)));
  const show = Math.min(C, 3);
  const first = (row) => '[' + Array.from(row.slice(0, show), (v) => fmtF(v, 3).padStart(7)).join('') + ']';
  const t = $('#order-rows');
  t.replaceChildren(el('tr', {}, el('th', { textContent: 'sentence 1', colSpan: 4 }),
                       el('th', { textContent: 'sentence 2', colSpan: 4 }),
                       el('th', { textContent: 'same word in sentence 1' })));
  for (let i = 0; i < n; i++) {
    const tr = el('tr', { className: 'word' });
    for (let s = 0; s < 2; s++) {
      const row = r.rows.subarray((s * n + i) * C, (s * n + i + 1) * C);
      tr.append(el('td', { textContent: String(i + 1), className: s ? 'sep' : '' }),
                el('td', { textContent: r.words[s][i] }),
                el('td', {}, strip(row, vmax, cellW)),
                el('td', { textContent: first(row) }));
    }
    tr.append(el('td', { className: 'sep',
                         textContent: `word ${r.aligned[i] + 1}, |diff| ${fmtE(r.wordDiffs[i], 1)}` }));
    t.append(tr);
  }
  const pooled = el('tr', { className: 'pooled' });
  for (let s = 0; s < 2; s++) {
    const row = r.pooled.subarray(s * C, (s + 1) * C);
    pooled.append(el('td', { className: s ? 'sep' : '' }), el('td', { textContent: 'mean' }),
                  el('td', {}, strip(row, vmax, cellW)), el('td', { textContent: first(row) }));
  }
  pooled.append(el('td', { className: 'sep', textContent: `pooled cosine ${fmtF(r.cos, 6)}` }));
  t.append(pooled);
  $('#order-line').textContent = `largest |difference| of aligned rows ${fmtE(r.maxDiff, 2)}, ` +
    `pooled cosine ${fmtF(r.cos, 6)} -> ${r.verdict}`;
  for (const tr of $('#order-table tbody').children)
    tr.classList.toggle('selected', tr.dataset.scheme === r.scheme);
}

function shellQuote(s) { return `'${s.replace(/'/g, `'\\''`)}'`; }

let lastDemo = null;
function renderDemo(o, demo) {
  lastDemo = demo;
  $('#order-error').textContent = demo.error || '';
  $('#order-results').classList.toggle('hidden', Boolean(demo.error));
  if (demo.error) return;
  const body = $('#order-table tbody');
  body.replaceChildren();
  const csv = ['scheme,max_abs_diff,pooled_cosine'];
  for (const r of demo.results) {
    const blind = r.verdict === 'order-blind';
    const tr = el('tr', {},
      el('td', { textContent: r.scheme }),
      el('td', { textContent: fmtE(r.maxDiff, 2) }),
      el('td', { textContent: fmtF(r.cos, 6) }),
      el('td', { textContent: r.verdict, className: blind ? 'blind' : 'sensitive' }));
    // the full figures, for anyone (and the browser test) who wants them
    tr.dataset.scheme = r.scheme;
    tr.dataset.maxDiff = String(r.maxDiff);
    tr.dataset.cosine = String(r.cos);
    tr.addEventListener('click', () => { $('#scheme').value = r.scheme; showSelected(); });
    body.append(tr);
    csv.push(`${r.scheme},${fmtE(r.maxDiff, 6)},${fmtF(r.cos, 9)}`);
  }
  $('#order-csv').textContent = csv.join('\n');
  const d = [...(o.all ? ['--pe', 'all'] : []), '--d-model', o.dModel, '--heads', o.heads, '--layers', o.layers, '--d-ff', o.dff,
             '--norm', o.pre ? 'pre' : 'post', '--seed', o.seed].join(' ');
  $('#order-command').textContent =
    `$ build/demo_order --csv ${d} ${shellQuote(o.s1)} ${shellQuote(o.s2)}`;
  $('#order-time').textContent = `${demo.results.length} schemes in ${demo.ms.toFixed(1)} ms, ` +
    'WebAssembly on one thread (the plain-loop matmul, no BLAS)';
  showSelected();
}

function showSelected() {
  if (!lastDemo || lastDemo.error) return;
  const r = lastDemo.results.find((x) => x.scheme === $('#scheme').value);
  if (r) showScheme(r);
}

function updateOrder() {
  const o = orderOptions();
  renderDemo(o, runDemo(o));
}

const words = (s) => s.split(/\s+/).filter(Boolean);
$('#reverse').addEventListener('click', () => {
  $('#s2').value = words($('#s1').value).reverse().join(' ');
  updateOrder();
});
// A random reordering; Math.random is fine here: it only picks the
// sentence, and the numbers depend on nothing but the sentences and the seed.
$('#shuffle').addEventListener('click', () => {
  const w = words($('#s1').value), orig = w.join(' ');
  const canMove = new Set(w).size > 1;
  for (let tries = 0; tries < 20; tries++) {
    for (let i = w.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [w[i], w[j]] = [w[j], w[i]];
    }
    if (!canMove || w.join(' ') !== orig) break;
  }
  $('#s2').value = w.join(' ');
  updateOrder();
});
for (const id of ['#s1', '#s2', '#d-model', '#heads', '#layers', '#d-ff', '#seed'])
  $(id).addEventListener('input', updateOrder);
$('#norm').addEventListener('change', updateOrder);
$('#all-schemes').addEventListener('change', () => {
  fillSchemes('#scheme', orderSchemes());
  updateOrder();
});
$('#scheme').addEventListener('change', showSelected);

// ---------------------------------------------------------------- pictures


// ---------------------------------------------------------------- 2. The code

let code = null;

// An empty picture with a line saying why, where a heatmap would be.
function drawNothing(canvas, text) {
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = '#555';
  g.font = '13px system-ui, sans-serif';
  g.textAlign = 'left';
  let y = 60;
  for (const line of text) { g.fillText(line, 58, y); y += 20; }
  return null;
}

function updateCode() {
  const scheme = $('#code-scheme').value;
  const rc = api.code(scheme, $('#code-d-model').value.trim(), $('#code-heads').value.trim(),
                      $('#code-base').value.trim(), Number($('#code-layout').value),
                      Number($('#code-combine').value), $('#code-positions').value.trim(),
                      $('#code-seed').value.trim());
  $('#code-error').textContent = rc ? api.error() : '';
  $('#code-results').classList.toggle('hidden', Boolean(rc));
  if (rc) { code = null; return; }
  const T = Number($('#code-positions').value.trim()), C = Number($('#code-d-model').value.trim());
  const w = api.codeWidth(), first = api.codeFirst(), attn = Boolean(api.codeInAttention());
  code = { scheme, T, C, w, first, attn, P: f32(api.codeTable(), T * w), S: f64(api.codeDots(), T * T) };
  code.names = Array.from({ length: w }, (_, c) => api.codeChannel(c));
  const combine = api.codeCombine();
  code.heat = w ? drawMap($('#code-heatmap'), code.P, T, w, {
    vmax: maxAbs(code.P), xfirst: 0, yfirst: first, xlabel: api.codeAxis(), ylabel: 'position',
    title: `${scheme}: ${T} positions x ${w} channel${w === 1 ? '' : 's'} (d_model ${C}, ${combine})`,
  }) : drawNothing($('#code-heatmap'), attn
    ? [`${scheme} adds nothing to the input: it acts inside attention,`,
       'on the scores of every head. Right: the part of head 0\'s logit',
       'that the positions of the query (p) and the key (q) decide.']
    : [`${scheme} adds nothing to the input: there is no code to draw,`,
       'and every dot product is 0.']);
  code.dots = drawMap($('#code-dots'), code.S, T, T, {
    vmax: maxAbs(code.S), xfirst: first, yfirst: first, xlabel: 'q', ylabel: 'p',
    title: attn ? `${scheme}, head 0 of ${api.codeHeads()}: logit S(p, q)`
                : `${scheme}, d_model ${C}: X_p . X_q`,
  });
  $('#code-readout').innerHTML = '&nbsp;';
}

$('#code-heatmap').addEventListener('mousemove', (ev) => {
  const c = code && cellAt(ev.currentTarget, code.heat, ev);
  if (!c) return;
  const name = code.names[c.col];
  $('#code-readout').textContent = `position ${c.row + code.first}, channel ${c.col}` +
    `${name ? ` (${name})` : ''}: P = ${fmtF(code.P[c.row * code.w + c.col], 6)}`;
});
$('#code-dots').addEventListener('mousemove', (ev) => {
  const c = code && cellAt(ev.currentTarget, code.dots, ev);
  if (!c) return;
  const p = c.row + code.first, q = c.col + code.first;
  $('#code-readout').textContent = (code.attn ? `S(${p}, ${q})` : `X_${p} . X_${q}`) +
    ` = ${fmtF(code.S[c.row * code.T + c.col], 6)}`;
});
for (const id of ['#code-d-model', '#code-heads', '#code-positions', '#code-base', '#code-seed'])
  $(id).addEventListener('input', updateCode);
for (const id of ['#code-scheme', '#code-layout', '#code-combine'])
  $(id).addEventListener('change', updateCode);

// ---------------------------------------------------------------- 3. Rotation

let rot = null;
function drawBars(canvas, r) {
  const g = canvas.getContext('2d'), W = canvas.width, H = canvas.height, d = r.d;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  const x0 = 58, pw = W - x0 - 16;
  const panels = [
    { y: 30, h: 220, title: `PE(t+k) = PE(${r.t + r.k})  and  M_k PE(t) = M_${r.k} PE(${r.t})`,
      series: [[r.ptk, '#23508c'], [r.mpt, '#e07b39']], vmax: 1 },
    { y: 300, h: 120, title: `M_k PE(t) - PE(t+k): max |difference| ${fmtE(r.maxErr, 2)} (float rounding)`,
      series: [[r.diff, '#7a1f2b']], vmax: maxAbs(r.diff) },
  ];
  const slot = pw / d;
  g.font = '12px system-ui, sans-serif';
  for (const p of panels) {
    const mid = p.y + p.h / 2;
    g.fillStyle = '#222';
    g.textAlign = 'left';
    g.fillText(p.title, x0, p.y - 10);
    g.strokeStyle = '#bbb';
    g.beginPath();
    g.moveTo(x0, mid + 0.5); g.lineTo(x0 + pw, mid + 0.5);
    g.stroke();
    g.strokeRect(x0 - 0.5, p.y - 0.5, pw + 1, p.h + 1);
    g.textAlign = 'right';
    g.font = '11px system-ui, sans-serif';
    for (const [f, v] of [[0, p.vmax], [0.5, 0], [1, -p.vmax]])
      g.fillText(Number(v.toPrecision(2)).toString(), x0 - 5, p.y + f * p.h + 4);
    const bw = Math.max(1, slot * 0.8 / p.series.length);
    p.series.forEach(([v, col], s) => {
      g.fillStyle = col;
      for (let c = 0; c < d; c++) {
        const h = (v[c] / p.vmax) * (p.h / 2);
        const x = x0 + c * slot + slot * 0.1 + s * bw;
        g.fillRect(x, h >= 0 ? mid - h : mid, bw, Math.abs(h));
      }
    });
  }
  g.textAlign = 'center';
  g.fillStyle = '#222';
  const step = Math.max(1, Math.ceil(d / 16));
  for (let c = 0; c < d; c += step) g.fillText(String(c), x0 + (c + 0.5) * slot, 436);
  g.fillText('channel', x0 + pw / 2, 452);
  // legend
  g.textAlign = 'left';
  [['PE(t+k)', '#23508c'], ['M_k PE(t)', '#e07b39']].forEach(([label, col], i) => {
    g.fillStyle = col;
    g.fillRect(x0 + 330 + i * 110, 256, 12, 12);
    g.fillStyle = '#222';
    g.fillText(label, x0 + 346 + i * 110, 266);
  });
  return { x: x0, w: pw, d, slot };
}

function updateRotation() {
  const t = $('#rot-t').value.trim(), k = $('#rot-k').value.trim(), d = $('#rot-d').value.trim();
  const rc = api.rotation(d, $('#rot-base').value.trim(), Number($('#rot-layout').value), t, k);
  $('#rot-error').textContent = rc ? api.error() : '';
  $('#rot-results').classList.toggle('hidden', Boolean(rc));
  if (rc) { rot = null; return; }
  const D = Number(d), v = f32(api.rotationValues(), 5 * D);
  rot = {
    d: D, t: Number(t), k: Number(k), pt: v.subarray(0, D), ptk: v.subarray(D, 2 * D),
    mpt: v.subarray(2 * D, 3 * D), diff: v.subarray(3 * D, 4 * D), pk: v.subarray(4 * D),
    M: f32(api.rotationMatrix(), D * D), maxErr: api.rotationMaxError(),
    names: Array.from({ length: D }, (_, c) => api.rotationChannel(c)),
  };
  rot.bars = drawBars($('#rot-bars'), rot);
  rot.map = drawMap($('#rot-matrix'), rot.M, D, D, {
    vmax: 1, xfirst: 0, yfirst: 0, xlabel: 'channel of PE(t)', ylabel: 'channel of M_k PE(t)',
    title: `M_${rot.k}: one 2x2 rotation per (sin, cos) pair`,
  });
  $('#rot-line').dataset.maxError = String(rot.maxErr);
  $('#rot-line').textContent = `largest |M_k PE(t) - PE(t+k)| ${fmtE(rot.maxErr, 2)} over ` +
    `${D} channels: M_${rot.k} is built from PE(${rot.k}) alone and works for every t.`;
  $('#rot-readout').innerHTML = '&nbsp;';
}

$('#rot-bars').addEventListener('mousemove', (ev) => {
  if (!rot) return;
  const r = ev.currentTarget.getBoundingClientRect();
  const x = (ev.clientX - r.left) * ev.currentTarget.width / r.width;
  const c = Math.floor((x - rot.bars.x) / rot.bars.slot);
  if (c < 0 || c >= rot.d) return;
  $('#rot-readout').textContent = `channel ${c} (${rot.names[c]}): PE(t+k) = ${fmtF(rot.ptk[c], 7)}, ` +
    `M_k PE(t) = ${fmtF(rot.mpt[c], 7)}, difference ${fmtE(rot.diff[c], 1)}`;
});
$('#rot-matrix').addEventListener('mousemove', (ev) => {
  const c = rot && cellAt(ev.currentTarget, rot.map, ev);
  if (!c) return;
  $('#rot-readout').textContent = `M_${rot.k}[${c.row}][${c.col}] = ` +
    `${fmtF(rot.M[c.row * rot.d + c.col], 7)}`;
});
for (const id of ['#rot-t', '#rot-k', '#rot-d', '#rot-base'])
  $(id).addEventListener('input', updateRotation);
$('#rot-layout').addEventListener('change', updateRotation);

// ---------------------------------------------------------------- start

updateOrder();
const firstDemoMs = lastDemo.ms;  // before the engine's optimizing tiers have run
updateCode();
updateRotation();
startShift(M);
$('#loading').remove();

// For the browser test (web/webtest.py) and the curious: the time of one
// demo (the schemes of the table on the sentences in the boxes), median of reps runs.
window.posenc = {
  schemes,
  demoDefaults,
  inAttention: (name) => Boolean(api.schemeInAttention(schemes.indexOf(name))),
  firstDemoMs: firstDemoMs,
  timeDemo(reps = 20) {
    // performance.now() is coarsened to 0.1 ms here: the mean over the
    // whole loop is the finer figure
    const o = orderOptions(), ms = [], t0 = performance.now();
    for (let i = 0; i < reps; i++) ms.push(runDemo(o).ms);
    const mean = (performance.now() - t0) / reps;
    ms.sort((a, b) => a - b);
    return { mean, median: ms[Math.floor(reps / 2)], min: ms[0], max: ms[reps - 1], reps };
  },
};
document.body.dataset.ready = '1';
