import type { VerdictRecorder } from '../../../findings.js';
import type { HttpExchange } from '../../../types.js';

/**
 * What the rules of suite veronikai-a2a-get-card read: the card chain of an observation (none for
 * a document), the card text (none for a parsed value), and the card, which A2A-CARD-003 sets
 * from the text once it parses.
 */
export interface CardInput {
  rec: VerdictRecorder;
  /** How the card chain ended, for an observation whose chain gave an answer to judge; null for a document. */
  chain: Extract<ChainOutcome, { kind: 'card' | 'not-public' | 'no-card' }> | null;
  /** The exchanges of the card chain (none for a document). */
  exchanges: readonly HttpExchange[];
  /** The card text, or null when the card was given as a parsed value. */
  text: string | null;
  validUtf8: boolean;
  /** The card as a value: given, or parsed from the text by A2A-CARD-003. */
  doc: unknown;
  /** False when the text is not JSON text; `why` then says why. */
  parsed: boolean;
  why?: string;
}

/** How the card chain ended, before any document is judged. */
export type ChainOutcome =
  | { kind: 'card'; exchange: HttpExchange; index: number }
  | { kind: 'truncated'; exchange: HttpExchange; index: number }
  | { kind: 'not-public'; exchange: HttpExchange; index: number }
  | { kind: 'unknown'; reason: string }
  | { kind: 'no-card'; reason: string };
