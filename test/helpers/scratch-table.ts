/**
 * An insert into a table a test made itself (or into a name that is no table at all, to see the
 * error): the table map (src/warehouse/tables.ts) types the rows of the schema's tables only, so
 * this goes through the port's own insert with its rows untyped.
 */
export function insertScratch(wh: object, table: string, rows: readonly object[]): Promise<void> {
  return (wh as { insert(table: string, rows: readonly object[]): Promise<void> }).insert(table, rows);
}
