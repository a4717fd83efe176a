/**
 * Binary encoding of one committed transaction for the operation log:
 * the sequence number and the list of (sql, params) statements that made it.
 * Binary, not JSON, because params carry embedding vectors (Uint8Array) and
 * floats must round-trip exactly for replay to reproduce the same database.
 */
export type SqlValue = null | number | string | Uint8Array;
export interface Op {
  sql: string;
  params: SqlValue[];
}
export interface TxRecord {
  seq: number;
  ops: Op[];
}

const T_NULL = 0;
const T_NUM = 1;
const T_STR = 2;
const T_BLOB = 3;
const T_INT = 4;

class Writer {
  private buf = Buffer.allocUnsafe(1024);
  private pos = 0;
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
  }
  f64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }
  str(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.u32(n);
    this.ensure(n);
    this.buf.write(s, this.pos, n, 'utf8');
    this.pos += n;
  }
  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  done(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new Error('op record truncated');
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
  str(): string {
    const n = this.u32();
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  bytes(): Uint8Array {
    const n = this.u32();
    this.need(n);
    const out = new Uint8Array(n);
    out.set(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }
}

export function encodeTx(rec: TxRecord): Buffer {
  const w = new Writer();
  w.f64(rec.seq);
  w.u32(rec.ops.length);
  for (const op of rec.ops) {
    w.str(op.sql);
    w.u32(op.params.length);
    for (const p of op.params) {
      if (p === null || p === undefined) w.u8(T_NULL);
      else if (typeof p === 'number') {
        if (Number.isInteger(p) && p >= -0x80000000 && p <= 0x7fffffff) {
          w.u8(T_INT);
          w.u32(p >>> 0);
        } else {
          w.u8(T_NUM);
          w.f64(p);
        }
      } else if (typeof p === 'string') {
        w.u8(T_STR);
        w.str(p);
      } else if (p instanceof Uint8Array) {
        w.u8(T_BLOB);
        w.bytes(p);
      } else {
        throw new TypeError(`unsupported SQL parameter type: ${typeof p}`);
      }
    }
  }
  return w.done();
}

export function decodeTx(buf: Buffer): TxRecord {
  const r = new Reader(buf);
  const seq = r.f64();
  const nOps = r.u32();
  const ops: Op[] = [];
  for (let i = 0; i < nOps; i++) {
    const sql = r.str();
    const nParams = r.u32();
    const params: SqlValue[] = [];
    for (let j = 0; j < nParams; j++) {
      const t = r.u8();
      if (t === T_NULL) params.push(null);
      else if (t === T_INT) params.push(r.u32() | 0);
      else if (t === T_NUM) params.push(r.f64());
      else if (t === T_STR) params.push(r.str());
      else if (t === T_BLOB) params.push(r.bytes());
      else throw new Error(`unknown parameter tag ${t}`);
    }
    ops.push({ sql, params });
  }
  if (r.pos !== buf.length) throw new Error('op record has trailing bytes');
  return { seq, ops };
}
