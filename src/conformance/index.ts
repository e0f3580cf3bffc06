/**
 * The conformance engine: a pure library (no file system, no network, no clock reads).
 * Inputs are plain data (types.ts); every verdict names the checker version and its suite.
 */
export * from './types.js';
export * from './version.js';
export * from './catalogue.js';
export { attribute, readVersion, contextVersion, type Attribution, type Family, type Route, type Basis } from './a2a-attribution.js';
export { checkStructure, structuralAnswer, SCHEMAS, type StructureResult, type StructuralAnswer, type Violation } from './a2a-structure.js';
export { readChain } from './suites/a2a/card/index.js';
export { classifyHost, isPrivateHost, type HostClass, type HostVerdict } from '../core/private-host.js';
export { classifyA2AUptime, classifyMcpUptime, MCP_UP_STATUSES, type UptimeState, type UptimeVerdict } from './uptime.js';
export { declaredRemotes } from './mcp-quality.js';
export {
  checkA2ACard,
  checkServerJson,
  judgeA2AObservation,
  judgeMcpObservation,
  judgeMcpEndpoint,
  displayLocation,
  type Verdict,
  type JudgeContext,
  type A2AStructureDetail,
  type A2ADocumentVerdicts,
  type A2AObservationVerdicts,
  type McpObservationVerdict,
} from './verdict.js';
export { canonicalJson, hashInputs, sha256Hex } from '../core/canonical-json.js';
export {
  signVerdict,
  verifyAttestation,
  verifyVerdict,
  attestationPayload,
  keyIdOf,
  generateSigningKeyPair,
  type Attestation,
  type AttestationPayload,
} from './attestation.js';
export {
  buildReport,
  renderTerminal,
  renderSarif,
  renderRuleList,
  type CheckRun,
  type CheckReport,
  type TargetKind,
  type RuleOutcome,
} from './report.js';
export { CHECK_REPORT_SCHEMA } from './report-schema.js';
export {
  SARIF_SCHEMA_URI,
  SARIF_VERSION,
  SRCROOT,
  FINGERPRINT_KEY,
  localArtifact,
  urlArtifact,
  fileUri,
  type SarifOptions,
} from './sarif.js';
export { renderCheckJUnit, junitXml, type JUnitCase, type JUnitSuite } from './junit.js';
export { locatePointers } from '../core/json-locate.js';
export { detectKind, type DocumentKind } from './detect.js';
export * from './plugin/index.js';
export {
  INSPECT_RULES,
  INSPECT_SUITE,
  getInspectRule,
  buildInspectReport,
  renderInspectTerminal,
  renderInspectSarif,
  type InspectRule,
  type InspectReport,
  type InspectObservation,
} from './inspect/index.js';
