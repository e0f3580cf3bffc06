export { fetchBounded, userAgent, type FetchOptions, type GateDecision, type RequestGate } from './client.js';
export { HostFailureTracker } from './host-tracker.js';
export * as limits from './limits.js';
export {
  canonicalHost,
  checkHost,
  checkUrl,
  classifyAddress,
  isAddressPermitted,
  isLocalNetworkAddress,
  parseProbeUrl,
  type AddressClassification,
  type HostCheck,
  type UrlCheck,
} from './ssrf-guard.js';
export { parseRetryAfter } from './text.js';
export {
  CONNECTIVITY_ERROR_CLASSES,
  ERROR_CLASSES,
  GATE_ERROR_CLASSES,
  NETWORK_ERROR_CLASSES,
  OMITTED_HEADERS_MARKER,
  ORIGIN_UNREACHABLE_ERROR_CLASSES,
  REDIRECT_STATUSES,
  type AddressPolicy,
  type ErrorClass,
  type Exchange,
  type FetchResult,
  type LookupAddress,
  type LookupFn,
} from './types.js';
