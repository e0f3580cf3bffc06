import { LRUCache } from 'lru-cache';
import type { DocumentEvent } from '../events/types.js';
import { textOrNull } from '../util/text.js';
import type { DocumentText } from './verdicts/observation.js';
import { pollUntil, PollTimeoutError } from '../util/poll.js';
import type { InsertRow } from '../warehouse/tables.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';

/** Consumer group of the document store (the verdict processor reads the documents it writes). */
export const DOCUMENTS_GROUP = 'veronikai.documents.v1';

/**
 * How long the verdict processor waits, per attempt, for a document its probes name: the probe
 * worker produces documents before their probe events, but this processor may be a moment behind.
 * Well under the consumer session timeout (30 s by default); the runner heartbeats while a batch is written.
 */
export const DOCUMENT_WAIT_MS = 15_000;
const DOCUMENT_POLL_MS = 200;

/**
 * A document as the `documents` table keeps it: the text the rules judge (its bytes decoded as
 * UTF-8 exactly as a probe body is, util/text.ts), so judging it needs no second decoding.
 */
export function documentRow(ev: DocumentEvent): InsertRow<'documents'> {
  const { text, validUtf8 } = textOrNull(ev.body);
  return {
    sha256: ev.sha256,
    text: text ?? '',
    valid_utf8: validUtf8 ? 1 : 0,
    bytes: ev.body.length,
    url: ev.url,
    observed_at: new Date(ev.observedAt),
  };
}

/** documents topic → `documents` table, keyed by content hash (a redelivered document changes nothing). */
export function createDocumentStore(opts: EventProcessorDeps & { warehouse: Warehouse }) {
  return createEventProcessor(opts, {
    groupId: DOCUMENTS_GROUP,
    topic: 'documents',
    event: 'Document',
    write: (events) => opts.warehouse.insert('documents', events.map(documentRow)),
  });
}

/** Documents a batch of probes names that the `documents` table does not hold (yet). */
export class MissingDocumentsError extends Error {
  override name = 'MissingDocumentsError';
  constructor(readonly hashes: readonly string[]) {
    super(
      `${hashes.length} document(s) named by probe events are not in the documents table (is the documents processor running?): ${hashes.slice(0, 3).join(', ')}`,
    );
  }
}

/**
 * Bytes of document text a reader keeps (about two bytes a character, as the engine returns it):
 * a document is named by its hash, so a kept one is never stale, and the probes of a replay name
 * the same few documents over and over (one a card, agents × versions of it), each read once.
 */
export const DOCUMENT_CACHE_BYTES = 64 * 1024 * 1024;

/** Reads documents by hash, waiting a bounded time for those the document store has not written yet. */
export class DocumentReader {
  private readonly kept: LRUCache<string, DocumentText>;
  constructor(
    private readonly warehouse: Warehouse,
    private readonly waitMs: number = DOCUMENT_WAIT_MS,
    cacheBytes: number = DOCUMENT_CACHE_BYTES,
  ) {
    this.kept = new LRUCache({ maxSize: cacheBytes, sizeCalculation: (d, h) => 2 * (d.text.length + h.length) + 64 });
  }

  /** Text of every hash; throws MissingDocumentsError when some are still missing after the wait. */
  async texts(hashes: Iterable<string>): Promise<Map<string, DocumentText>> {
    const out = new Map<string, DocumentText>();
    let missing: string[] = [];
    for (const h of new Set(hashes)) {
      const d = this.kept.get(h);
      if (d === undefined) missing.push(h);
      else out.set(h, d);
    }
    if (missing.length === 0) return out;
    try {
      await pollUntil(
        'documents',
        async () => {
          const rows = await this.warehouse.query<{ sha256: string; text: string; valid_utf8: number }>(
            'SELECT sha256, any(text) AS text, any(valid_utf8) AS valid_utf8 FROM documents WHERE sha256 IN {hashes:Array(String)} GROUP BY sha256',
            { hashes: missing },
          );
          for (const r of rows) {
            const d = { text: r.text, validUtf8: Number(r.valid_utf8) === 1 };
            out.set(r.sha256, d);
            this.kept.set(r.sha256, d);
          }
          missing = missing.filter((h) => !out.has(h));
          return missing.length === 0 ? { done: true, value: undefined } : { done: false, why: `${missing.length} missing` };
        },
        { timeoutMs: this.waitMs, intervalMs: DOCUMENT_POLL_MS },
      );
    } catch (err) {
      if (err instanceof PollTimeoutError) throw new MissingDocumentsError(missing);
      throw err;
    }
    return out;
  }
}
