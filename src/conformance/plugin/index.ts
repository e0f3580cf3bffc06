/**
 * Agent Plugins 1.0.0 package conformance: the check of a package snapshot with the rules of
 * suites/plugin/, its rule catalogue, and the report renderers. The file system is read by
 * src/runtime/usecases/plugin-package.ts, never here.
 */
export * from './catalogue.js';
export type { Resolution, FileContent, FileEntry, SkillEntry, SkillsEntry, PluginSnapshot } from './snapshot.js';
export { mcpPathsToResolve, cwdForm, commandKey, PLUGIN_ROOT_PLACEHOLDER, PLUGIN_DATA_PLACEHOLDER } from './paths.js';
export { parseFrontmatter, splitFrontmatter } from './frontmatter.js';
export {
  evaluatePluginPackage,
  componentsFor,
  rulesFor,
  pluginNameProblem,
  skillNameProblem,
  remoteUrlProblem,
  isLoopbackHost,
  MAX_PLUGIN_FINDINGS,
  type PluginEvaluation,
  type PluginFinding,
  type PluginIncomplete,
  type PluginRuleOutcome,
  type PluginComponents,
  type ComponentState,
  type EvaluateOptions,
} from './engine.js';
export {
  buildPluginReport,
  buildPluginReportSet,
  renderPluginTerminal,
  renderPluginSetTerminal,
  renderPluginSarif,
  renderPluginRuleList,
  type PluginReport,
  type PluginReportSet,
} from './report.js';
export { PLUGIN_REPORT_SCHEMA, PLUGIN_REPORT_SET_SCHEMA } from './report-schema.js';
export { renderPluginJUnit } from './junit.js';
