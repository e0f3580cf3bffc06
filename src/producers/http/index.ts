export { fetchBounded, userAgent, type FetchOptions, type GateDecision, type RequestGate } from './client.js';
export { HostFailureTracker } from './host-tracker.js';
export * as limits from './limits.js';
export {
  canonicalHost,
  checkHost,
  checkUrl,
  classifyAddress,
  isAddressPermitted,
  parseProbeUrl,
  type AddressClassification,
  type HostCheck,
  type UrlCheck,
} from './ssrf-guard.js';
export { jsonObjectOrNull, parseRetryAfter, textOrNull, type BodyText } from './text.js';
export {
  ERROR_CLASSES,
  NETWORK_ERROR_CLASSES,
  type AddressPolicy,
  type ErrorClass,
  type Exchange,
  type FetchResult,
  type LookupAddress,
  type LookupFn,
} from './types.js';
