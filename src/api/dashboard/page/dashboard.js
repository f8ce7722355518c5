// The dashboard page (served by src/api/dashboard/route.ts): reads /ext/dashboard/events (Server-Sent Events)
// and draws the node's actors, chains, peers and charts. Plain JavaScript with no dependencies; everything the
// node sends is written with textContent, never as HTML.
;(() => {
  const HISTORY = 300
  const COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280', '#2c7a7b']
  const SVG = 'http://www.w3.org/2000/svg'
  let samples = []

  const $ = (id) => document.getElementById(id)
  const el = (tag, attrs, ...children) => {
    const e = document.createElement(tag)
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (v !== undefined && v !== null) e.setAttribute(k, String(v))
    }
    for (const c of children) if (c !== undefined && c !== null) e.append(c)
    return e
  }

  const duration = (seconds) => {
    if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return 'unknown'
    let s = Math.max(0, Math.round(seconds))
    const h = Math.floor(s / 3600)
    s -= h * 3600
    const m = Math.floor(s / 60)
    s -= m * 60
    return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`
  }
  const ago = (ms, now) => (ms === null || ms === undefined ? 'never' : `${duration((now - ms) / 1000)} ago`)

  /** a state value as text: `idle`, or `cpu: running · snapshot: ready` for parallel states */
  const stateText = (value) => {
    if (typeof value !== 'object' || value === null) return String(value)
    const parts = []
    const walk = (v, prefix) => {
      for (const [k, sub] of Object.entries(v)) {
        const key = prefix === '' ? k : `${prefix}.${k}`
        if (typeof sub === 'object' && sub !== null && Object.keys(sub).length > 0) walk(sub, key)
        else parts.push(typeof sub === 'string' ? `${key}: ${sub}` : key)
      }
    }
    walk(value, '')
    return parts.length === 0 ? 'active' : parts.join(' · ')
  }

  const pretty = (text) => {
    try {
      return JSON.stringify(JSON.parse(text), null, 2)
    } catch {
      return text
    }
  }

  // ---- actors ---------------------------------------------------------------------------------------------

  const openActors = new Set()
  /** each actor's context text: a frame carries it only when it changed */
  const contexts = new Map()

  const actorItem = (row, children, now) => {
    const name = row.systemId ?? row.id
    const state = stateText(row.state)
    const summary = el(
      'summary',
      {},
      el('span', { class: 'name' }, row.kind === 'slot' ? `(${row.id})` : name),
      row.systemId !== undefined && row.systemId !== row.id ? el('span', { class: 'id' }, row.id) : undefined,
      el('span', { class: 'state', 'data-state': state }, state),
    )
    const details = el('details', { 'data-session': row.sessionId }, summary)
    // the detail is built only while open (contexts can be large)
    const detail = () => {
      const events = el('ol', {})
      for (const e of row.events) {
        events.append(el('li', {}, `${e.type}${e.from ? ` from ${e.from}` : ''} (${ago(e.at, now)})`))
      }
      const context = contexts.get(row.sessionId)
      return el(
        'div',
        { class: 'detail' },
        context === undefined ? undefined : el('div', {}, 'context', el('pre', {}, pretty(context))),
        el('div', {}, row.events.length === 0 ? 'no events yet' : 'recent events, oldest first', events),
      )
    }
    if (openActors.has(row.sessionId)) {
      details.append(detail())
      details.open = true
    }
    details.addEventListener('toggle', () => {
      if (details.open) {
        openActors.add(row.sessionId)
        if (details.querySelector(':scope > .detail') === null) details.append(detail())
      } else openActors.delete(row.sessionId)
    })
    const li = el('li', { class: row.kind, 'data-actor': name, 'data-kind': row.kind }, details)
    if (children.length > 0) li.append(el('ul', {}, ...children))
    return li
  }

  const renderActors = (rows, now) => {
    const bySession = new Map(rows.map((r) => [r.sessionId, r]))
    for (const r of rows) if (r.context !== undefined) contexts.set(r.sessionId, r.context)
    for (const id of contexts.keys()) if (!bySession.has(id)) contexts.delete(id)
    const kids = new Map()
    const roots = []
    for (const r of rows) {
      if (r.parent !== undefined && bySession.has(r.parent)) {
        if (!kids.has(r.parent)) kids.set(r.parent, [])
        kids.get(r.parent).push(r)
      } else roots.push(r)
    }
    const build = (r) => actorItem(r, (kids.get(r.sessionId) ?? []).map(build), now)
    $('actors').replaceChildren(...roots.map(build))
    $('actor-count').textContent = `(${rows.length})`
  }

  // ---- chains ---------------------------------------------------------------------------------------------

  const progressCard = (p) => {
    const executing = p.phase === 'executing'
    const done = executing ? p.executed : p.fetched
    const total = done + p.remaining
    const fill = el('div', {})
    // through the CSSOM: the page's Content-Security-Policy refuses style attributes
    fill.style.width = `${total > 0 ? (100 * done) / total : 0}%`
    const bar = el('div', { class: 'bar' }, fill)
    return [
      el('dt', {}, 'bootstrap'),
      el('dd', { 'data-field': 'bootstrap' }, `${p.phase} (round ${p.round})`),
      el('dt', {}, 'fetched / executed'),
      el('dd', {}, `${p.fetched} / ${p.executed}, ${p.remaining} to go`),
      el('dt', {}, 'rate / ETA'),
      el('dd', { 'data-field': 'eta' }, `${p.rate.toFixed(1)} blocks/s, ETA ${duration(p.etaSeconds)}`),
      el('dt', {}, ''),
      el('dd', {}, bar),
    ]
  }

  const renderChains = (chains, now) => {
    const cards = chains.map((c) => {
      const state = stateText(c.state)
      const rows = [
        el('dt', {}, 'height'),
        el('dd', { 'data-field': 'height' }, c.height === null ? 'no block accepted since start' : String(c.height)),
        el('dt', {}, 'last accepted'),
        el('dd', {}, ago(c.lastAcceptedAt, now)),
        el('dt', {}, 'accepted since start'),
        el('dd', {}, String(c.acceptedSinceStart)),
        el('dt', {}, 'finality'),
        el(
          'dd',
          { title: "from a block's own time to its acceptance here" },
          c.finality === null ? 'no block yet' : `${c.finality.lastMs} ms last, ${c.finality.meanMs} ms mean`,
        ),
        el('dt', {}, 'consensus'),
        el('dd', {}, c.consensus ?? 'unknown'),
      ]
      if (c.bootstrap !== null && state !== 'normalOp') rows.push(...progressCard(c.bootstrap))
      return el(
        'div',
        { class: 'card', 'data-chain': c.alias },
        el('h3', {}, `${c.alias}`, el('span', { class: `badge ${state}` }, state)),
        el('div', { class: 'muted' }, c.chainId),
        el('dl', {}, ...rows),
        c.error ? el('div', { class: 'error' }, c.error) : undefined,
      )
    })
    $('chains').replaceChildren(...cards)
  }

  // ---- peers ----------------------------------------------------------------------------------------------

  const renderPeers = (peers, now) => {
    const body = $('peers').tBodies[0]
    if (peers.length === 0) {
      body.replaceChildren(el('tr', {}, el('td', { colspan: 7, class: 'muted' }, 'no peers connected')))
    } else {
      body.replaceChildren(
        ...peers.map((p) =>
          el(
            'tr',
            { 'data-peer': p.nodeId },
            el('td', {}, p.nodeId),
            el('td', {}, p.ip),
            el('td', {}, p.version),
            el('td', {}, p.connectedAt === null ? '' : duration((now - p.connectedAt) / 1000)),
            el('td', {}, `${p.observedUptime}%`),
            el('td', {}, p.benched.length === 0 ? '-' : p.benched.join(', ')),
            el('td', {}, ago(p.lastReceived, now)),
          ),
        ),
      )
    }
    $('peer-count').textContent = `(${peers.length})`
  }

  // ---- charts ---------------------------------------------------------------------------------------------

  /** lines: [{name, points: [[t, y], ...]}] on a 320x110 SVG with its min and max written at the left */
  const drawChart = (svg, lines) => {
    const W = 320
    const H = 110
    const top = 8
    const bottom = H - 14
    const left = 34
    const all = lines.flatMap((l) => l.points)
    const node = (tag, attrs, text) => {
      const e = document.createElementNS(SVG, tag)
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v))
      if (text !== undefined) e.textContent = text
      return e
    }
    const parts = [node('line', { class: 'axis', x1: left, y1: bottom, x2: W, y2: bottom })]
    if (all.length > 0) {
      const t0 = Math.min(...all.map((p) => p[0]))
      const t1 = Math.max(...all.map((p) => p[0]))
      let y0 = Math.min(...all.map((p) => p[1]))
      let y1 = Math.max(...all.map((p) => p[1]))
      if (y0 === y1) {
        y0 = Math.max(0, y0 - 1)
        y1 = y1 + 1
      }
      const x = (t) => left + (t1 === t0 ? W - left : ((t - t0) / (t1 - t0)) * (W - left))
      const y = (v) => bottom - ((v - y0) / (y1 - y0)) * (bottom - top)
      const label = (v) => (Math.abs(v) >= 1000 ? v.toFixed(0) : String(Math.round(v * 10) / 10))
      parts.push(node('text', { x: 0, y: top + 6 }, label(y1)), node('text', { x: 0, y: bottom }, label(y0)))
      parts.push(node('text', { x: left, y: H - 2 }, `${duration((t1 - t0) / 1000)} shown`))
      lines.forEach((l, i) => {
        if (l.points.length === 0) return
        const color = COLORS[i % COLORS.length]
        const points = l.points.map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ')
        parts.push(node('polyline', { points, stroke: color }))
        parts.push(node('text', { x: W - 4 - 40 * (lines.length - i), y: top + 6, fill: color }, l.name))
      })
    } else {
      parts.push(node('text', { x: left + 4, y: H / 2 }, 'no samples yet'))
    }
    svg.replaceChildren(...parts)
  }

  const drawCharts = () => {
    const aliases = [...new Set(samples.flatMap((s) => Object.keys(s.chains)))]
    // a chain's points where `f` has a value (no height until the chain accepts a block)
    const per = (f) =>
      aliases.map((a) => ({
        name: a,
        points: samples.flatMap((s) => {
          const v = s.chains[a] === undefined ? null : f(s, a)
          return v === null ? [] : [[s.at, v]]
        }),
      }))
    drawChart(
      $('chart-height'),
      per((s, a) => s.chains[a].height),
    )
    drawChart(
      $('chart-tx'),
      per((s, a) => s.chains[a].txs / s.seconds),
    )
    drawChart($('chart-loop'), [
      { name: 'p99', points: samples.map((s) => [s.at, s.loopDelay.p99]) },
      { name: 'max', points: samples.map((s) => [s.at, s.loopDelay.max]) },
    ])
    drawChart($('chart-rss'), [{ name: 'rss', points: samples.map((s) => [s.at, s.rssMb]) }])
  }

  const addSamples = (more) => {
    const last = samples.at(-1)?.at ?? 0
    for (const s of more) if (s.at > last) samples.push(s)
    if (samples.length > HISTORY) samples = samples.slice(-HISTORY)
  }

  // ---- the stream -----------------------------------------------------------------------------------------

  const render = (frame) => {
    const n = frame.node
    $('node').textContent =
      `${n.nodeId} · ${n.version} · network ${n.networkId}${n.dev ? ' (dev)' : ''} · up ${duration((frame.at - n.startedAt) / 1000)}`
    renderChains(frame.chains, frame.at)
    renderPeers(frame.peers, frame.at)
    renderActors(frame.actors, frame.at)
    drawCharts()
  }

  const setConnection = (text, cls) => {
    const badge = $('conn')
    badge.textContent = text
    badge.className = `badge ${cls}`
  }

  const connect = () => {
    const events = new EventSource('/ext/dashboard/events')
    events.addEventListener('hello', (m) => {
      samples = JSON.parse(m.data).samples
    })
    events.addEventListener('frame', (m) => {
      const frame = JSON.parse(m.data)
      addSamples(frame.samples)
      render(frame)
      setConnection('live', 'live')
    })
    events.addEventListener('error', () => setConnection('connection lost, retrying', 'lost'))
  }

  connect()
})()
