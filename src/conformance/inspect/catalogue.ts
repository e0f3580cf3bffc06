import type { Rule } from '../rule.js';
import { INSPECT_SET } from '../suites/inspect/index.js';
import { SUITES } from '../version.js';

/** The rules of `veronikai inspect` (suites/inspect/), as the inspect report and its callers read them. */

/** The suite every inspect rule belongs to. */
export const INSPECT_SUITE = SUITES.inspect;

/** A rule of the inspect suite; its component is the protocol it speaks (`mcp`, `a2a`, or `any`). */
export type InspectRule = Rule;

export { INSPECT_RULES, INSPECT_SET } from '../suites/inspect/index.js';

export function getInspectRule(id: string): InspectRule | undefined {
  return INSPECT_SET.get(id);
}
