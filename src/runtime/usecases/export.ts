import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.js';
import { CHECKER_VERSION } from '../../conformance/index.js';
import { UsageError } from '../../config.js';
import type { RawReader } from '../../warehouse/raw-reader.js';
import { openRawReader, rawRows } from '../instance-query.js';
import { parquetRowCount } from './parquet-footer.js';

/**
 * Snapshots (anyone can recompute the census from them). Each table is written by
 * the engine itself in the chosen format (`FORMAT Parquet`, CSV with a header, or JSONEachRow), ordered
 * by its whole dedupe key under FINAL, so the same data gives the same bytes and the same
 * SHA-256; the manifest names every file with its rows, bytes, checksum and the query behind it,
 * the checker version and the export time. `SHA256SUMS` lets `sha256sum -c` check the files.
 * While `run` holds the data directory, the queries go to it (see instance.ts).
 */

export const EXPORT_FORMATS = {
  parquet: { engine: 'Parquet', ext: 'parquet' },
  csv: { engine: 'CSV', ext: 'csv' },
  jsonl: { engine: 'JSONEachRow', ext: 'jsonl' },
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

export const MANIFEST_FILE = 'manifest.json';
export const CHECKSUMS_FILE = 'SHA256SUMS';

/** One file of a snapshot: the table, and the query whose rows it holds (parameters in ClickHouse's text form). */
export interface SnapshotQuery {
  table: string;
  sql: string;
  params: Record<string, string>;
}

/** Rows of agents whose owners asked to be hidden never leave the warehouse in a snapshot. */
const SNAPSHOT_HIDDEN = "agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')";

/**
 * The snapshot's queries, one per table, each ordered by the table's whole dedupe key (unique
 * under FINAL), so the same data always gives the same bytes. `since` ('YYYY-MM-DD') keeps the
 * event and daily tables from that UTC day on; the agents, their listings, the listing history and the documents are
 * whole. agent_daily_history leaves out latency_digest (an engine aggregate state, not data).
 * Documents of hidden agents are left out by the host of their card or endpoint.
 */
export function snapshotQueries(since: string | null): SnapshotQuery[] {
  const params = { since: since ?? '1970-01-01' };
  const q = (table: string, sql: string): SnapshotQuery => ({ table, sql: sql.replace(/\s+/g, ' ').trim(), params });
  return [
    q('agents', `SELECT * FROM agents FINAL WHERE opt_out != 'hidden' ORDER BY agent_key`),
    q('listings', `SELECT * FROM listings FINAL WHERE ${SNAPSHOT_HIDDEN} ORDER BY source, item_id`),
    // Every listing event, with no --since: a verdict from that day on may rest on a listing event before it.
    q('listing_history', `SELECT * FROM listing_history FINAL WHERE ${SNAPSHOT_HIDDEN} ORDER BY source, item_id, observed_at, event_id`),
    q(
      'checks',
      `SELECT * FROM checks FINAL WHERE observed_at >= toDateTime64({since:Date}, 3, 'UTC') AND ${SNAPSHOT_HIDDEN}
       ORDER BY agent_key, observed_at, event_id, checker_version`,
    ),
    q(
      'verdicts',
      `SELECT * FROM verdicts FINAL WHERE observed_at >= toDateTime64({since:Date}, 3, 'UTC') AND ${SNAPSHOT_HIDDEN}
       ORDER BY checker_version, agent_key, observed_at, event_id`,
    ),
    q('daily_rollups', `SELECT * FROM daily_rollups FINAL WHERE day >= {since:Date} ORDER BY day, protocol, source, checker_version`),
    q(
      'agent_daily_history',
      `SELECT * EXCEPT (latency_digest) FROM agent_daily_history FINAL WHERE day >= {since:Date} AND ${SNAPSHOT_HIDDEN}
       ORDER BY checker_version, agent_key, day`,
    ),
    q(
      'documents',
      `SELECT * FROM documents FINAL WHERE domain(url) NOT IN
       (SELECT domain(if(card_url != '', card_url, endpoint_url)) FROM agents FINAL WHERE opt_out = 'hidden') ORDER BY sha256`,
    ),
  ];
}

export interface ExportedFile {
  table: string;
  file: string;
  rows: number;
  bytes: number;
  sha256: string;
  /** The query whose rows the file holds, and its parameters. */
  query: string;
  params: Record<string, string>;
}

export interface ExportManifest {
  v: 1;
  format: ExportFormat;
  exportedAt: string;
  since: string | null;
  /** The checker version the index's current views show (the one its census uses), or null on an empty index. */
  checkerVersion: string | null;
  /** The checker version of the build that exported. */
  checkerBuild: string;
  engine: string;
  files: ExportedFile[];
  notes: string[];
}

export interface ExportOptions {
  out: string;
  format: ExportFormat;
  /** 'YYYY-MM-DD': event and daily tables from this UTC day on. */
  since?: string | null;
  now?: () => Date;
}

/** A UTC day given as YYYY-MM-DD (--since, --date). */
export function parseSinceDate(value: string, flag = '--since'): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw new UsageError(`${flag} expects a date as YYYY-MM-DD, got "${value}"`);
  }
  return value;
}

/** A column name as CSVWithNames writes it. */
const csvName = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Writes one query's output to `path` (through a .partial file), hashing as it goes. CSV is the
 * engine's streamed CSV under a header of the query's column names (chdb formats each streamed
 * chunk as a whole result, so CSVWithNames would repeat it); Parquet is written in one piece and
 * its row count read from its own footer.
 */
async function writeOne(
  reader: RawReader,
  q: SnapshotQuery,
  format: ExportFormat,
  path: string,
): Promise<{ rows: number; bytes: number; sha256: string }> {
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  const hash = createHash('sha256');
  let rows = 0;
  let bytes = 0;
  const write = async (data: Uint8Array) => {
    hash.update(data);
    bytes += data.length;
    if (!out.write(data)) await once(out, 'drain');
  };
  try {
    if (format === 'csv') {
      const columns = await rawRows<{ name: string }>(reader, `DESCRIBE (${q.sql})`, q.params);
      await write(Buffer.from(`${columns.map((c) => csvName(c.name)).join(',')}\n`));
    }
    const parts: Uint8Array[] = [];
    for await (const chunk of reader.stream(q.sql, { format: EXPORT_FORMATS[format].engine, params: q.params })) {
      rows += chunk.rows ?? 0;
      if (format === 'parquet') parts.push(chunk.bytes);
      await write(chunk.bytes);
    }
    if (format === 'parquet') rows = parquetRowCount(Buffer.concat(parts));
    out.end();
    await once(out, 'finish');
  } catch (err) {
    out.destroy();
    rmSync(partial, { force: true });
    throw err;
  }
  renameSync(partial, path);
  return { rows, bytes, sha256: hash.digest('hex') };
}

export async function exportSnapshot(config: Config, opts: ExportOptions): Promise<ExportManifest & { via: 'instance' | 'local' }> {
  const fmt = EXPORT_FORMATS[opts.format];
  const since = opts.since ?? null;
  mkdirSync(opts.out, { recursive: true });
  const { reader, via } = await openRawReader(config);
  try {
    const [engine] = await rawRows<{ v: string }>(reader, 'SELECT version() AS v');
    const [current] = await rawRows<{ checker_version: string | null }>(reader, 'SELECT checker_version FROM v_checker_current__v2');
    const files: ExportedFile[] = [];
    for (const q of snapshotQueries(since)) {
      const file = `${q.table}.${fmt.ext}`;
      const written = await writeOne(reader, q, opts.format, join(opts.out, file));
      files.push({ table: q.table, file, ...written, query: q.sql, params: q.params });
    }
    const manifest: ExportManifest = {
      v: 1,
      format: opts.format,
      exportedAt: (opts.now?.() ?? new Date()).toISOString(),
      since,
      checkerVersion: current?.checker_version ?? null,
      checkerBuild: CHECKER_VERSION,
      engine: engine?.v ?? 'unknown',
      files,
      notes: [
        "Each file is its query's output, written by the ClickHouse engine, ordered by the table's dedupe key: the same data gives the same bytes.",
        'Agents whose owners asked to be hidden are left out of every file (documents by the host of their card or endpoint).',
        'agent_daily_history leaves out latency_digest (an engine aggregate state); latency_p50_ms and latency_p95_ms are kept.',
        'checks, verdicts and source fetches expire after 90 days in the index; a snapshot keeps what was there when it was taken.',
        since
          ? `checks and verdicts from ${since} (UTC, by observed_at), daily_rollups and agent_daily_history from that day on; agents, listings and documents whole.`
          : 'Every table whole.',
      ],
    };
    writeFileSync(join(opts.out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(opts.out, CHECKSUMS_FILE), files.map((f) => `${f.sha256}  ${f.file}\n`).join(''));
    return { ...manifest, via };
  } finally {
    await reader.close();
  }
}
