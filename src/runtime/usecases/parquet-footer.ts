/**
 * The row count a Parquet file's footer records (FileMetaData.num_rows, field 3), read without a
 * Parquet library: the footer is Thrift compact protocol, and every field before num_rows is
 * skipped by its type. `export` uses it so the manifest's count is the file's own.
 */

class Reader {
  constructor(
    private readonly b: Uint8Array,
    public i: number,
  ) {}

  byte(): number {
    if (this.i >= this.b.length) throw new Error('Parquet footer ends early');
    return this.b[this.i++]!;
  }

  varint(): bigint {
    let shift = 0n;
    let out = 0n;
    for (;;) {
      const c = this.byte();
      out |= BigInt(c & 0x7f) << shift;
      if ((c & 0x80) === 0) return out;
      shift += 7n;
    }
  }

  zigzag(): bigint {
    const n = this.varint();
    return (n >> 1n) ^ -(n & 1n);
  }

  skip(type: number): void {
    switch (type) {
      case 1:
      case 2:
        return; // bool in a field header
      case 3:
        this.i += 1;
        return;
      case 4:
      case 5:
      case 6:
        this.varint();
        return;
      case 7:
        this.i += 8;
        return;
      case 8: {
        const length = Number(this.varint()); // read before `this.i +=` takes the position
        this.i += length;
        return;
      }
      case 9:
      case 10: {
        const h = this.byte();
        let size = h >> 4;
        if (size === 15) size = Number(this.varint());
        const t = h & 0x0f;
        for (let k = 0; k < size; k++) {
          if (t === 1 || t === 2)
            this.i += 1; // bools in a list are one byte each
          else this.skip(t);
        }
        return;
      }
      case 11: {
        const size = Number(this.varint());
        if (size === 0) return;
        const kv = this.byte();
        for (let k = 0; k < size; k++) {
          this.skip(kv >> 4);
          this.skip(kv & 0x0f);
        }
        return;
      }
      case 12: {
        let id = 0;
        for (;;) {
          const h = this.byte();
          if (h === 0) return;
          id = h >> 4 === 0 ? Number(this.zigzag()) : id + (h >> 4);
          this.skip(h & 0x0f);
        }
      }
      default:
        throw new Error(`unknown Thrift compact type ${type} in the Parquet footer`);
    }
  }
}

/** num_rows of a whole Parquet file. */
export function parquetRowCount(file: Uint8Array): number {
  const n = file.length;
  const magic = (at: number) => String.fromCharCode(...file.subarray(at, at + 4));
  if (n < 12 || magic(0) !== 'PAR1' || magic(n - 4) !== 'PAR1') throw new Error('not a Parquet file');
  const footerLength = Buffer.from(file.buffer, file.byteOffset + n - 8, 4).readUInt32LE(0);
  const r = new Reader(file, n - 8 - footerLength);
  let id = 0;
  for (;;) {
    const h = r.byte();
    if (h === 0) throw new Error('the Parquet footer has no num_rows');
    const type = h & 0x0f;
    id = h >> 4 === 0 ? Number(r.zigzag()) : id + (h >> 4);
    if (id === 3 && type === 6) return Number(r.zigzag());
    r.skip(type);
  }
}
