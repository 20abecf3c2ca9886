// What the page's two scripts share (app.js, the first three sections;
// train.js, training): the DOM shorthands, printf's number formats, the
// colour map of src/plot/chart.c, the heatmap with its axes, and the line
// chart of the training curves. They draw what they are given and compute
// nothing of the model's.
export const $ = (sel) => document.querySelector(sel);
export const el = (tag, props = {}, ...kids) => {
  const e = Object.assign(document.createElement(tag), props);
  for (const k of kids) e.append(k);
  return e;
};

// printf's %.Ne and %.Nf, as demo_order prints them (JavaScript writes
// e-7 where C writes e-07).
export const fmtE = (x, d) => Number.isFinite(x)
  ? x.toExponential(d).replace(/e([+-])(\d)$/, 'e$10$2') : String(x);
export const fmtF = (x, d) => Number.isFinite(x) ? x.toFixed(d) : String(x);

// The diverging map of src/plot/chart.c (colormap), so the page's colours
// are pe_plot's: anchors at t = -1, -0.5, 0, 0.5, 1.
const ANCHOR = [[35, 60, 140], [115, 160, 210], [246, 246, 246], [225, 125, 95], [145, 15, 35]];
export function colour(t) {
  if (Number.isNaN(t)) return [160, 160, 160];
  t = Math.max(-1, Math.min(1, t));
  const s = (t + 1) * 2, i = Math.floor(s);
  if (i >= 4) return ANCHOR[4];
  const f = s - i, a = ANCHOR[i], b = ANCHOR[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f));
}
export const maxAbs = (v) => { let m = 0; for (const x of v) m = Math.max(m, Math.abs(x)); return m > 0 ? m : 1; };

// A heatmap of v (rows x cols) in a box of the canvas, with its axes, a
// title and a colour bar; returns where the cells are, for the mouse.
export function drawMap(canvas, v, rows, cols, o) {
  const g = canvas.getContext('2d');
  const W = canvas.width, H = canvas.height;
  const box = { x: 58, y: 28, w: W - 58 - 78, h: H - 28 - 46 };
  g.clearRect(0, 0, W, H);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  const img = new ImageData(cols, rows), vmax = o.vmax;
  for (let i = 0; i < rows * cols; i++) img.data.set([...colour(v[i] / vmax), 255], 4 * i);
  const off = new OffscreenCanvas(cols, rows);
  off.getContext('2d').putImageData(img, 0, 0);
  g.imageSmoothingEnabled = false;
  g.drawImage(off, box.x, box.y, box.w, box.h);
  g.strokeStyle = '#888';
  g.strokeRect(box.x - 0.5, box.y - 0.5, box.w + 1, box.h + 1);
  g.fillStyle = '#222';
  g.font = '13px system-ui, sans-serif';
  g.textAlign = 'left';
  g.fillText(o.title, box.x, 18);
  g.font = '11px system-ui, sans-serif';
  // ticks at round labels, at most about eight per axis
  const ticks = (n, first) => {
    const step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500].find((s) => n / s <= 8) || 1000;
    const out = [];
    for (let k = 0; k < n; k++) if ((k + first) % step === 0) out.push([k, k + first]);
    return out;
  };
  // o.xnames / o.ynames: a name per column / row (words), else numbers
  const names = (list) => list.map((s, k) => [k, s]);
  g.textAlign = 'center';
  for (const [k, label] of o.xnames ? names(o.xnames) : ticks(cols, o.xfirst))
    g.fillText(String(label), box.x + (k + 0.5) * box.w / cols, box.y + box.h + 14);
  g.fillText(o.xlabel, box.x + box.w / 2, box.y + box.h + 34);
  g.textAlign = 'right';
  for (const [k, label] of o.ynames ? names(o.ynames) : ticks(rows, o.yfirst))
    g.fillText(String(label), box.x - 6, box.y + (k + 0.5) * box.h / rows + 4);
  g.save();
  g.translate(14, box.y + box.h / 2);
  g.rotate(-Math.PI / 2);
  g.textAlign = 'center';
  g.fillText(o.ylabel, 0, 0);
  g.restore();
  // colour bar from -vmax to vmax, or from 0 (o.positive: weights)
  const cb = { x: box.x + box.w + 14, y: box.y, w: 14, h: box.h }, lo = o.positive ? 0 : -1;
  for (let y = 0; y < cb.h; y++) {
    g.fillStyle = `rgb(${colour(1 - (1 - lo) * y / (cb.h - 1)).join(',')})`;
    g.fillRect(cb.x, cb.y + y, cb.w, 1);
  }
  g.strokeRect(cb.x - 0.5, cb.y - 0.5, cb.w + 1, cb.h + 1);
  g.fillStyle = '#222';
  g.textAlign = 'left';
  for (const [f, val] of [[0, vmax], [0.5, (1 + lo) / 2 * vmax], [1, lo * vmax]])
    g.fillText(Number(val.toPrecision(3)).toString(), cb.x + cb.w + 4, cb.y + f * cb.h + 4);
  return { ...box, rows, cols };
}

// The cell under the mouse, or null.
export function cellAt(canvas, geo, ev) {
  if (!geo) return null;
  const r = canvas.getBoundingClientRect();
  const x = (ev.clientX - r.left) * canvas.width / r.width;
  const y = (ev.clientY - r.top) * canvas.height / r.height;
  if (x < geo.x || y < geo.y || x >= geo.x + geo.w || y >= geo.y + geo.h) return null;
  return { row: Math.floor((y - geo.y) * geo.rows / geo.h),
           col: Math.floor((x - geo.x) * geo.cols / geo.w) };
}

// Round tick values from lo to hi, about n of them.
function niceTicks(lo, hi, n) {
  const raw = (hi - lo) / n, p = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw) || 10 * p;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) out.push(v);
  return out;
}

// Line charts of several series on one pair of axes: series is a list of
// { name, colour, points: [[x, y], ...], dash, dots }, o has title, xlabel,
// ylabel, xmin, xmax, xwhole (whole-number ticks only), ymin, ymax (y
// outside is clipped) and, if wanted, marks: a
// list of [x, label] drawn as dotted vertical lines. Returns the plot box.
export function lineChart(canvas, series, o) {
  const g = canvas.getContext('2d');
  const W = canvas.width, H = canvas.height;
  const box = { x: 58, y: 28, w: W - 58 - 16, h: H - 28 - 62 };
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  const xmin = o.xmin ?? 0, xmax = Math.max(o.xmax, xmin + 1), ymin = o.ymin, ymax = o.ymax;
  const X = (x) => box.x + (x - xmin) / (xmax - xmin) * box.w;
  const Y = (y) => box.y + (1 - (Math.min(ymax, Math.max(ymin, y)) - ymin) / (ymax - ymin)) * box.h;
  g.font = '11px system-ui, sans-serif';
  g.strokeStyle = '#e4e4e4';
  g.fillStyle = '#444';
  g.textAlign = 'right';
  for (const v of niceTicks(ymin, ymax, 5)) {
    g.beginPath(); g.moveTo(box.x, Y(v) + 0.5); g.lineTo(box.x + box.w, Y(v) + 0.5); g.stroke();
    g.fillText(String(Number(v.toPrecision(3))), box.x - 6, Y(v) + 4);
  }
  g.textAlign = 'center';
  for (const v of niceTicks(xmin, xmax, 8).filter((t) => !o.xwhole || Number.isInteger(t)))
    g.fillText(String(Number(v.toPrecision(4))), X(v), box.y + box.h + 14);
  g.strokeStyle = '#888';
  g.strokeRect(box.x - 0.5, box.y - 0.5, box.w + 1, box.h + 1);
  for (const [x, label] of o.marks || []) {
    g.save();
    g.setLineDash([3, 3]);
    g.strokeStyle = '#999';
    g.beginPath(); g.moveTo(X(x) + 0.5, box.y); g.lineTo(X(x) + 0.5, box.y + box.h); g.stroke();
    g.restore();
    g.fillStyle = '#666';
    g.textAlign = 'left';
    g.fillText(label, X(x) + 4, box.y + 12);
  }
  g.fillStyle = '#222';
  g.font = '13px system-ui, sans-serif';
  g.textAlign = 'left';
  g.fillText(o.title, box.x, 18);
  g.font = '11px system-ui, sans-serif';
  g.textAlign = 'center';
  g.fillText(o.xlabel, box.x + box.w / 2, box.y + box.h + 30);
  g.save();
  g.translate(14, box.y + box.h / 2);
  g.rotate(-Math.PI / 2);
  g.fillText(o.ylabel, 0, 0);
  g.restore();
  g.save();
  g.beginPath();
  g.rect(box.x, box.y, box.w, box.h);
  g.clip();
  for (const s of series) {
    g.strokeStyle = s.colour;
    g.lineWidth = 2;
    g.setLineDash(s.dash || []);
    g.beginPath();
    s.points.forEach(([x, y], i) => (i ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y))));
    g.stroke();
    if (s.dots || s.points.length === 1) {
      g.fillStyle = s.colour;
      for (const [x, y] of s.points) g.fillRect(X(x) - 2.5, Y(y) - 2.5, 5, 5);
    }
  }
  g.restore();
  // the legend, in a row under the axis label
  let lx = box.x;
  g.textAlign = 'left';
  for (const s of series) {
    if (!s.name) continue;
    g.strokeStyle = s.colour;
    g.lineWidth = 2;
    g.setLineDash(s.dash || []);
    g.beginPath(); g.moveTo(lx, H - 10); g.lineTo(lx + 18, H - 10); g.stroke();
    g.setLineDash([]);
    g.lineWidth = 1;
    g.fillStyle = '#222';
    g.fillText(s.name, lx + 22, H - 6);
    lx += 30 + g.measureText(s.name).width;
  }
  return box;
}

// The plane of one pair of channels, (x, y) = (channel a, channel b): axes
// through the origin, circles about it ({ r, colour }), and arrows from it
// ({ x, y, colour, dash, label }), scaled so that the longest fits. o has
// title, xlabel and ylabel.
export function pairPlot(canvas, arrows, circles, o) {
  const g = canvas.getContext('2d'), W = canvas.width, H = canvas.height;
  const side = Math.min(W - 40, H - 70), cx = W / 2, cy = 40 + side / 2;
  const reach = Math.max(1e-9, ...arrows.map((a) => Math.hypot(a.x, a.y)), ...circles.map((c) => c.r));
  const px = side / 2 / (1.12 * reach);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  g.fillStyle = '#222';
  g.font = '13px system-ui, sans-serif';
  g.textAlign = 'left';
  g.fillText(o.title, 10, 18);
  g.strokeStyle = '#ccc';
  g.lineWidth = 1;
  g.setLineDash([]);
  g.beginPath();
  g.moveTo(cx - side / 2, cy + 0.5); g.lineTo(cx + side / 2, cy + 0.5);
  g.moveTo(cx + 0.5, cy - side / 2); g.lineTo(cx + 0.5, cy + side / 2);
  g.stroke();
  g.font = '11px system-ui, sans-serif';
  g.fillStyle = '#666';
  g.textAlign = 'right';
  g.fillText(o.xlabel, cx + side / 2, cy + 14);
  g.textAlign = 'left';
  g.fillText(o.ylabel, cx + 4, cy - side / 2 + 10);
  for (const c of circles) {
    g.strokeStyle = c.colour;
    g.setLineDash([2, 3]);
    g.beginPath();
    g.arc(cx, cy, c.r * px, 0, 2 * Math.PI);
    g.stroke();
  }
  g.font = '12px system-ui, sans-serif';
  for (const a of arrows) {
    const x = cx + a.x * px, y = cy - a.y * px, t = Math.atan2(y - cy, x - cx);
    g.strokeStyle = g.fillStyle = a.colour;
    g.lineWidth = a.width || 2;
    g.setLineDash(a.dash || []);
    g.beginPath(); g.moveTo(cx, cy); g.lineTo(x, y); g.stroke();
    g.setLineDash([]);
    g.beginPath();
    g.moveTo(x, y);
    g.lineTo(x - 9 * Math.cos(t - 0.4), y - 9 * Math.sin(t - 0.4));
    g.lineTo(x - 9 * Math.cos(t + 0.4), y - 9 * Math.sin(t + 0.4));
    g.fill();
    if (a.label) g.fillText(a.label, x + 5 * Math.cos(t) + 3, y + 5 * Math.sin(t) + 4);
  }
  g.lineWidth = 1;
}
