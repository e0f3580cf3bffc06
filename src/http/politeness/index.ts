export { CANARY, POLITENESS, type PolitenessSettings } from './constants.js';
export { Limiter, limitKeys, type Acquired, type HostPacing, type LimiterOptions, type RequestOutcome } from './limiter.js';
export {
  RobotsCache,
  classifyRobotsFetch,
  declaredGroups,
  parseRobotsTxt,
  robotsFetchKind,
  robotsUrlFor,
  selectGroup,
  type RobotsCacheOptions,
  type RobotsCheck,
  type RobotsFetchContext,
  type RobotsFetchKind,
  type RobotsFetchOutcome,
  type RobotsFetcher,
  type RobotsVerdict,
} from './robots.js';
