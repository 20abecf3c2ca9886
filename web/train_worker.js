// The page's trainer (section 5): a Web Worker with its own instance of
// the WebAssembly module, so that training never holds up the page. It
// answers train.js's messages by calling web/posenc_train.c: a run goes a
// few steps at a time (about 40 ms of work), a progress message after
// each, so that Stop is heard between two calls and the page can draw.
// Every reply carries the id of the request it answers.
import createPosenc from './posenc.js';

const S = 'string', N = 'number';
let M = null, api = null;
const queue = [];  // messages that came before the module was ready
let stopAsked = false;

const TRAINED_DIR = '/trained', OPENED_DIR = '/opened';

async function start() {
  M = await createPosenc();
  const w = (name, ret, args) => M.cwrap(name, ret, args);
  api = {
    error: w('pw_error', S, []),
    schemeCount: w('pw_scheme_count', N, []),
    schemeName: w('pw_scheme_name', S, [N]),
    taskAbout: w('pw_task_about', S, [S]),
    begin: w('pw_train_begin', N, [S]),
    advance: w('pw_train_advance', N, [N]),
    step: w('pw_train_step', N, []),
    steps: w('pw_train_steps', N, []),
    done: w('pw_train_done', N, []),
    loss: w('pw_train_loss', N, []),
    accuracy: w('pw_train_accuracy', N, []),
    windowLoss: w('pw_train_window_loss', N, []),
    windowAccuracy: w('pw_train_window_accuracy', N, []),
    evaluated: w('pw_train_evaluated', N, []),
    validAccuracy: w('pw_train_valid_accuracy', N, []),
    firstValid: w('pw_train_first_valid', N, []),
    validLoss: w('pw_train_valid_loss', N, []),
    keptChanged: w('pw_train_kept_changed', N, []),
    keptStep: w('pw_train_kept_step', N, []),
    seconds: w('pw_train_seconds', N, []),
    tokensPerSecond: w('pw_train_tokens_per_second', N, []),
    describe: w('pw_train_describe', S, []),
    finish: w('pw_train_finish', N, [S]),
    lastValid: w('pw_train_last_valid', N, []),
    lastTest: w('pw_train_last_test', N, []),
    keptValid: w('pw_train_kept_valid', N, []),
    keptTest: w('pw_train_kept_test', N, []),
    reset: w('pw_train_reset', null, []),
    open: w('pw_model_open', N, [S]),
    about: w('pw_model_about', S, []),
    task: w('pw_model_task', S, []),
    layers: w('pw_model_layers', N, []),
    heads: w('pw_model_heads', N, []),
    perToken: w('pw_model_per_token', N, []),
    attention: w('pw_model_attention', N, [S]),
    attWords: w('pw_attention_words', N, []),
    attWord: w('pw_attention_word', S, [N]),
    attUnknown: w('pw_attention_unknown', N, []),
    attWeights: w('pw_attention_weights', N, []),
    attAnswer: w('pw_attention_answer', S, [N]),
    lengths: w('pw_model_lengths', N, [S]),
    lengthsMax: w('pw_lengths_max', N, []),
    lengthsTrained: w('pw_lengths_trained', N, []),
    lengthsExamples: w('pw_lengths_examples', N, [N]),
    lengthsAccuracy: w('pw_lengths_accuracy', N, [N]),
    lengthsTotal: w('pw_lengths_total', N, []),
    order: w('pw_model_order', N, [S, S]),
    orderMaxDiff: w('pw_model_order_max_diff', N, []),
    orderCosine: w('pw_model_order_cosine', N, []),
    orderVerdict: w('pw_model_order_verdict', S, []),
    orderAnswer: w('pw_model_order_answer', S, [N]),
    fieldCount: w('pw_field_count', N, []),
    fieldFlag: w('pw_field_flag', S, [N]),
    fieldGroup: w('pw_field_group', S, [N]),
    fieldKind: w('pw_field_kind', S, [N]),
    fieldHelp: w('pw_field_help', S, [N]),
    fieldDefault: w('pw_field_default', S, [N]),
    fieldInitial: w('pw_field_initial', S, [N]),
    fieldChoice: w('pw_field_choice', S, [N, N]),
    optionCount: w('pw_option_count', N, []),
    optionFlag: w('pw_option_flag', S, [N]),
    optionKind: w('pw_option_kind', S, [N]),
    optionHelp: w('pw_option_help', S, [N]),
    optionDefault: w('pw_option_default', S, [N]),
    optionLo: w('pw_option_lo', N, [N]),
    optionHi: w('pw_option_hi', N, [N]),
    optionChoice: w('pw_option_choice', S, [N, N]),
    optionCombine: w('pw_option_combine', N, []),
    optionRead: w('pw_option_read', N, [N, N, S]),
    compareTicked: w('pw_compare_ticked', N, [N]),
  };
  M.FS.mkdir(TRAINED_DIR);
  M.FS.mkdir(OPENED_DIR);
  // A checkpoint opened is named by its own file name in the loader's
  // messages, as build/evaluate names the path it is given.
  M.FS.chdir(OPENED_DIR);
  postMessage({ type: 'ready', ...form() });
  while (queue.length) await handle(queue.shift());
}

// build/train's options as the form shows them, all from the C: the
// fields (task, model, training), the scheme options of the registry, and
// which options each scheme reads under each --combine ('' not given).
function form() {
  const list = (get) => {
    const out = [];
    for (let j = 0; get(j); j++) out.push(get(j));
    return out;
  };
  const schemes = Array.from({ length: api.schemeCount() }, (_, i) => api.schemeName(i));
  const fields = Array.from({ length: api.fieldCount() }, (_, i) => ({
    flag: api.fieldFlag(i), group: api.fieldGroup(i), kind: api.fieldKind(i), help: api.fieldHelp(i),
    def: api.fieldDefault(i), initial: api.fieldInitial(i), choices: list((j) => api.fieldChoice(i, j)),
  }));
  const options = Array.from({ length: api.optionCount() }, (_, i) => ({
    flag: api.optionFlag(i), kind: api.optionKind(i), help: api.optionHelp(i), def: api.optionDefault(i),
    lo: api.optionLo(i), hi: api.optionHi(i), choices: list((j) => api.optionChoice(i, j)), initial: '',
  }));
  const combine = api.optionCombine();
  const reads = schemes.map((_, s) => Object.fromEntries(['', ...options[combine].choices].map((c) =>
    [c, options.map((_, i) => Boolean(api.optionRead(s, i, c)))])));
  return {
    schemes, fields, options, combine, reads,
    ticked: schemes.map((_, s) => Boolean(api.compareTicked(s))),
    tasks: fields.find((f) => f.kind === 'task').choices.map((name) => ({ name, about: api.taskAbout(name) })),
  };
}

onmessage = (ev) => {
  if (ev.data.type === 'stop') { stopAsked = true; return; }
  if (!api) queue.push(ev.data);
  else handle(ev.data);
};

const reply = (id, body) => postMessage({ id, ...body });
const fail = (id) => reply(id, { type: 'error', message: api.error() });
const idle = () => new Promise((r) => setTimeout(r, 0));

// The model now open (trained or opened): what the page says about it.
function modelInfo(path) {
  return { about: api.about(), task: api.task(), layers: api.layers(), heads: api.heads(),
           perToken: Boolean(api.perToken()), path };
}

let modelPath = null;  // the file of the model open, for Download

// o: { scheme, args }: build/train's arguments, as the form made them.
async function train(id, o) {
  stopAsked = false;
  if (api.begin(o.args.join('\n'))) return fail(id);
  reply(id, { type: 'started', describe: api.describe(), steps: api.steps(),
              firstValid: api.firstValid() });
  let chunk = 1;
  while (!api.done() && !stopAsked) {
    const t0 = performance.now();
    if (api.advance(chunk)) return fail(id);
    const ms = performance.now() - t0, step = api.step();
    const p = {
      type: 'progress', step, steps: api.steps(), loss: api.loss(), accuracy: api.accuracy(),
      windowLoss: api.windowLoss(), windowAccuracy: api.windowAccuracy(),
      seconds: api.seconds(), tokensPerSecond: api.tokensPerSecond(),
    };
    if (api.evaluated()) {
      Object.assign(p, { validAccuracy: api.validAccuracy(), validLoss: api.validLoss(),
                         keptChanged: Boolean(api.keptChanged()), keptStep: api.keptStep() });
    }
    reply(id, p);
    // about 40 ms of work per call: often enough for Stop, few enough calls
    const per = ms / Math.max(1, chunk);
    chunk = Math.max(1, Math.min(200, Math.round(40 / Math.max(per, 0.01))));
    await idle();
  }
  const path = `${TRAINED_DIR}/${o.scheme}.ckpt`;
  if (api.finish(path)) return fail(id);
  modelPath = path;
  reply(id, {
    type: 'trained', stopped: stopAsked, step: api.step(), steps: api.steps(),
    keptStep: api.keptStep(), seconds: api.seconds(), tokensPerSecond: api.tokensPerSecond(),
    lastValid: api.lastValid(), lastTest: api.lastTest(), keptValid: api.keptValid(),
    keptTest: api.keptTest(), model: modelInfo(path),
  });
}

async function handle(m) {
  const id = m.id;
  switch (m.type) {
    case 'train':
      return train(id, m.options);
    case 'reset':
      api.reset();
      return reply(id, { type: 'reset' });
    case 'open': {
      // the file's own name (no directory part), as the loader will say it
      const name = (m.name.split(/[\\/]/).pop() || 'checkpoint').replace(/^\.+/, '_');
      M.FS.writeFile(`${OPENED_DIR}/${name}`, new Uint8Array(m.bytes));
      const rc = api.open(name);
      M.FS.unlink(`${OPENED_DIR}/${name}`);
      if (rc) return fail(id);
      // kept for Download: the bytes as they came
      const path = `${TRAINED_DIR}/opened.ckpt`;
      M.FS.writeFile(path, new Uint8Array(m.bytes));
      modelPath = path;
      return reply(id, { type: 'opened', model: modelInfo(name) });
    }
    case 'download':
      if (!modelPath) return reply(id, { type: 'error', message: 'no model to download' });
      return reply(id, { type: 'bytes', bytes: M.FS.readFile(modelPath).buffer });
    case 'attention': {
      if (api.attention(m.sentence)) return fail(id);
      const n = api.attWords(), L = api.layers(), H = api.heads();
      const ptr = api.attWeights() >> 2;
      const weights = M.HEAPF32.slice(ptr, ptr + L * H * n * n);
      const slots = api.perToken() ? n : 1;
      return reply(id, {
        type: 'attention', n, layers: L, heads: H, weights,
        words: Array.from({ length: n }, (_, i) => api.attWord(i)),
        answers: Array.from({ length: slots }, (_, i) => api.attAnswer(i)),
        unknown: api.attUnknown(),
      });
    }
    case 'lengths': {
      if (api.lengths(m.maxLen)) return fail(id);
      const rows = [];
      for (let len = 1; len <= api.lengthsMax(); len++) {
        const n = api.lengthsExamples(len);
        if (n) rows.push({ len, examples: n, accuracy: api.lengthsAccuracy(len) });
      }
      return reply(id, { type: 'lengths', rows, trained: api.lengthsTrained(),
                         total: api.lengthsTotal() });
    }
    case 'order':
      if (api.order(m.s1, m.s2)) return fail(id);
      return reply(id, { type: 'order', maxDiff: api.orderMaxDiff(), cosine: api.orderCosine(),
                         verdict: api.orderVerdict(),
                         answers: [api.orderAnswer(0), api.orderAnswer(1)] });
    default:
      return reply(id, { type: 'error', message: `unknown request ${m.type}` });
  }
}

start().catch((e) => postMessage({ type: 'failed', message: String(e) }));
