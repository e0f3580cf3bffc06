import type { InspectProtocol } from '../../inspect/types.js';
import type { Rule } from '../../rule.js';
import { MCP25 } from './spec.js';

/** INS-GEN-001: the protocol asked for was detected at the URL. */

export interface GeneralInput {
  /** What was asked for, and which protocols were inspected. */
  protocol: 'auto' | InspectProtocol;
  inspected: InspectProtocol[];
  detected: (p: InspectProtocol) => boolean;
}

export const PROTOCOL_DETECTED: Rule<GeneralInput, InspectProtocol[]> = {
  id: 'INS-GEN-001',
  suite: 'inspect',
  component: 'any',
  severity: 'fail',
  basis: 'policy',
  needs: 'live',
  prerequisites: [],
  title: 'Requested protocol detected',
  description: 'The protocol asked for (--protocol mcp or a2a; with auto, either) was not detected at the URL.',
  section: 'MCP 2025-11-25 Transports; A2A 0.3.0 §5.3 Recommended location',
  link: `${MCP25}/basic/transports`,
  check: checkDetected,
};

/** The protocols asked for and not detected (with auto: both, when neither was). */
function checkDetected({ protocol, inspected, detected }: GeneralInput): InspectProtocol[] {
  if (protocol !== 'auto') return [protocol].filter((p) => !detected(p));
  return inspected.some(detected) ? [] : inspected;
}
