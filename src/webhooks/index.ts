import { settingName, UsageError } from '../config.js';
import { loadSubscriptionsFile, WebhooksFileError, type Subscription } from './subscriptions.js';

export { WEBHOOK_DELIVERER_GROUP, WebhookDeliverer, type WebhookDelivererOptions } from './deliverer.js';
export { deliveryBody, webhookUserAgent } from './deliver.js';
export { deliveryId, signPayload, verifySignature, WEBHOOK_HEADERS } from './signature.js';
export { loadSubscriptionsFile, parseSubscriptions, subscriptionMatches, WebhooksFileError, type Subscription } from './subscriptions.js';

/** The configured subscriptions, or a UsageError (one line at start, exit code 2) naming the setting and the problem. */
export function loadWebhookSubscriptions(file: string): Subscription[] {
  try {
    return loadSubscriptionsFile(file);
  } catch (err) {
    if (err instanceof WebhooksFileError) throw new UsageError(`${settingName('webhooksFile')}: ${err.message}`);
    throw err;
  }
}
