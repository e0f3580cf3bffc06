import { flag } from '../../../findings.js';
import { isObject, jsonType, own, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { card } from '../spec.js';
import type { CardInput } from './input.js';

/** A2A-CARD-009: capabilities is an object. */

export const CAPABILITIES: Rule<CardInput> = {
  id: 'A2A-CARD-009',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Capabilities object',
  description: 'capabilities must be a JSON object.',
  ...card('§5.5.2 AgentCapabilities object', '#552-agentcapabilities-object'),
  check: checkCapabilities,
};

function checkCapabilities({ rec, doc }: CardInput): void {
  rec.pass(CAPABILITIES);
  const caps = own(doc as JsonObject, 'capabilities');
  if (!isObject(caps))
    flag(
      rec,
      CAPABILITIES,
      'document',
      '/capabilities',
      caps === undefined ? 'capabilities is missing' : `capabilities must be an object, found ${jsonType(caps)}`,
    );
}
