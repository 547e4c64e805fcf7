// The console page's script, served as is (no build step). It renders the state the server
// pushes on /api/events and sends the operator's pause and resume requests to /api.
const SVG = 'http://www.w3.org/2000/svg';
const NODE_WIDTH = 190;
const NODE_HEIGHT = 74;

let state = null;
/** Server time minus this browser's: countdowns use the server's clock. */
let clockOffset = 0;

/** An HTML element; attributes starting with `on` are listeners, children strings become text. */
function h(tag, attributes = {}, ...children) {
  return build(document.createElement(tag), attributes, children);
}

function s(tag, attributes = {}, ...children) {
  return build(document.createElementNS(SVG, tag), attributes, children);
}

function build(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    // A handler property, not a listener: an update in place hands it to the element kept.
    if (name.startsWith('on')) element[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) element.append(child);
  }
  return element;
}

const rate = (n) => `${n.toFixed(1)} msg/s`;
const count = (n) => n.toLocaleString('en');
/** -1: nothing committed yet. */
const offset = (n) => (n < 0 ? 'none' : count(n));
const serverNow = () => Date.now() + clockOffset;

function ago(at) {
  const seconds = Math.max(0, Math.round((serverNow() - at) / 1000));
  return seconds < 90 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

function selectedEngine() {
  const wanted = decodeURIComponent(location.hash.slice(1));
  return state.engines.find((e) => e.engineId === wanted) ?? state.engines[0] ?? null;
}

async function act(path, what) {
  const notice = document.getElementById('notice');
  const headers = { 'content-type': 'application/json' };
  const token = document.getElementById('token')?.value || sessionStorage.getItem('streamfold-token');
  if (token) {
    headers.authorization = `Bearer ${token}`;
    sessionStorage.setItem('streamfold-token', token);
  }
  try {
    const response = await fetch(path, { method: 'POST', headers, body: '{}' });
    const body = await response.json();
    notice.textContent = response.ok ? `Sent: ${what}` : `${what} refused: ${body.message}`;
    notice.className = response.ok ? 'notice' : 'notice error';
  } catch (error) {
    notice.textContent = `${what} failed: ${error.message}`;
    notice.className = 'notice error';
  }
}

/**
 * Makes `parent`'s children look like `wanted` (freshly built nodes) by updating in place the
 * elements that stay: a live update keeps the elements themselves, so the focus, a press in
 * progress (mouse down before an update, up after it) and a screen reader's place survive it,
 * and a live region announces only what changed. An element stays when its tag and `data-key`
 * match: a keyed one wherever it was among the children, any other at the same position.
 */
function patchChildren(parent, wanted) {
  const current = [...parent.childNodes];
  const keyed = new Map();
  for (const node of current) if (node.dataset?.key) keyed.set(node.dataset.key, node);
  const kept = wanted.map((node, index) => {
    const key = node.dataset?.key;
    const old = key ? keyed.get(key) : current[index];
    if (!old || !sameKind(old, node)) return node;
    patch(old, node);
    return old;
  });
  const keep = new Set(kept);
  for (const node of current) if (!keep.has(node)) node.remove();
  // Only a reordering moves a kept element (moving one drops its focus, restored by `render`).
  kept.forEach((node, index) => {
    const at = parent.childNodes[index];
    if (at !== node) parent.insertBefore(node, at ?? null);
  });
}

function sameKind(old, node) {
  return (
    old.nodeType === node.nodeType &&
    old.nodeName === node.nodeName &&
    old.namespaceURI === node.namespaceURI &&
    old.dataset?.key === node.dataset?.key
  );
}

function patch(old, node) {
  if (node.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== node.nodeValue) old.nodeValue = node.nodeValue;
    return;
  }
  for (const name of old.getAttributeNames()) if (!node.hasAttribute(name)) old.removeAttribute(name);
  for (const name of node.getAttributeNames()) {
    const value = node.getAttribute(name);
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  if (old.onclick !== node.onclick) old.onclick = node.onclick;
  patchChildren(old, [...node.childNodes]);
}

function render() {
  // Updates keep the focused element; one moved (engines reordered) gets the focus back.
  const focused = document.activeElement?.dataset?.key;
  renderEngines();
  renderEngine(selectedEngine());
  renderRequests();
  const again = focused && document.querySelector(`[data-key="${CSS.escape(focused)}"]`);
  if (again && again !== document.activeElement) again.focus();
}

function renderEngines() {
  const current = selectedEngine();
  patchChildren(
    document.getElementById('engines'),
    state.engines.map((engine) =>
      h(
        'li',
        { 'data-key': `engine:${engine.engineId}` },
        h(
          'a',
          {
            href: `#${encodeURIComponent(engine.engineId)}`,
            'aria-current': engine === current ? 'page' : false,
            'data-key': `engine-link:${engine.engineId}`,
          },
          h('span', { class: 'name' }, engine.engineId),
          h('span', { class: `badge status-${engine.status}` }, engine.status),
          engine.gated ? h('span', { class: 'badge gated' }, 'gated') : null,
          h(
            'span',
            { class: 'meta' },
            `${engine.instances.length} instance${engine.instances.length === 1 ? '' : 's'}`,
          ),
        ),
      ),
    ),
  );
}

function renderEngine(engine) {
  const main = document.getElementById('engine');
  if (!engine) {
    patchChildren(main, [h('p', { class: 'empty' }, 'No engine has connected yet.')]);
    return;
  }
  const id = encodeURIComponent(engine.engineId);
  const parts = [
    h(
      'div',
      { class: 'engine-head' },
      h('h2', {}, engine.engineId),
      h('span', { class: `badge status-${engine.status}` }, engine.status),
      h(
        'div',
        { class: 'actions' },
        button(
          `Pause every node of ${engine.engineId}`,
          'Pause engine',
          `engine-pause:${engine.engineId}`,
          () => act(`/api/engines/${id}/pause`, `pause ${engine.engineId}`),
        ),
        button(
          `Resume every node of ${engine.engineId}`,
          'Resume engine',
          `engine-resume:${engine.engineId}`,
          () => act(`/api/engines/${id}/resume`, `resume ${engine.engineId}`),
        ),
      ),
    ),
    engine.gated ? gatedBanner(engine) : null,
    engine.graph && engine.layout
      ? graph(engine)
      : h(
          'p',
          { class: 'no-graph' },
          'This engine did not send its graph (an engine older than the console): its nodes come from its feedback.',
        ),
    nodesTable(engine),
    instancesTable(engine),
  ];
  patchChildren(main, parts.filter(Boolean));
}

function button(label, text, key, onclick) {
  return h('button', { type: 'button', 'aria-label': label, 'data-key': key, onclick }, text);
}

function gatedBanner(engine) {
  return h(
    'p',
    { class: 'gated-banner', role: 'status' },
    h('strong', {}, 'Gated: '),
    'no node consumes until a desired state arrives (resume it here).',
    engine.releaseAtMs
      ? h(
          'span',
          {},
          ' It resumes by itself in ',
          h(
            'span',
            { class: 'countdown', 'data-release-at': engine.releaseAtMs },
            countdown(engine.releaseAtMs),
          ),
          ' (resumeAfterMs).',
        )
      : null,
  );
}

function countdown(releaseAtMs) {
  return `${Math.max(0, Math.ceil((releaseAtMs - serverNow()) / 1000))} s`;
}

function graph(engine) {
  const { layout } = engine;
  const byId = new Map(engine.nodes.map((n) => [n.node, n]));
  const edges = engine.graph.edges.map((edge) => {
    const laid = layout.edges[edge.id];
    if (!laid) return null;
    return s(
      'g',
      { class: 'edge' },
      s('polyline', {
        points: laid.points.map((p) => `${p.x},${p.y}`).join(' '),
        'marker-end': 'url(#arrow)',
      }),
      laid.label
        ? s('text', { x: laid.label.x, y: laid.label.y + 12, class: 'edge-label' }, edge.sentence)
        : null,
    );
  });
  const nodes = engine.graph.nodes.map((graphNode) => {
    const at = layout.nodes[graphNode.id];
    const node = byId.get(graphNode.id);
    const head = engine.graph.heads.includes(graphNode.id);
    const nodeState = node?.state ?? 'unknown';
    return s(
      'g',
      { class: `node state-${nodeState}`, transform: `translate(${at.x},${at.y})` },
      s('title', {}, `${graphNode.id}: ${nodeState}, topic ${graphNode.topic}`),
      s('rect', { width: NODE_WIDTH, height: NODE_HEIGHT, rx: 8 }),
      s('text', { x: 12, y: 22, class: 'node-name' }, graphNode.id),
      head
        ? s('text', { x: NODE_WIDTH - 12, y: 22, class: 'head-mark', 'text-anchor': 'end' }, '★ head')
        : null,
      s('text', { x: 12, y: 42, class: 'node-state' }, nodeState),
      s(
        'text',
        { x: 12, y: 62, class: 'node-numbers' },
        `${rate(node?.messagesPerSecond ?? 0)} · lag ${count(node?.lag ?? 0)}`,
      ),
    );
  });
  return h(
    'figure',
    { class: 'graph' },
    s(
      'svg',
      {
        width: layout.width,
        height: layout.height,
        viewBox: `0 0 ${layout.width} ${layout.height}`,
        role: 'img',
        'aria-label': `Graph of ${engine.engineId}: ${engine.graph.nodes.length} nodes, heads ${engine.graph.heads.join(', ')}`,
      },
      s(
        'defs',
        {},
        s(
          'marker',
          {
            id: 'arrow',
            viewBox: '0 0 10 10',
            refX: 10,
            refY: 5,
            markerWidth: 8,
            markerHeight: 8,
            orient: 'auto',
          },
          s('path', { d: 'M0,0 L10,5 L0,10 z' }),
        ),
      ),
      edges,
      nodes,
    ),
    h(
      'figcaption',
      {},
      'Heads marked ★; edges labelled with their filter; colour and text give each node’s state.',
    ),
  );
}

function sparkline(history) {
  const width = 120;
  const height = 28;
  if (history.length < 2) return h('span', { class: 'meta' }, '…');
  const from = history[0].at;
  const span = Math.max(history.at(-1).at - from, 1);
  const max = Math.max(...history.map((p) => p.messagesPerSecond), 1);
  const points = history
    .map(
      (p) =>
        `${(((p.at - from) / span) * width).toFixed(1)},${(height - 2 - (p.messagesPerSecond / max) * (height - 4)).toFixed(1)}`,
    )
    .join(' ');
  return s(
    'svg',
    {
      class: 'sparkline',
      width,
      height,
      role: 'img',
      'aria-label': `messages per second, up to ${rate(max)}`,
    },
    s('polyline', { points }),
  );
}

/** A captioned table with column headers; `rows` are `tr` elements. */
function table(caption, columns, rows) {
  return h(
    'table',
    { class: caption.toLowerCase() },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...columns.map((column) => h('th', { scope: 'col' }, column)))),
    h('tbody', {}, ...rows),
  );
}

function nodesTable(engine) {
  const id = encodeURIComponent(engine.engineId);
  return table(
    'Nodes',
    ['Node', 'State', 'Rate', 'Lag', 'Last 5 min', 'Partitions (committed / lag)', 'Actions'],
    engine.nodes.map((node) => {
      const path = `/api/engines/${id}/nodes/${encodeURIComponent(node.node)}`;
      return h(
        'tr',
        { 'data-node': node.node, 'data-key': `node:${engine.engineId}:${node.node}` },
        h('th', { scope: 'row' }, node.node, node.head ? h('span', { class: 'head-mark' }, ' ★') : null),
        h('td', {}, h('span', { class: `badge state-${node.state}` }, node.state)),
        h('td', { class: 'number' }, rate(node.messagesPerSecond)),
        h('td', { class: 'number' }, count(node.lag)),
        h('td', {}, sparkline(node.history)),
        h(
          'td',
          { class: 'partitions' },
          node.partitions
            .map((p) => `${p.topic}/${p.partition}: ${offset(p.committedOffset)} / ${count(p.lag)}`)
            .join(', ') || '—',
        ),
        h(
          'td',
          { class: 'actions' },
          button(`Pause ${node.node}`, 'Pause', `pause:${engine.engineId}:${node.node}`, () =>
            act(`${path}/pause`, `pause ${node.node}`),
          ),
          button(`Resume ${node.node}`, 'Resume', `resume:${engine.engineId}:${node.node}`, () =>
            act(`${path}/resume`, `resume ${node.node}`),
          ),
        ),
      );
    }),
  );
}

function instancesTable(engine) {
  return table(
    'Instances',
    ['Instance', 'Status', 'Last heard', 'Feedback #', 'Gated'],
    engine.instances.map((instance) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, h('code', {}, instance.instanceId.slice(0, 8))),
        h('td', {}, h('span', { class: `badge status-${instance.status}` }, instance.status)),
        h('td', {}, ago(instance.lastHeardAt)),
        h('td', { class: 'number' }, String(instance.sequence)),
        h('td', {}, instance.gated ? 'yes' : 'no'),
      ),
    ),
  );
}

function renderRequests() {
  patchChildren(
    document.getElementById('requests'),
    state.requests.map((request) => {
      const reasons = request.answers
        .filter((a) => a.ack && !a.ack.accepted)
        .map((a) => `${a.instanceId.slice(0, 8)}: ${a.ack.reason}`);
      return h(
        'li',
        {
          class: `request status-${request.status}`,
          'data-request': request.requestId,
          'data-key': `request:${request.requestId}`,
        },
        h('span', { class: 'what' }, `${request.engineId}: ${request.action}`),
        h('span', { class: `badge request-${request.status}` }, request.status),
        reasons.length > 0 ? h('span', { class: 'reason' }, reasons.join('; ')) : null,
        h(
          'time',
          { datetime: new Date(request.at).toISOString() },
          new Date(request.at).toLocaleTimeString('en-GB'),
        ),
      );
    }),
  );
}

document
  .getElementById('resume-all')
  .addEventListener('click', () => act('/api/resume-all', 'resume all engines'));
window.addEventListener('hashchange', () => state && render());
setInterval(() => {
  for (const element of document.querySelectorAll('[data-release-at]')) {
    element.textContent = countdown(Number(element.dataset.releaseAt));
  }
}, 1000);

const connection = document.getElementById('connection');
const events = new EventSource('/api/events');
events.addEventListener('open', () => {
  connection.textContent = 'live';
  connection.className = 'live';
});
events.addEventListener('error', () => {
  connection.textContent = 'reconnecting…';
  connection.className = 'down';
});
events.addEventListener('state', (event) => {
  state = JSON.parse(event.data);
  clockOffset = state.now - Date.now();
  render();
});
