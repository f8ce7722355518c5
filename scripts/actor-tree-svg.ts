/**
 * Draws docs/actor-tree.svg, the picture of the actor tree in docs/architecture.md:
 *
 *   node --import tsx scripts/actor-tree-svg.ts > docs/actor-tree.svg
 *
 * Solid boxes are actors with a systemId, dashed ones IO slots. Edit the tree below when the actors change.
 */

interface Box {
  title: string
  sub: string
  io?: boolean
  children?: Box[]
}

const tree: Box = {
  title: 'node',
  sub: 'node.machine',
  children: [
    { title: 'profiler', sub: 'profiler.machine' },
    { title: 'loadVMs', sub: 'IO slot, while loading', io: true },
    {
      title: 'network',
      sub: 'network.machine',
      children: [
        { title: 'connections', sub: 'IO slot: libp2p events', io: true },
        {
          title: 'peer:<NodeID>',
          sub: 'session conn:<connId>',
          children: [
            { title: 'sessionIo', sub: 'IO slot: its connection', io: true },
            { title: 'checkHandshake', sub: 'IO slot, handshaking', io: true },
          ],
        },
        { title: 'peer:<NodeID> ...', sub: 'one per connection' },
      ],
    },
    {
      title: 'chain:C',
      sub: 'chain.machine',
      children: [
        { title: 'chainIo', sub: 'IO slot: txs, accepted blocks', io: true },
        { title: 'benchlist:C', sub: 'benchlist.machine' },
        { title: 'profiler:C', sub: 'chain admin API on' },
        {
          title: 'bootstrapper:C',
          sub: 'while bootstrapping',
          children: [{ title: 'bootstrapIo', sub: 'IO slot', io: true }],
        },
        {
          title: 'engine:C',
          sub: 'normalOp, other validators',
          children: [{ title: 'engineIo', sub: 'IO slot', io: true }],
        },
        { title: 'producer:C', sub: 'normalOp, lone validator' },
      ],
    },
  ],
}

const W = 168
const H = 50
const GAP = 14
const DY = 110
const TOP = 20
const LEFT = 20

const placed: { box: Box; x: number; y: number }[] = []
const lines: string[] = []
let cursor = LEFT

/** leaves left to right; a parent centred over its children */
function place(box: Box, depth: number): number {
  const y = TOP + depth * DY
  let x: number
  if (box.children === undefined || box.children.length === 0) {
    x = cursor
    cursor += W + GAP
  } else {
    const xs = box.children.map((c) => place(c, depth + 1))
    x = (Math.min(...xs) + Math.max(...xs)) / 2
    const mid = y + H + (DY - H) / 2
    for (const cx of xs) {
      lines.push(
        `<path d="M${x + W / 2},${y + H} V${mid} H${cx + W / 2} V${y + DY}" fill="none" stroke="#889" stroke-width="1.5"/>`,
      )
    }
  }
  placed.push({ box, x, y })
  return x
}

function depthOf(box: Box): number {
  return 1 + Math.max(0, ...(box.children ?? []).map(depthOf))
}

const esc = (t: string): string => t.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

place(tree, 0)
const width = cursor + LEFT
const height = TOP + depthOf(tree) * DY + 30
const out = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" role="img">`,
  '<title>Firn actor tree</title>',
  `<rect width="${width}" height="${height}" fill="white"/>`,
  `<text x="${LEFT}" y="${height - 12}" font-size="13" fill="#444">Firn's actor tree. Solid: actors with a systemId. Dashed: IO slots, invoked by their actor and provided by src/ as Observables or promises.</text>`,
  ...lines,
]
for (const { box, x, y } of placed) {
  const dash = box.io === true ? ' stroke-dasharray="5,4"' : ''
  const fill = box.io === true ? '#f6f6f6' : '#e8f0fe'
  out.push(`<rect x="${x}" y="${y}" width="${W}" height="${H}" rx="8" fill="${fill}" stroke="#335"${dash}/>`)
  out.push(
    `<text x="${x + W / 2}" y="${y + 21}" font-size="14" text-anchor="middle" font-weight="bold">${esc(box.title)}</text>`,
  )
  out.push(
    `<text x="${x + W / 2}" y="${y + 39}" font-size="11" text-anchor="middle" fill="#333">${esc(box.sub)}</text>`,
  )
}
out.push('</svg>')
process.stdout.write(`${out.join('\n')}\n`)
