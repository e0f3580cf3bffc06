import { A2A_REGISTRY, createA2aRegistrySource } from './a2a-registry.js';
import { A2AREGISTRY_ORG, createA2aRegistryOrgSource } from './a2aregistry-org.js';
import { createHfSpacesSource, HF_SPACES } from './hf-spaces.js';
import { createMcpRegistrySource, MCP_REGISTRY } from './mcp-registry.js';
import { createNeurontoSource, NEURONTO } from './neuronto.js';
import { createSmitherySource, SMITHERY } from './smithery.js';
import { SOURCE_NAMES, type SourceName } from '../../config.js';
import type { ListingSource } from './types.js';

/** Every listing source by its configuration name (the names themselves are declared in config.ts). */
export const SOURCE_FACTORIES: Readonly<Record<SourceName, () => ListingSource>> = {
  [MCP_REGISTRY]: createMcpRegistrySource,
  [A2A_REGISTRY]: createA2aRegistrySource,
  [A2AREGISTRY_ORG]: createA2aRegistryOrgSource,
  [HF_SPACES]: createHfSpacesSource,
  [NEURONTO]: createNeurontoSource,
  [SMITHERY]: createSmitherySource,
};

export { SOURCE_NAMES };

export function createSources(names: readonly string[] = SOURCE_NAMES): ListingSource[] {
  return names.map((n) => {
    const make = SOURCE_FACTORIES[n as SourceName];
    if (!make) throw new Error(`unknown source "${n}" (known: ${SOURCE_NAMES.join(', ')})`);
    return make();
  });
}

export { runSource, type SourceSummary } from './runner.js';
export type { ListingSource } from './types.js';
