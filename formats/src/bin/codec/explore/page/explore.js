// codec explore: the page. Plain DOM, no framework, no build step. The
// server does the reading and writing; the page draws the rows of hex in
// view only, loads the tree one level at a time, and links the two.
'use strict';

const ROW = 18;          // pixels per hex row
const WIDTH = 16;        // bytes per row
const MAX_PX = 15e6;     // tallest scroll area drawn; longer files scale

const $ = (id) => document.getElementById(id);
const state = {
  id: 0, doc: null, bytes: new Uint8Array(0), runs: [], changed: [],
  sel: null,            // {start, end, key}
  nodes: new Map(),     // key -> node json
  docRows: new Map(),   // key -> document entry json
  firstPaint: false,
};

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body),
  };
  const r = await fetch('api/' + path, opts);
  const ct = r.headers.get('content-type') || '';
  const data = ct.includes('json') ? await r.json() : await r.arrayBuffer();
  return {ok: r.ok, status: r.status, data};
}

function status(text, kind) {
  const s = $('status');
  s.textContent = text || '';
  s.className = kind || '';
}

// ---- documents -----------------------------------------------------------

async function loadDocs(select) {
  const {data} = await api('docs');
  const sel = $('docs');
  sel.innerHTML = '';
  for (const d of data) {
    const o = document.createElement('option');
    o.value = d.id;
    o.textContent = (d.dirty ? '● ' : '') + d.label;
    sel.appendChild(o);
  }
  sel.value = String(select);
}

async function openDoc(id, keepKey) {
  state.id = id;
  const [{data: doc}, {data: bytes}] = await Promise.all([api('doc/' + id), api('bytes/' + id)]);
  state.doc = doc;
  state.bytes = new Uint8Array(bytes);
  state.runs = doc.runs;
  state.changed = doc.changed || [];
  state.nodes.clear();
  state.docRows.clear();
  $('doc-info').textContent = docInfo(doc);
  $('members-box').hidden = !doc.members.length;
  const ul = $('members');
  ul.innerHTML = '';
  for (const m of doc.members) {
    const li = document.createElement('li');
    li.textContent = m;
    li.dataset.member = m;
    li.onclick = () => openMember(m);
    ul.appendChild(li);
  }
  layoutHex();
  if (doc.pending) {
    // The server is still reading the tree: the bytes first, the tree after.
    $('tree').innerHTML = '<div class="muted">reading the file…</div>';
    $('document').innerHTML = '<div class="muted">reading the file…</div>';
    firstPaint();
    while (state.doc.pending) {
      await new Promise((r) => setTimeout(r, 150));
      if (state.id !== id) return;
      const {data: again} = await api('doc/' + id);
      state.doc = again;
      state.runs = again.runs;
      $('doc-info').textContent = docInfo(again);
    }
    renderHex();
  }
  await Promise.all([drawTree(state.doc), drawDocument(state.doc)]);
  firstPaint();
  if (!window.codecTreeReady) window.codecTreeReady = performance.now();
  if (state.doc.error) status('decode error ' + state.doc.error, 'error');
  if (keepKey) await reveal(prefixes(keepKey));
  else { state.sel = null; showDetail(null); renderHex(); }
  loadSchema();
}

function docInfo(doc) {
  return `${doc.size} bytes · ${doc.format || 'no built-in format'} · ` +
    (doc.read_only || 'editable');
}

// The first time the page shows a file (its bytes, and its tree or a note
// that the tree is on its way).
function firstPaint() {
  if (state.firstPaint) return;
  state.firstPaint = true;
  window.codecFirstPaint = performance.now();
  console.log('first paint after', Math.round(window.codecFirstPaint), 'ms');
}

async function openMember(name) {
  const r = await api('member/' + state.id, {name});
  if (!r.ok) return status(r.data.error, 'error');
  await loadDocs(r.data.id);
  await openDoc(r.data.id);
}

// ---- document --------------------------------------------------------------
// The document as the text form names it (`param_root.objects.Def.Name`):
// each entry is a node of the structure tree (its key), so a click shows
// the same bytes.

async function drawDocument(doc) {
  const box = $('document');
  box.innerHTML = '';
  if (!doc.root) { box.textContent = 'No schema reads this file.'; return; }
  const {data} = await api(`document/${state.id}?at=`);
  for (const e of data) box.appendChild(docEl(e, 0));
  if (!data.length) box.innerHTML = '<div class="muted">nothing the writer does not derive</div>';
}

function docEl(e, depth) {
  state.docRows.set(e.key, e);
  const el = document.createElement('div');
  el.className = 'node';
  el.dataset.key = e.key;
  const line = document.createElement('div');
  line.className = 'line';
  line.style.setProperty('--d', depth);
  line.title = `${e.docpath}\n${e.path}\n0x${e.offset.toString(16)} · ${e.size} bytes · ${e.type}`;
  const tog = document.createElement('span');
  tog.className = 'tog';
  tog.textContent = e.kids ? '▸' : ' ';
  line.appendChild(tog);
  const name = document.createElement('span');
  name.className = 'name';
  name.textContent = e.segment;
  line.appendChild(name);
  if (e.value !== null && e.value !== undefined) {
    const v = document.createElement('span');
    v.className = 'val';
    v.textContent = '= ' + e.value;
    line.appendChild(v);
  }
  el.appendChild(line);
  tog.onclick = (ev) => { ev.stopPropagation(); toggleDoc(el); };
  line.onclick = () => selectDoc(e.key);
  line.ondblclick = () => toggleDoc(el);
  return el;
}

async function expandDoc(el) {
  const e = state.docRows.get(el.dataset.key);
  if (!e || !e.kids || el.querySelector(':scope > .kids')) return;
  const {data} = await api(`document/${state.id}?at=${encodeURIComponent(e.key)}`);
  const kids = document.createElement('div');
  kids.className = 'kids';
  const depth = Number(el.querySelector(':scope > .line').style.getPropertyValue('--d')) + 1;
  for (const c of data) kids.appendChild(docEl(c, depth));
  el.appendChild(kids);
  el.querySelector(':scope > .line .tog').textContent = '▾';
}

function toggleDoc(el) {
  const kids = el.querySelector(':scope > .kids');
  if (kids) {
    kids.remove();
    el.querySelector(':scope > .line .tog').textContent = '▸';
  } else {
    expandDoc(el);
  }
}

function docElOf(key) {
  return document.querySelector(`#document .node[data-key="${CSS.escape(key)}"]`);
}

// Marks the document row of `key`, if it is shown.
function markDoc(key) {
  document.querySelectorAll('#document .line.sel').forEach((l) => l.classList.remove('sel'));
  const el = docElOf(key);
  if (!el) return;
  const line = el.querySelector(':scope > .line');
  line.classList.add('sel');
  line.scrollIntoView({block: 'nearest'});
}

// Opens the document along `chain` (entry keys, outermost first).
async function revealDoc(chain) {
  if (!chain) return;
  for (const key of chain.slice(0, -1)) {
    const el = docElOf(key);
    if (!el) break;
    await expandDoc(el);
  }
  if (chain.length) markDoc(chain[chain.length - 1]);
}

// A document entry clicked: its field in the structure tree, its bytes.
async function selectDoc(key) {
  const e = state.docRows.get(key);
  await reveal(prefixes(key));
  if (!state.nodes.has(key) && e) {
    // An element of a list of numbers: shown from the entry itself.
    state.nodes.set(key, e);
    select(key, true);
  }
  markDoc(key);
}

function prefixes(key) {
  return key.split('.').map((_, i, a) => a.slice(0, i + 1).join('.'));
}

// ---- tree ----------------------------------------------------------------

async function drawTree(doc) {
  const tree = $('tree');
  tree.innerHTML = '';
  if (!doc.root) { tree.textContent = 'No schema reads this file.'; return; }
  const root = nodeEl(doc.root, 0);
  tree.appendChild(root);
  await expand(root);
}

function nodeEl(n, depth) {
  state.nodes.set(n.key, n);
  const el = document.createElement('div');
  el.className = 'node' + (n.unknown ? ' unk' : '');
  el.dataset.key = n.key;
  const line = document.createElement('div');
  line.className = 'line';
  line.style.setProperty('--d', depth);
  line.title = `${n.path}\n0x${n.offset.toString(16)} · ${n.size} bytes · ${n.type}` +
    (n.doc ? '\n' + n.doc : '');
  const tog = document.createElement('span');
  tog.className = 'tog';
  tog.textContent = n.kids ? '▸' : ' ';
  line.appendChild(tog);
  const name = document.createElement('span');
  name.className = 'name';
  name.textContent = n.name;
  line.appendChild(name);
  const ty = document.createElement('span');
  ty.className = 'ty';
  ty.textContent = n.type;
  line.appendChild(ty);
  if (n.value !== null && n.value !== undefined) {
    const v = document.createElement('span');
    v.className = 'val';
    v.textContent = n.value;
    line.appendChild(v);
  }
  if (n.note) {
    const v = document.createElement('span');
    v.className = 'note';
    v.textContent = n.note;
    line.appendChild(v);
  }
  el.appendChild(line);
  tog.onclick = (e) => { e.stopPropagation(); toggle(el); };
  line.onclick = () => select(n.key, true);
  line.ondblclick = () => toggle(el);
  return el;
}

async function expand(el) {
  const n = state.nodes.get(el.dataset.key);
  if (!n || !n.kids || el.querySelector(':scope > .kids')) return;
  const {data} = await api(`children/${state.id}?at=${encodeURIComponent(n.key)}`);
  const kids = document.createElement('div');
  kids.className = 'kids';
  const depth = n.key === '' ? 1 : n.key.split('.').length + 1;
  for (const c of data) kids.appendChild(nodeEl(c, depth));
  el.appendChild(kids);
  el.querySelector(':scope > .line .tog').textContent = '▾';
}

function toggle(el) {
  const kids = el.querySelector(':scope > .kids');
  if (kids) {
    kids.remove();
    el.querySelector(':scope > .line .tog').textContent = '▸';
  } else {
    expand(el);
  }
}

function nodeElOf(key) {
  return document.querySelector(`#tree .node[data-key="${CSS.escape(key)}"]`);
}

// Expands the tree along `chain` (keys, outermost first) and selects the last.
async function reveal(chain) {
  let parent = nodeElOf('');
  if (parent) await expand(parent);
  for (const key of chain) {
    const el = nodeElOf(key);
    if (!el) break;
    if (key !== chain[chain.length - 1]) await expand(el);
  }
  const last = chain[chain.length - 1];
  if (last !== undefined && state.nodes.has(last)) select(last, true);
}

function select(key, scroll) {
  const n = state.nodes.get(key);
  if (!n) return;
  document.querySelectorAll('#tree .line.sel').forEach((l) => l.classList.remove('sel'));
  const el = nodeElOf(key);
  if (el) {
    const line = el.querySelector(':scope > .line');
    line.classList.add('sel');
    line.scrollIntoView({block: 'nearest'});
  }
  state.sel = {start: n.offset, end: n.offset + n.size, key};
  $('hex-pane').dataset.sel = `${state.sel.start}-${state.sel.end}`;
  $('tree-pane').dataset.selected = n.path;
  $('doc-pane').dataset.selected = n.docpath || '';
  markDoc(key);
  showDetail(n);
  if (scroll) scrollHexTo(n.offset);
  renderHex();
}

function showDetail(n) {
  const d = $('detail');
  d.innerHTML = '';
  const box = $('edit-box');
  if (!n) {
    d.innerHTML = '<div class="muted">Click a field or a byte.</div>';
    box.hidden = true;
    return;
  }
  const path = document.createElement('input');
  path.className = 'path';
  path.id = 'detail-path';
  path.readOnly = true;
  path.value = n.path;
  path.title = 'the field path, as errors print it (select to copy)';
  path.onfocus = () => path.select();
  d.appendChild(path);
  if (n.docpath) {
    const dp = document.createElement('input');
    dp.className = 'path';
    dp.id = 'detail-doc';
    dp.readOnly = true;
    dp.value = n.docpath;
    dp.title = 'the document path, as the text form names it (select to copy)';
    dp.onfocus = () => dp.select();
    d.appendChild(dp);
  }
  const info = document.createElement('div');
  info.textContent = `offset 0x${n.offset.toString(16)} (${n.offset}) · ${n.size} bytes · ${n.type}`;
  d.appendChild(info);
  if (n.doc) {
    const doc = document.createElement('div');
    doc.className = 'doc';
    doc.textContent = n.doc;
    d.appendChild(doc);
  }
  const editable = n.edit && !state.doc.read_only;
  box.hidden = !editable;
  if (editable) {
    $('edit-value').value = n.raw ?? '';
    $('edit-value').dataset.key = n.key;
  } else if (n.edit && state.doc.read_only) {
    const ro = document.createElement('div');
    ro.className = 'muted';
    ro.textContent = state.doc.read_only;
    d.appendChild(ro);
  }
}

async function applyEdit() {
  const input = $('edit-value');
  const key = input.dataset.key;
  const r = await api('edit/' + state.id, {at: key, value: input.value});
  if (!r.ok) return status(r.data.error, 'error');
  const n = r.data.changed.reduce((s, [a, b]) => s + (b - a), 0);
  await loadDocs(state.id);
  await openDoc(state.id, key);
  state.changed = r.data.changed;
  renderHex();
  status(`written by the ${state.doc.format} writer: ${n} bytes changed in ` +
    `${r.data.changed.length} range(s)`, 'ok');
}

// ---- hex -----------------------------------------------------------------

function rows() { return Math.ceil(state.bytes.length / WIDTH); }

function layoutHex() {
  $('hex-spacer').style.height = Math.min(rows() * ROW, MAX_PX) + 'px';
  renderHex();
}

// The first row shown for the scroll position (scaled past MAX_PX).
function firstRow() {
  const sc = $('hex-scroll');
  const total = rows() * ROW;
  if (total <= MAX_PX) return Math.floor(sc.scrollTop / ROW);
  const frac = sc.scrollTop / Math.max(1, MAX_PX - sc.clientHeight);
  return Math.floor(frac * Math.max(0, rows() - Math.floor(sc.clientHeight / ROW)));
}

function scrollHexTo(offset) {
  const sc = $('hex-scroll');
  const row = Math.floor(offset / WIDTH);
  const shown = Math.floor(sc.clientHeight / ROW);
  const first = firstRow();
  if (row >= first && row < first + shown - 1) return;
  const want = Math.max(0, row - Math.floor(shown / 3));
  const total = rows() * ROW;
  sc.scrollTop = total <= MAX_PX ? want * ROW
    : want / Math.max(1, rows() - shown) * (MAX_PX - sc.clientHeight);
  renderHex();
}

// The coverage class of byte `o` (runs are [from, to, class] flattened).
function classOf(o) {
  const r = state.runs;
  let lo = 0, hi = r.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (o < r[mid * 3]) hi = mid - 1;
    else if (o >= r[mid * 3 + 1]) lo = mid + 1;
    else return r[mid * 3 + 2];
  }
  return 3;
}

function isChanged(o) {
  for (const [a, b] of state.changed) if (o >= a && o < b) return true;
  return false;
}

function renderHex() {
  const sc = $('hex-scroll');
  const out = $('hex-rows');
  const first = firstRow();
  const shown = Math.ceil(sc.clientHeight / ROW) + 1;
  const total = rows() * ROW;
  const top = total <= MAX_PX ? first * ROW : sc.scrollTop;
  const sel = state.sel;
  const frag = document.createDocumentFragment();
  for (let r = first; r < Math.min(rows(), first + shown); r++) {
    const div = document.createElement('div');
    div.className = 'row';
    div.style.top = (top + (r - first) * ROW) + 'px';
    const off = document.createElement('span');
    off.className = 'off';
    off.textContent = (r * WIDTH).toString(16).padStart(8, '0');
    div.appendChild(off);
    const asc = document.createElement('span');
    asc.className = 'asc';
    for (let i = 0; i < WIDTH; i++) {
      const o = r * WIDTH + i;
      const b = document.createElement('b');
      const a = document.createElement('i');
      if (o < state.bytes.length) {
        const x = state.bytes[o];
        b.textContent = x.toString(16).padStart(2, '0');
        a.textContent = x >= 0x20 && x < 0x7f ? String.fromCharCode(x) : '.';
        let cls = 'c' + classOf(o);
        if (isChanged(o)) cls += ' chg';
        if (sel && o >= sel.start && o < sel.end) cls += ' sel';
        b.className = a.className = cls;
        b.dataset.o = a.dataset.o = o;
      } else {
        b.textContent = '  ';
        a.textContent = ' ';
      }
      div.appendChild(b);
      asc.appendChild(a);
    }
    div.appendChild(asc);
    frag.appendChild(div);
  }
  out.replaceChildren(frag);
}

async function clickByte(o) {
  const {data} = await api(`owner/${state.id}?offset=${o}`);
  if (!data.chain) {
    state.sel = {start: o, end: o + 1, key: null};
    $('hex-pane').dataset.sel = `${o}-${o + 1}`;
    showDetail(null);
    renderHex();
    return status(`no field owns byte 0x${o.toString(16)}`);
  }
  await reveal(data.chain);
  await revealDoc(data.doc_chain);
  status('');
}

function nextGap() {
  const from = state.sel ? state.sel.end : 0;
  const r = state.runs;
  for (let i = 0; i < r.length; i += 3) {
    if (r[i + 2] === 3 && r[i + 1] > from) {
      const start = Math.max(r[i], from);
      state.sel = {start, end: r[i + 1], key: null};
      $('hex-pane').dataset.sel = `${start}-${r[i + 1]}`;
      scrollHexTo(start);
      renderHex();
      return status(`unexplained: 0x${start.toString(16)}..0x${r[i + 1].toString(16)} ` +
        `(${r[i + 1] - start} bytes)`);
    }
  }
  status('no unexplained bytes after this point', 'ok');
}

// ---- schema --------------------------------------------------------------

async function loadSchema() {
  const {data} = await api('schema/' + state.id);
  $('schema-file').textContent = data.file;
  if (document.activeElement !== $('schema')) $('schema').value = data.text;
  $('diags').innerHTML = '';
}

let schemaTimer = null;
function schemaEdited() {
  clearTimeout(schemaTimer);
  schemaTimer = setTimeout(async () => {
    const r = await api('schema/' + state.id, {text: $('schema').value});
    const ul = $('diags');
    ul.innerHTML = '';
    const diags = r.data.diagnostics || [];
    for (const d of diags) {
      const li = document.createElement('li');
      li.textContent = `${d.line}:${d.col}: ${d.item ? d.item + ': ' : ''}${d.message}` +
        (d.hint ? ` (hint: ${d.hint})` : '');
      li.onclick = () => goToLine(d.line, d.col);
      ul.appendChild(li);
    }
    if (diags.length) return status(`the schema does not check (${diags.length})`, 'error');
    const {data: doc} = await api('doc/' + state.id);
    state.doc = doc;
    state.runs = doc.runs;
    state.nodes.clear();
    state.docRows.clear();
    await Promise.all([drawTree(doc), drawDocument(doc)]);
    renderHex();
    $('doc-info').textContent = docInfo(doc);
    status(doc.error ? 'decode error ' + doc.error : 're-read with the edited schema',
      doc.error ? 'error' : 'ok');
  }, 350);
}

function goToLine(line, col) {
  const ta = $('schema');
  const lines = ta.value.split('\n');
  let pos = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
  pos += Math.max(0, col - 1);
  ta.focus();
  ta.setSelectionRange(pos, pos + 1);
}

// ---- search and save -----------------------------------------------------

let searchTimer = null;
function searched() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    const q = $('search').value.trim();
    const box = $('results-box');
    const ul = $('results');
    ul.innerHTML = '';
    if (!q) { box.hidden = true; return; }
    const {data} = await api(`search/${state.id}?q=${encodeURIComponent(q)}`);
    box.hidden = false;
    for (const hit of data) {
      const li = document.createElement('li');
      li.textContent = `${hit.docpath || hit.path}${hit.value ? ' = ' + hit.value : ''}`;
      li.title = hit.path;
      li.onclick = async () => {
        await revealDoc(hit.doc_chain);
        await reveal(prefixes(hit.key));
        markDoc(hit.doc_chain && hit.doc_chain.length ? hit.doc_chain[hit.doc_chain.length - 1] : hit.key);
      };
      ul.appendChild(li);
    }
    if (!data.length) ul.innerHTML = '<li class="muted">nothing</li>';
  }, 250);
}

async function save(overwrite) {
  const name = $('save-name').value.trim();
  if (!name) return status('type a file name to save as', 'error');
  const r = await api('save/' + state.id, {name, overwrite});
  $('save-replace').hidden = true;
  if (r.status === 409 && r.data.exists) {
    $('save-replace').hidden = false;
    return status(r.data.error + ': press "replace it" to write over it', 'error');
  }
  if (!r.ok) return status(r.data.error, 'error');
  status(`saved ${r.data.written} (${r.data.size} bytes)`, 'ok');
}

// ---- start ---------------------------------------------------------------

window.addEventListener('DOMContentLoaded', async () => {
  $('hex-scroll').addEventListener('scroll', () => requestAnimationFrame(renderHex));
  window.addEventListener('resize', () => renderHex());
  $('hex-rows').addEventListener('click', (e) => {
    const o = e.target.dataset && e.target.dataset.o;
    if (o !== undefined) clickByte(Number(o));
  });
  $('docs').onchange = () => openDoc(Number($('docs').value));
  $('edit-apply').onclick = applyEdit;
  $('edit-value').addEventListener('keydown', (e) => { if (e.key === 'Enter') applyEdit(); });
  $('schema').addEventListener('input', schemaEdited);
  $('search').addEventListener('input', searched);
  $('next-gap').onclick = nextGap;
  $('save').onclick = () => save(false);
  $('save-replace').onclick = () => save(true);
  await loadDocs(0);
  await openDoc(0);
});
