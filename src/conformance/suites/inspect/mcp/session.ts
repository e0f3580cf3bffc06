import type { Rule } from '../../../rule.js';
import { SESSIONS25, TRANSPORTS25 } from '../spec.js';
import type { McpJudgeInput } from './input.js';

/** INS-MCP-004 and 005: after a legacy handshake, notifications/initialized is accepted with 202 and a session ends on DELETE. */

export const INITIALIZED_ACCEPTED: Rule<McpJudgeInput> = {
  id: 'INS-MCP-004',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'notifications/initialized accepted with 202',
  description: 'A notification POSTed over Streamable HTTP must be answered 202 Accepted with no body.',
  ...TRANSPORTS25,
  check: checkSession,
};

export const SESSION_DELETE: Rule<McpJudgeInput> = {
  id: 'INS-MCP-005',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Session ends on DELETE',
  description: 'A DELETE with the Mcp-Session-Id should end the session (2xx), or be refused with 405 when clients may not end sessions.',
  ...SESSIONS25,
  check: checkSession,
};

function checkSession({ checks, ex, summary }: McpJudgeInput): void {
  const initialized = ex.find((e) => e.step === 'mcp.initialized');
  if (initialized && summary.era === 'legacy') {
    if (initialized.status === 202)
      checks.pass('notifications/initialized', INITIALIZED_ACCEPTED, 'accepted with 202', initialized.url, [initialized]);
    else
      checks.flag(
        INITIALIZED_ACCEPTED,
        'notifications/initialized',
        `answered ${initialized.status === null ? (initialized.errorClass ?? 'nothing') : `HTTP ${initialized.status}`}, not 202 Accepted`,
        initialized.url,
        [initialized],
      );
  }
  const del = ex.find((e) => e.step === 'mcp.delete-session');
  if (!del) return;
  const s = del.status;
  if (s !== null && ((s >= 200 && s < 300) || s === 405))
    checks.pass(
      'session DELETE',
      SESSION_DELETE,
      s === 405 ? 'the server does not let clients end sessions (405)' : `session ended (HTTP ${s})`,
      del.url,
      [del],
    );
  else
    checks.flag(
      SESSION_DELETE,
      'session DELETE',
      `DELETE with the session id answered ${s === null ? (del.errorClass ?? 'nothing') : `HTTP ${s}`}`,
      del.url,
      [del],
    );
}
