/**
 * A small strict parser of Prometheus' text exposition format 0.0.4, for tests: every line is a `# HELP`, a
 * `# TYPE` or a sample of a family whose TYPE came first; label values are quoted with `\\`, `\"` and `\n` escapes;
 * values are Go floats (`NaN` in any case, `+Inf`, `-Inf` too). Anything else throws with the line number, so a malformed
 * exposition fails the test that reads it.
 */

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: string
  help: string
  samples: Sample[]
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])
const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count'],
}

function parseValue(text: string, line: number): number {
  // Go's ParseFloat (Prometheus' reader) takes NaN in any case; prom-client writes `Nan`
  if (text.toLowerCase() === 'nan') return Number.NaN
  if (text === '+Inf') return Number.POSITIVE_INFINITY
  if (text === '-Inf') return Number.NEGATIVE_INFINITY
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${line}: bad value ${text}`)
  return Number(text)
}

/** `{a="x",b="y"}` from position `i` of `s` (at the `{`): the labels and the position after `}`. */
function parseLabels(s: string, i: number, line: number): [Record<string, string>, number] {
  const labels: Record<string, string> = {}
  let p = i + 1
  while (s[p] !== '}') {
    const eq = s.indexOf('=', p)
    if (eq === -1) throw new Error(`line ${line}: label without '='`)
    const name = s.slice(p, eq)
    if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name ${name}`)
    if (s[eq + 1] !== '"') throw new Error(`line ${line}: label value not quoted`)
    let value = ''
    let q = eq + 2
    for (; q < s.length && s[q] !== '"'; q++) {
      if (s[q] !== '\\') {
        value += s[q]
        continue
      }
      const next = s[++q]
      if (next === 'n') value += '\n'
      else if (next === '\\' || next === '"') value += next
      else throw new Error(`line ${line}: bad escape \\${next}`)
    }
    if (q >= s.length) throw new Error(`line ${line}: unterminated label value`)
    if (name in labels) throw new Error(`line ${line}: duplicate label ${name}`)
    labels[name] = value
    p = q + 1
    if (s[p] === ',') p++
    else if (s[p] !== '}') throw new Error(`line ${line}: expected ',' or '}' after a label`)
  }
  return [labels, p + 1]
}

/** The families of an exposition, by name. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  const familyOf = (sampleName: string): Family | undefined => {
    const exact = families.get(sampleName)
    if (exact !== undefined) return exact
    for (const [suffixType, suffixes] of Object.entries(SUFFIXES)) {
      for (const suffix of suffixes) {
        if (!sampleName.endsWith(suffix)) continue
        const f = families.get(sampleName.slice(0, -suffix.length))
        if (f?.type === suffixType) return f
      }
    }
    return undefined
  }
  text.split('\n').forEach((raw, index) => {
    const line = index + 1
    if (raw === '') return
    if (raw.startsWith('# HELP ') || raw.startsWith('# TYPE ')) {
      const rest = raw.slice(7)
      const space = rest.indexOf(' ')
      const name = space === -1 ? rest : rest.slice(0, space)
      const arg = space === -1 ? '' : rest.slice(space + 1)
      if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`)
      const f = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] }
      if (raw.startsWith('# HELP ')) f.help = arg
      else if (TYPES.has(arg)) f.type = arg
      else throw new Error(`line ${line}: bad type ${arg}`)
      families.set(name, f)
      return
    }
    if (raw.startsWith('#')) throw new Error(`line ${line}: unexpected comment`)
    const brace = raw.indexOf('{')
    const space = raw.indexOf(' ')
    const nameEnd = brace !== -1 && (space === -1 || brace < space) ? brace : space
    if (nameEnd <= 0) throw new Error(`line ${line}: not a sample: ${raw}`)
    const name = raw.slice(0, nameEnd)
    if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`)
    let labels: Record<string, string> = {}
    let p = nameEnd
    if (raw[p] === '{') [labels, p] = parseLabels(raw, p, line)
    if (raw[p] !== ' ') throw new Error(`line ${line}: expected a space before the value`)
    const parts = raw.slice(p + 1).split(' ')
    if (parts.length > 2) throw new Error(`line ${line}: trailing text`)
    const family = familyOf(name)
    if (family === undefined) throw new Error(`line ${line}: sample ${name} before its TYPE`)
    family.samples.push({ name, labels, value: parseValue(parts[0]!, line) })
  })
  return families
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none, throws if many. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found: number[] = []
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) found.push(s.value)
    }
  }
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`)
  return found[0]
}
