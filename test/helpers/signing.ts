import { generateKeyPairSync } from 'node:crypto';

/** An Ed25519 key for tests that write verdicts but never check their signatures. */
export const TEST_SIGNING_KEY = generateKeyPairSync('ed25519').privateKey;

/** A RowReader (src/runtime/usecases/verify.ts) over a warehouse connection. */
export async function readAll(
  wh: { stream: (sql: string) => AsyncIterable<Array<Record<string, unknown>>> },
  sql: string,
  onRows: (rows: Array<Record<string, unknown>>) => void | Promise<void>,
): Promise<void> {
  for await (const rows of wh.stream(sql)) await onRows(rows);
}
