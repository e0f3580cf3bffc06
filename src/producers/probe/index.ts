export {
  AGENT_CARD_PATH,
  LEGACY_AGENT_CARD_PATH,
  fetchA2ACardChain,
  type A2ACardChainResult,
  type A2AChainOptions,
  type A2AChainStep,
  type A2AChainStepKind,
  type A2AChainStepOutcome,
} from './a2a-chain.js';
export {
  PROTECTED_RESOURCE_WELL_KNOWN,
  hasCompleteSseEvent,
  probeMcpEndpoint,
  protectedResourceMetadataUrls,
  resourceMetadataFromWwwAuthenticate,
  type McpProbeOptions,
  type McpProbeResult,
  type MetadataSource,
} from './mcp-get.js';
export * from '../../http/index.js';
