export {
  fetchBounded,
  requestBounded,
  userAgent,
  type FetchOptions,
  type GateDecision,
  type RequestGate,
  type RequestOptions,
} from './client.js';
export { openEventStream, type EventStream, type EventStreamOptions } from './event-stream.js';
export { HostFailureTracker } from './host-tracker.js';
export { PinnedConnections } from './pinned-pool.js';
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
  type OpenBody,
  type RequestMethod,
} from './types.js';
