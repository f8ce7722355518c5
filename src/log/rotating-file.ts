/**
 * An append-only log file with size-based rotation (`<name>.log`, then `<name>.log.1` ... `.N`), like the
 * reference's 8 MB x 7 files. Writes are buffered by the stream; `close()` flushes.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync, statSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'

export interface RotatingFileOptions {
  dir: string
  name: string
  maxBytes: number
  maxFiles: number
}

export class RotatingFile {
  private stream: WriteStream | undefined
  private size = 0
  private readonly path: string

  constructor(private readonly opts: RotatingFileOptions) {
    this.path = join(opts.dir, `${opts.name}.log`)
  }

  write(line: string): void {
    if (this.stream === undefined) this.open()
    const bytes = Buffer.byteLength(line)
    if (this.size + bytes > this.opts.maxBytes && this.size > 0) this.rotate()
    this.size += bytes
    this.stream?.write(line)
  }

  close(): Promise<void> {
    const s = this.stream
    this.stream = undefined
    if (s === undefined) return Promise.resolve()
    return new Promise((resolve) => s.end(resolve))
  }

  private open(): void {
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o750 })
    this.size = existsSync(this.path) ? statSync(this.path).size : 0
    this.stream = createWriteStream(this.path, { flags: 'a', mode: 0o640 })
    this.stream.on('error', () => {
      // a full disk or a removed directory must not crash the node; records are dropped until reopened
      this.stream = undefined
    })
  }

  private rotate(): void {
    this.stream?.end()
    this.stream = undefined
    for (let i = this.opts.maxFiles - 1; i >= 1; i--) {
      const from = i === 1 ? this.path : `${this.path}.${i - 1}`
      if (existsSync(from)) renameSync(from, `${this.path}.${i}`)
    }
    this.open()
    this.size = 0
  }
}
