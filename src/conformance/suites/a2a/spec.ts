/** The A2A specification texts the card suites restate: a section and its link. */

export interface SpecRef {
  section: string;
  link: string;
}

export const A2A_030 = 'https://a2a-protocol.org/v0.3.0/specification/';
export const A2A_PROTO_101 = 'https://github.com/a2aproject/A2A/blob/v1.0.1/specification/a2a.proto';

/** A section of the A2A 0.3.0 specification. */
export const card = (section: string, anchor: string): SpecRef => ({ section: `A2A 0.3.0 ${section}`, link: A2A_030 + anchor });

// Sections that several rules cite.
export const LOCATION = card('§5.3 Recommended location', '#53-recommended-location');
export const CARD_OBJECT = card('§5.5 AgentCard object structure', '#55-agentcard-object-structure');
export const CARD_OBJECT_101 = card('§5.5 AgentCard object structure (1.0.1: a2a.proto)', '#55-agentcard-object-structure');
export const SKILL = card('§5.5.4 AgentSkill object', '#554-agentskill-object');
