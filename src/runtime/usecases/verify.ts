import type { KeyObject } from 'node:crypto';
import type { AttestationPayload } from '../../conformance/attestation.js';
import { verifyAttestation } from '../../conformance/index.js';
import { leafOfRow, verifyHead, verifyLeaf, type SignedHead, type VerdictLeafColumns } from '../../conformance/tree-attestation.js';
import type { Config } from '../../config.js';
import { loadVerifyingKey } from '../../signing/keys.js';
import { fromDateTime64 } from '../../warehouse/time.js';
import { runSql } from './warehouse-tasks.js';

/**
 * `veronikai verify`: every stored verdict row checked against what signed it, with the public key.
 * A row of a signed batch (head_id set) is rebuilt into its leaf from the row's own columns (event,
 * subject, time, checker version, suite, scope, inputs hash, result, reasons and warnings), which
 * must lead through its inclusion proof to the root its head signs, and the head's signature must
 * hold (docs/MERKLE.md). A row signed alone carries its attestation, whose signature must hold and
 * whose payload must say what the row says. So any change to a row's result, reasons or subject
 * shows, and names the row.
 */

/** Reads rows of one statement of ours, a batch at a time (a warehouse's stream, or the running instance's endpoint). */
export type RowReader = (sql: string, onRows: (rows: Array<Record<string, unknown>>) => void | Promise<void>) => Promise<void>;

export interface VerifyFailure {
  eventId: string;
  checkerVersion: string;
  agentKey: string;
  why: string;
}

export interface VerifyResult {
  /** Verdict rows read (every stored copy: a row written twice is checked twice). */
  total: number;
  verified: number;
  /** Heads read, and those whose signature does not hold. */
  heads: number;
  badHeads: number;
  /** The rows that do not verify, at most `maxListed` of them. */
  failures: VerifyFailure[];
  /** Rows that did not verify (beyond those listed too). */
  failed: number;
}

/** Rows that do not verify named in the result; past this many they are only counted. */
export const VERIFY_MAX_LISTED = 1000;

const HEADS_SQL = `SELECT head_id, checker_version, tree_size, root_hash, alg, canonicalization, key_id, signature FROM verdict_heads`;
// A proof's hashes are stored as bytes (clickhouse/0036; hex on older rows): read as hex either way.
const VERDICTS_SQL = `SELECT event_id, agent_key, observed_at, checker_version, suite_id, suite_version, scope, inputs_hash, result,
  reasons, warnings, signature, head_id, leaf_index, arrayMap(h -> if(length(h) = 32, lower(hex(h)), h), proof) AS proof FROM verdicts`;

interface HeadRow {
  head_id: string;
  checker_version: string;
  tree_size: number | string;
  root_hash: string;
  alg: string;
  canonicalization: string;
  key_id: string;
  signature: string;
}

interface VerdictRowRead extends VerdictLeafColumns {
  observed_at: string;
  signature: string;
  head_id: string;
  leaf_index: number | string;
  proof: string[];
}

export async function verifyVerdicts(read: RowReader, publicKey: KeyObject, opts: { maxListed?: number } = {}): Promise<VerifyResult> {
  const maxListed = opts.maxListed ?? VERIFY_MAX_LISTED;
  const heads = new Map<string, { head: SignedHead; valid: boolean }>();
  await read(HEADS_SQL, (rows) => {
    for (const r of rows as unknown as HeadRow[]) {
      const head: SignedHead = {
        id: r.head_id,
        checker: r.checker_version,
        size: Number(r.tree_size),
        root: r.root_hash,
        alg: r.alg as SignedHead['alg'],
        canonicalization: r.canonicalization as SignedHead['canonicalization'],
        keyId: r.key_id,
        signature: r.signature,
      };
      heads.set(r.head_id, { head, valid: verifyHead(head, publicKey) });
    }
  });
  const out: VerifyResult = {
    total: 0,
    verified: 0,
    heads: heads.size,
    badHeads: [...heads.values()].filter((h) => !h.valid).length,
    failures: [],
    failed: 0,
  };
  await read(VERDICTS_SQL, (rows) => {
    for (const r of rows as unknown as VerdictRowRead[]) {
      out.total++;
      const why = r.head_id === '' ? checkAlone(r, publicKey) : checkInTree(r, heads);
      if (why === null) {
        out.verified++;
        continue;
      }
      out.failed++;
      if (out.failures.length < maxListed)
        out.failures.push({ eventId: r.event_id, checkerVersion: r.checker_version, agentKey: r.agent_key, why });
    }
  });
  return out;
}

function checkInTree(r: VerdictRowRead, heads: ReadonlyMap<string, { head: SignedHead; valid: boolean }>): string | null {
  const h = heads.get(r.head_id);
  if (h === undefined) return `its signed head ${r.head_id} is not stored`;
  if (!h.valid) return `its head ${r.head_id} is not signed by this key`;
  if (h.head.checker !== r.checker_version)
    return `its head ${r.head_id} signs checker ${h.head.checker}, the row says ${r.checker_version}`;
  const leaf = leafOfRow(r, fromDateTime64(r.observed_at));
  return verifyLeaf(leaf, Number(r.leaf_index), r.proof, h.head)
    ? null
    : 'the row (result, reasons, subject or another signed column) is not the leaf its head signs';
}

function checkAlone(r: VerdictRowRead, publicKey: KeyObject): string | null {
  let att: unknown;
  try {
    att = JSON.parse(r.signature);
  } catch {
    return 'no signed head and no attestation';
  }
  if (!verifyAttestation(att, publicKey)) return 'its attestation is not signed by this key';
  const p = (att as { payload: AttestationPayload }).payload;
  const reasons = [...r.reasons, ...r.warnings];
  const same =
    p.subject === r.agent_key &&
    p.result === r.result &&
    p.suite.id === r.suite_id &&
    String(p.suite.version) === r.suite_version &&
    Date.parse(p.observedAt) === fromDateTime64(r.observed_at) &&
    p.reasons.length === reasons.length &&
    p.reasons.every((x, i) => x === reasons[i]);
  return same ? null : 'the row (result, reasons or subject) is not what its attestation signs';
}

/**
 * `verify` as a task: the configured warehouse's verdicts against the public key (the data
 * directory's, the configured signing key's, or `publicKeyFile`). Reads go to a running instance
 * when one holds the data directory, as `sql` does.
 */
export async function runVerify(
  config: Config,
  opts: { publicKeyFile?: string | null; onStaleInstance?: (note: string) => void } = {},
): Promise<VerifyResult> {
  const key = loadVerifyingKey({ dataDir: config.dataDir, key: config.signingKey, publicKeyFile: opts.publicKeyFile ?? null });
  const read: RowReader = async (sql, onRows) => {
    await runSql(config, sql, { maxRows: 0, ...(opts.onStaleInstance ? { onStaleInstance: opts.onStaleInstance } : {}) }, onRows);
  };
  return verifyVerdicts(read, key);
}
