/** Suite veronikai-inspect v1: its rules and the judges that run them on an inspect's exchanges. */
export { INSPECT_RULES, INSPECT_SET, PROTOCOL_DETECTED } from './rules.js';
export { judgeMcp, type McpJudgement, type McpSummary, type ToolHash } from './mcp/index.js';
export { judgeA2A, lintCard, type A2AJudgement, type A2ASummary, type LintResult } from './a2a/index.js';
export { judgeAuth, type AuthSummary } from './auth/index.js';
