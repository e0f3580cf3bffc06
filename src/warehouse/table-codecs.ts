import { columnList, TableCodec, type ColumnInfo } from './row-binary.js';

/**
 * Each table's RowBinary codec, built from `DESCRIBE TABLE` on first use and kept: a table's
 * columns change only by a statement (a migration, `sql --write`), after which the codecs are
 * described again (forgetOn), as they are after a failed insert.
 */
export class TableCodecs {
  private readonly codecs = new Map<string, Promise<TableCodec>>();
  constructor(private readonly describe: (sql: string) => Promise<Array<Record<string, unknown>>>) {}

  /** The rows as RowBinary payloads with their column lists (as SQL), or null to write them as JSON. */
  async encode(table: string, rows: readonly object[]): Promise<Array<{ columns: string; payload: Buffer }> | null> {
    let codec = this.codecs.get(table);
    if (codec === undefined) {
      codec = this.describe(`DESCRIBE TABLE ${table}`).then((cols) => new TableCodec(table, cols as unknown as ColumnInfo[]));
      this.codecs.set(table, codec);
      codec.catch(() => this.codecs.delete(table));
    }
    const groups = (await codec).encode(rows);
    return groups && groups.map((g) => ({ columns: columnList(g.columns), payload: g.payload }));
  }

  forget(table: string): void {
    this.codecs.delete(table);
  }

  /** Forgets every codec when `sql` may change a table's columns. */
  forgetOn(sql: string): void {
    if (/^\s*(ALTER|CREATE|DROP|RENAME|EXCHANGE|ATTACH|DETACH|TRUNCATE)\b/i.test(sql)) this.codecs.clear();
  }
}
