// Section 5 of the page: training, in a Web Worker (train_worker.js), so
// that the page stays responsive; this script reads the controls, sends
// requests, and draws what comes back. Like app.js it computes nothing of
// the model's: every number comes from web/posenc_train.c.
import { $, el, fmtF, drawMap, cellAt, lineChart } from './draw.js';

const worker = new Worker(new URL('./train_worker.js', import.meta.url), { type: 'module' });
let nextId = 0;
const pending = new Map();

// A request to the worker: a promise of its reply; progress messages on
// the way go to onProgress.
function request(type, body = {}, onProgress = null, transfer = []) {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ id, type, ...body }, transfer);
  });
}

let info = null;  // { schemes, tasks } from the worker
worker.onmessage = (ev) => {
  const m = ev.data;
  if (m.type === 'ready') return start(m);
  if (m.type === 'failed') { $('#t-error').textContent = `the trainer failed to start: ${m.message}`; return; }
  const p = pending.get(m.id);
  if (!p) return;
  if (m.type === 'progress' || m.type === 'started') { p.onProgress?.(m); return; }
  pending.delete(m.id);
  if (m.type === 'error') p.reject(new Error(m.message)); else p.resolve(m);
};

// The colours of pe_plot's charts, one per run.
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
                 '#7f7f7f', '#bcbd22', '#17becf'];
const pct = (x) => `${(100 * x).toFixed(1).padStart(5)}%`;

// ---------------------------------------------------------------- training

const state = {
  busy: false,
  runs: [],          // { scheme, colour, loss: [[step, loss]], valid: [[step, acc]], result }
  frameGapMs: 0,     // the longest gap between two frames while training
  frames: 0,
  model: null,       // the model open: { about, task, layers, heads, perToken, path, name }
  lastAttention: null,
  lastLengths: null,
  lastOrder: null,
};

// ---------------------------------------------------------------- the form

// Every control of the form, in its order: { flag, input, option } where
// option is the index of a scheme option (shown only for the schemes that
// read it) or undefined. The fields and options come from the C (the
// worker's 'ready'); this file names none of them.
const controls = [];

function control(f, option) {
  const id = `t-${f.flag.replace(/^-+/, '')}`;
  const range = f.kind === 'text' && f.hi > f.lo ? `; ${f.lo} to ${f.hi}` : '';
  const title = `${f.help}${f.def ? ` (default ${f.def}${range})` : ''}`;
  let input, label;
  if (f.kind === 'flag') {
    input = el('input', { type: 'checkbox', id });
    label = el('label', { className: 'tick', title }, input, ` ${f.flag}`);
  } else {
    if (f.kind === 'text') {
      input = el('input', { id, className: 'num', value: f.initial, placeholder: f.def,
                            spellcheck: false, autocomplete: 'off' });
    } else {
      input = el('select', { id });
      if (f.def) input.append(el('option', { value: '', textContent: `(${f.def})` }));
      for (const c of f.choices) input.append(el('option', { value: c, textContent: c }));
      input.value = f.initial;
      if (input.selectedIndex < 0) input.selectedIndex = 0;  // a list always given: its first
    }
    label = el('label', { title }, f.flag, input);
  }
  input.dataset.flag = f.flag;
  controls.push({ flag: f.flag, kind: f.kind, input, label, option });
  return label;
}

function buildForm(m) {
  const groups = new Map();
  const group = (name) => {
    if (!groups.has(name)) {
      groups.set(name, el('div', { className: 'controls' }, el('span', { className: 'group', textContent: name })));
      $('#t-form').append(groups.get(name));
    }
    return groups.get(name);
  };
  for (const f of m.fields) group(f.group).append(control(f));
  const options = group('scheme options');
  m.options.forEach((o, i) => options.append(control(o, i)));
  options.append(el('span', { id: 't-no-options', className: 'muted' }));
}

const schemeControl = () => controls.find((c) => c.kind === 'scheme').input;
const combineControl = () => controls.find((c) => c.option === info.combine).input;
// Which scheme options `scheme` reads with the --combine chosen.
const reads = (scheme) => info.reads[info.schemes.indexOf(scheme)][combineControl().value];

// The options the chosen scheme reads are shown; the others wait, hidden.
function showOptions() {
  const scheme = schemeControl().value, r = reads(scheme);
  for (const c of controls) if (c.option !== undefined) c.label.hidden = !r[c.option];
  $('#t-no-options').textContent = r.some(Boolean) ? '' : `${scheme} reads none`;
}

// build/train's arguments for a run of `scheme`: every field given (a box
// not empty, a choice made, a flag ticked) and the scheme options shown
// that it reads (Compare gives each scheme those of the chosen one it
// reads; an option hidden is never sent).
function args(scheme) {
  const out = [], r = reads(scheme);
  for (const c of controls) {
    if (c.option !== undefined && (!r[c.option] || c.label.hidden)) continue;
    if (c.kind === 'flag') {
      if (c.input.checked) out.push(c.flag);
      continue;
    }
    const v = c.kind === 'scheme' ? scheme : c.input.value.trim();
    if (v !== '') out.push(c.flag, v);
  }
  return out;
}

const shellWord = (s) => (/^[\w.,:+=\/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

// The build/train command with the same options, for comparing.
function command(o) {
  return `OMP_NUM_THREADS=1 build/train ${o.args.map(shellWord).join(' ')}`;
}

function drawCurves() {
  const steps = Math.max(1, ...state.runs.map((r) => r.steps || 1));
  const maxLoss = Math.max(0.1, ...state.runs.flatMap((r) => r.loss.map(([, y]) => y)));
  lineChart($('#t-loss'), state.runs.map((r) => ({ name: r.scheme, colour: r.colour, points: r.loss })),
    { title: 'training loss (mean over each slice of steps)', xlabel: 'step', ylabel: 'loss',
      xmax: steps, ymin: 0, ymax: maxLoss * 1.05 });
  lineChart($('#t-acc'), state.runs.map((r) => ({ name: r.scheme, colour: r.colour, points: r.valid,
                                                   dots: true })),
    { title: 'validation accuracy (at each evaluation)', xlabel: 'step', ylabel: 'accuracy',
      xmax: steps, ymin: 0, ymax: 1 });
}

// "step 300/1500  loss 0.0068  acc 100.0%  valid loss 0.0036  acc 100.0% *  53689 tok/s  2s left",
// build/train's progress line: loss and accuracy over the steps since the
// last evaluation.
function progressLine(p, lastEval) {
  const left = p.step ? p.seconds / p.step * (p.steps - p.step) : 0;
  const valid = lastEval ? `  valid loss ${lastEval.validLoss.toFixed(4)}  acc ` +
    `${pct(lastEval.validAccuracy)}${lastEval.keptChanged ? ' *' : '  '}` : '';
  return `step ${String(p.step).padStart(6)}/${p.steps}  loss ${p.windowLoss.toFixed(4)}  acc ` +
    `${pct(p.windowAccuracy)}${valid}  ${p.tokensPerSecond.toFixed(0).padStart(6)} tok/s  ` +
    `${left.toFixed(0).padStart(4)}s left`;
}

function resultRow(r) {
  const x = r.result;
  const tr = el('tr', {}, el('td', { textContent: r.scheme }),
    el('td', { textContent: `${x.keptStep} of ${x.step}${x.stopped ? ' (stopped)' : ''}` }),
    el('td', { textContent: x.keptValid.toFixed(4) }), el('td', { textContent: x.keptTest.toFixed(4) }),
    el('td', { textContent: x.lastValid.toFixed(4) }), el('td', { textContent: x.seconds.toFixed(2) }));
  Object.assign(tr.dataset, { scheme: r.scheme, valid: String(x.keptValid), test: String(x.keptTest),
                              seconds: String(x.seconds), keptStep: String(x.keptStep),
                              tokensPerSecond: String(x.tokensPerSecond) });
  tr.style.color = r.colour;
  return tr;
}

// Watches the frames while training: the page must stay responsive.
function watchFrames() {
  let last = performance.now();
  state.frameGapMs = 0;
  state.frames = 0;
  const tick = (t) => {
    state.frameGapMs = Math.max(state.frameGapMs, t - last);
    state.frames++;
    last = t;
    if (state.busy) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

function setBusy(busy) {
  state.busy = busy;
  for (const id of ['#t-train', '#t-compare', '#m-open', '#m-download'])
    $(id).disabled = busy;
  $('#t-stop').disabled = !busy;
}

async function trainOne(o) {
  const run = { scheme: o.scheme, colour: COLOURS[state.runs.length % COLOURS.length],
                loss: [], valid: [], steps: 1, result: null };
  state.runs.push(run);
  let lastEval = null;
  const result = await request('train', { options: o }, (m) => {
    if (m.type === 'started') {
      run.steps = m.steps;
      // the untrained model at step 0: the curve's first point
      if (Number.isFinite(m.firstValid)) run.valid.push([0, m.firstValid]);
      $('#t-describe').textContent = `train: ${m.describe}`;
      return;
    }
    run.loss.push([m.step, m.loss]);
    if ('validAccuracy' in m) {
      lastEval = run.lastEval = m;
      run.valid.push([m.step, m.validAccuracy]);
    }
    $('#t-progress').textContent = `${o.scheme}: ${progressLine(m, lastEval)}`;
    drawCurves();
  });
  run.result = result;
  $('#t-results tbody').append(resultRow(run));
  return result;
}

// Trains each scheme in turn with the options of the controls; the last
// model trained becomes the model shown below.
async function trainAll(schemes) {
  $('#t-error').textContent = '';
  state.runs = [];
  $('#t-results tbody').replaceChildren();
  $('#t-progress').innerHTML = '&nbsp;';
  $('#t-describe').textContent = '';
  drawCurves();
  setBusy(true);
  watchFrames();
  const t0 = performance.now();
  let last = null;
  try {
    for (const scheme of schemes) {
      const o = { scheme, args: args(scheme) };
      $('#t-command').textContent = command(o);
      $('#t-command').classList.remove('hidden');
      last = await trainOne(o);
      if (last.stopped) break;
    }
  } catch (e) {
    $('#t-error').textContent = e.message;
  }
  state.wallSeconds = (performance.now() - t0) / 1000;
  setBusy(false);
  if (last) await showModel(last.model, `${last.model.task || 'model'}-${state.runs.at(-1).scheme}.ckpt`);
}

$('#t-train').addEventListener('click', () => trainAll([schemeControl().value]));
$('#t-compare').addEventListener('click', () => {
  const ticked = [...document.querySelectorAll('#t-compare-set input:checked')].map((c) => c.value);
  if (!ticked.length) { $('#t-error').textContent = 'tick one or more schemes to compare'; return; }
  trainAll(ticked);
});
$('#t-stop').addEventListener('click', () => worker.postMessage({ type: 'stop' }));
$('#t-reset').addEventListener('click', async () => {
  if (state.busy) worker.postMessage({ type: 'stop' });
  while (state.busy) await new Promise((r) => setTimeout(r, 20));
  await request('reset');
  state.runs = [];
  state.model = null;
  $('#t-results tbody').replaceChildren();
  for (const id of ['#t-error', '#t-describe', '#m-open-error']) $(id).textContent = '';
  $('#t-progress').innerHTML = '&nbsp;';
  $('#t-command').classList.add('hidden');
  $('#t-model').classList.add('hidden');
  drawCurves();
});

// ---------------------------------------------------------------- the model

const SENTENCES = { agent: 'Rohan killed the lion' };
const DIGITS = '3 1 4 1 5 9 2 6';

async function showModel(model, downloadName) {
  state.model = { ...model, downloadName };
  $('#t-model').classList.remove('hidden');
  $('#m-about').textContent = model.about;
  $('#m-use').textContent = `then: build/evaluate --model ${downloadName}` +
    (model.task ? ` --task ${model.task}` : ' --data FILE');
  const fill = (sel, n, label) => $(sel).replaceChildren(...Array.from({ length: n },
    (_, i) => el('option', { value: String(i), textContent: `${label} ${i}` })));
  fill('#m-layer', model.layers, 'layer');
  fill('#m-head', model.heads, 'head');
  const s = SENTENCES[model.task] || DIGITS;
  $('#m-sentence').value = s;
  $('#m-s1').value = s;
  $('#m-s2').value = s.split(' ').reverse().join(' ');
  const lengthTask = model.task && model.task !== 'agent';
  $('#m-lengths-part').style.display = lengthTask ? '' : 'none';
  await updateAttention();
  if (lengthTask) await updateLengths();
  await updateOrder();
}

let att = null;
async function updateAttention() {
  try {
    att = await request('attention', { sentence: $('#m-sentence').value });
    $('#m-att-error').textContent = '';
  } catch (e) {
    att = null;
    $('#m-att-error').textContent = e.message;
    $('#m-answer').textContent = '';
    return;
  }
  state.lastAttention = att;
  const unk = att.unknown ? ` (${att.unknown} word${att.unknown > 1 ? 's' : ''} not in the ` +
    'vocabulary read as <unk>)' : '';
  $('#m-answer').textContent = `the model's answer: ${att.answers.filter(Boolean).join(' ')}${unk}`;
  drawAttention();
}

function drawAttention() {
  if (!att) return;
  const l = Number($('#m-layer').value), h = Number($('#m-head').value), n = att.n;
  const off = (l * att.heads + h) * n * n;
  att.shown = att.weights.subarray(off, off + n * n);
  att.map = drawMap($('#m-att'), att.shown, n, n, {
    vmax: 1, positive: true, xnames: att.words, ynames: att.words,
    xlabel: 'key (the word attended to)', ylabel: 'query', title: `layer ${l}, head ${h}: softmax weights, each row sums to 1`,
  });
}

$('#m-att').addEventListener('mousemove', (ev) => {
  const c = att && att.map && cellAt(ev.currentTarget, att.map, ev);
  if (!c) return;
  $('#m-att-readout').textContent = `query ${c.row} '${att.words[c.row]}' attends to key ` +
    `${c.col} '${att.words[c.col]}' with weight ${fmtF(att.shown[c.row * att.n + c.col], 4)}`;
});
$('#m-sentence').addEventListener('input', updateAttention);
$('#m-layer').addEventListener('change', drawAttention);
$('#m-head').addEventListener('change', drawAttention);

async function updateLengths() {
  let r;
  try {
    r = await request('lengths', { maxLen: $('#m-max-len').value.trim() });
    $('#m-len-error').textContent = '';
  } catch (e) {
    $('#m-len-error').textContent = e.message;
    return;
  }
  state.lastLengths = r;
  const shown = r.rows.filter((x) => x.accuracy >= 0);
  lineChart($('#m-len'), [{ name: 'test accuracy', colour: COLOURS[0], dots: true,
                            points: shown.map((x) => [x.len, x.accuracy]) }],
    { title: `accuracy per length (test split); trained on lengths up to ${r.trained}`,
      xlabel: 'length (words)', ylabel: 'accuracy', xmin: 0, xwhole: true,
      xmax: Math.max(...r.rows.map((x) => x.len)) + 1, ymin: 0, ymax: 1,
      marks: [[r.trained + 0.5, 'longest trained']] });
  $('#m-len-table tbody').replaceChildren(...r.rows.map((x) => {
    const tr = el('tr', {}, el('td', { textContent: String(x.len) }),
      el('td', { textContent: String(x.examples) }),
      el('td', { textContent: x.accuracy < 0 ? 'not encodable' : x.accuracy.toFixed(4) }));
    Object.assign(tr.dataset, { len: String(x.len), accuracy: String(x.accuracy) });
    if (x.len > r.trained) tr.style.color = '#9b2c16';
    return tr;
  }));
}
$('#m-max-len').addEventListener('input', updateLengths);

async function updateOrder() {
  let r;
  try {
    r = await request('order', { s1: $('#m-s1').value, s2: $('#m-s2').value });
    $('#m-order-error').textContent = '';
  } catch (e) {
    $('#m-order-error').textContent = e.message;
    $('#m-order').textContent = '';
    return;
  }
  state.lastOrder = r;
  const answers = r.answers[0] ? `; the model's answers: '${r.answers[0]}' and '${r.answers[1]}'` : '';
  $('#m-order').textContent = `largest difference between a word's rows ${r.maxDiff.toExponential(3)}, ` +
    `pooled cosine ${r.cosine.toFixed(6)}: ${r.verdict}${answers}`;
  $('#m-order').dataset.verdict = r.verdict;
}
for (const id of ['#m-s1', '#m-s2']) $(id).addEventListener('input', updateOrder);
$('#m-reverse').addEventListener('click', () => {
  $('#m-s2').value = $('#m-s1').value.split(/\s+/).filter(Boolean).reverse().join(' ');
  updateOrder();
});

$('#m-download').addEventListener('click', async () => {
  const r = await request('download');
  const a = el('a', { href: URL.createObjectURL(new Blob([r.bytes])),
                      download: state.model.downloadName });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
});

$('#m-open').addEventListener('change', async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const bytes = await file.arrayBuffer();
  try {
    const r = await request('open', { name: file.name, bytes }, null, [bytes]);
    $('#m-open-error').textContent = '';
    await showModel(r.model, file.name);
  } catch (e) {
    $('#m-open-error').textContent = e.message;
  }
  ev.target.value = '';
});

// ---------------------------------------------------------------- start

function start(m) {
  info = m;
  buildForm(m);
  const task = controls.find((c) => c.kind === 'task').input;
  for (const t of m.tasks) task.querySelector(`option[value="${t.name}"]`).title = t.about;
  m.schemes.forEach((s, i) => {
    const box = el('input', { type: 'checkbox', value: s, checked: m.ticked[i] });
    $('#t-compare-set').append(el('label', { className: 'tick' }, box, ` ${s}`));
  });
  schemeControl().addEventListener('change', showOptions);
  combineControl().addEventListener('change', showOptions);
  showOptions();
  drawCurves();
  // for the browser test (web/webtest.py)
  window.posencTrain = { state, info, request };
  document.body.dataset.trainReady = '1';
}
