/**
 * The one place that names the checker version and every suite id and version.
 * Every verdict carries all three (checker, suite id, suite version).
 *
 * Version scheme (docs/RULES.md, Versions: when the code changes, the version string on a
 * signed result changes too):
 *
 *   CHECKER_VERSION = `VeronikAI/<product major.minor>+attestations.<n>`
 *
 * - `<n>` is bumped on ANY change that can change a verdict, a finding, a reason text, the
 *   inputs hash or the signed payload — in short, whenever the golden verdicts under
 *   test/fixtures/conformance/golden/ change. `npm run goldens` refuses to regenerate them
 *   while the version string is unchanged, so a behaviour change cannot land without a bump.
 *   The only exception is a version that has never been released: the maintainer may then
 *   pass --allow-same-version knowingly (see test/conformance/update-goldens.ts).
 * - `<product major.minor>` follows the package's minor version; a change there resets `<n>` to 1.
 * - A suite's own version is bumped only when the meaning of its rules changes (a rule is
 *   added, removed or judges differently); message wording alone bumps only `<n>`.
 * - Rule IDs are never reused: a withdrawn rule keeps its ID retired in the catalogue.
 *
 * Processors name their consumer group after CHECKER_VERSION, so a bump replays the
 * observation history into new verdict rows beside the old ones.
 */
// attestations.2 (MCP suite v3): MCP-Q-011 reads the one special-purpose IP table the SSRF guard
// uses (AS112 and AMT /24s are public; Teredo, IPv4-compatible and non-2000::/3 IPv6 are not),
// and MCP-T-103 compares endpoints by the canonical URL form agents are keyed by.
// attestations.3: the index signs verdicts a batch at a time, a signed Merkle tree head per batch
// and an inclusion proof per verdict (docs/MERKLE.md), instead of one signature per verdict.
export const CHECKER_VERSION = 'VeronikAI/0.1+attestations.3';

export interface SuiteRef {
  readonly id: string;
  readonly version: number;
}

export const SUITES = {
  /** The A2A agent-card GET suite (suites/a2a/card/). */
  a2aCard: { id: 'veronikai-a2a-get-card', version: 1 },
  /** Required-field structural check against the attributed A2A version (suites/a2a/structure.ts). */
  a2aStructure: { id: 'veronikai-a2a-structure', version: 1 },
  /** MCP quality (server.json) + transport (one GET) (suites/mcp/). */
  mcp: { id: 'veronikai-mcp-conformance', version: 3 },
  /** Agent Plugins 1.0.0 packages, checked statically (suites/plugin/). */
  agentPlugins: { id: 'veronikai-agent-plugins', version: 1 },
  /** The owner-run `veronikai inspect` (speaks the protocol; suites/inspect/). */
  inspect: { id: 'veronikai-inspect', version: 1 },
} as const satisfies Record<string, SuiteRef>;

export type SuiteKey = keyof typeof SUITES;

/** Version of the JSON report written by `veronikai check --json`. */
export const REPORT_VERSION = 1;
/** Canonicalisation of signed payloads (sorted keys, RFC 8785-style numbers and strings). */
export const CANONICALIZATION = 'veronikai-jcs-1';
