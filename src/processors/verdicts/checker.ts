import {
  CHECKER_VERSION,
  judgeA2AObservation,
  judgeMcpObservation,
  type A2AObservation,
  type A2AObservationVerdicts,
  type JudgeContext,
  type McpObservation,
  type McpObservationVerdict,
} from '../../conformance/index.js';

/**
 * A checker: the conformance engine under one version string. The verdict processor
 * takes one, so a replay test can bring a changed rule under a bumped version.
 */
export interface Checker {
  readonly version: string;
  judgeA2A(obs: A2AObservation, ctx: JudgeContext): A2AObservationVerdicts;
  judgeMcp(obs: McpObservation, ctx: JudgeContext): McpObservationVerdict;
}

export const CURRENT_CHECKER: Checker = {
  version: CHECKER_VERSION,
  judgeA2A: judgeA2AObservation,
  judgeMcp: judgeMcpObservation,
};
