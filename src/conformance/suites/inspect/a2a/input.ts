import type { attribute } from '../../../a2a-attribution.js';
import type { CheckList, InspectCheck } from '../../../inspect/checks.js';
import type { SecretMatch } from '../../../inspect/secrets.js';
import type { DetectionState, InspectExchange } from '../../../inspect/types.js';
import type { JsonObject } from '../../../../core/json-util.js';
import type { Verdict } from '../../../verdict.js';

export interface A2ASummary {
  state: DetectionState;
  cardUrl: string | null;
  legacyPathOnly: boolean;
  secretsFound: number;
  oidc: 'resolves' | 'dead' | 'absent';
  skillsWithoutDescription: number;
  securitySchemesDeclared: boolean;
}

export interface A2AJudgement {
  summary: A2ASummary;
  checks: InspectCheck[];
  /** The index's suites on the card (veronikai-a2a-get-card, veronikai-a2a-structure). */
  suites: Verdict[];
  detail: { attribution: ReturnType<typeof attribute> | null; secrets: SecretMatch[]; openIdConnectUrls: string[] };
}

export interface LintResult {
  skillsWithoutDescription: number;
  securitySchemesDeclared: boolean;
  secrets: SecretMatch[];
}

/** What the A2A rules of the inspect read: the card found, and the exchanges made. */
export interface A2AJudgeInput {
  checks: CheckList;
  all: InspectExchange[];
  /** The card fetches, in order, and the one that returned the card. */
  tries: InspectExchange[];
  hit: InspectExchange;
  card: JsonObject;
  summary: A2ASummary;
  detail: A2AJudgement['detail'];
}

/** What the document rules of the lint read: a card's text and its parsed value (an object). */
export interface LintInput {
  text: string;
  value: JsonObject;
  /** The card's URL or file name, for the check locations. */
  where: string;
  checks: CheckList;
  /** The fetch the card came from, attached to every check (none when the card was read from a file). */
  evidence: InspectExchange[];
}
