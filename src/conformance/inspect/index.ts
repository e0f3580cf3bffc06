/**
 * The judgement of `veronikai inspect` (pure: no I/O, no clock). The producer records
 * InspectExchanges; `buildInspectReport` turns them into states, checks with evidence,
 * findings and the `protocols` summary.
 */
export * from './types.js';
export { INSPECT_RULES, INSPECT_SET, INSPECT_SUITE, getInspectRule, type InspectRule } from './catalogue.js';
export {
  buildInspectReport,
  renderInspectTerminal,
  renderInspectSarif,
  INSPECT_REPORT_VERSION,
  type InspectReport,
  type InspectFinding,
} from './report.js';
export { renderInspectJUnit } from './junit.js';
export {
  judgeMcp,
  judgeA2A,
  lintCard,
  judgeAuth,
  type McpSummary,
  type McpJudgement,
  type ToolHash,
  type A2ASummary,
  type A2AJudgement,
  type LintResult,
  type AuthSummary,
} from '../suites/inspect/index.js';
export { cardCandidates, openIdConnectUrls, CURRENT_PATH, LEGACY_PATH } from './a2a.js';
export { prmCandidates, authServerCandidates } from './auth.js';
export { CheckList, evidenceOf, type InspectCheck, type Evidence, type CheckOutcome } from './checks.js';
export { findSecrets, redactText, shannonEntropy, type SecretMatch } from './secrets.js';
export { parseWwwAuthenticate, bearerChallenge, type Challenge } from './www-authenticate.js';
export { readReply, replyInText, hasReply, type JsonRpcReply } from './jsonrpc.js';
export * from './mcp-messages.js';
