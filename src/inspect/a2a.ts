/**
 * Finding the agent card (the URL given when it names a .json document, then the current and the
 * legacy well-known paths) and fetching every openIdConnectUrl it declares. GETs only.
 */
import { cardCandidates, openIdConnectUrls } from '../conformance/inspect/a2a.js';
import { isObject, parseJson } from '../core/json-util.js';
import { CARD_MAX_BYTES, METADATA_MAX_BYTES } from '../http/limits.js';
import type { InspectSession } from './session.js';

const MAX_OIDC_URLS = 4;

export async function inspectA2A(s: InspectSession, input: string): Promise<void> {
  let card: unknown = null;
  for (const url of cardCandidates(input)) {
    const ex = await s.send('a2a.card', 'GET', url, { headers: { accept: 'application/json' }, maxBytes: CARD_MAX_BYTES, follow: true });
    if (!ex) return;
    if (ex.status === 200) {
      const r = parseJson(ex.body);
      if (
        r.ok &&
        isObject(r.value) &&
        (typeof r.value.name === 'string' || 'skills' in r.value || 'protocolVersion' in r.value || 'supportedInterfaces' in r.value)
      ) {
        card = r.value;
        break;
      }
    }
  }
  if (card === null) return;
  for (const url of openIdConnectUrls(card).slice(0, MAX_OIDC_URLS)) {
    // A declared URL on another host gets no credential; the guard applies as to every request.
    await s.send('a2a.oidc', 'GET', url, {
      headers: { accept: 'application/json' },
      maxBytes: METADATA_MAX_BYTES,
      follow: true,
      form: url,
      credentials: false,
    });
  }
}
