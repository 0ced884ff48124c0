import { Elysia, t } from 'elysia';
import type { AccountsService } from '../services/accounts.service';
import type { WebhooksService } from '../services/webhooks.service';
import type { authPlugin } from './auth';
import { ListQuery } from './list.schema';
import {
  CreateWebhookBody, DeliveryList, DeliveryQuery, TestResult, UpdateWebhookBody, Webhook, WebhookDeleted, WebhookList, WebhookWithSecret,
} from './webhooks.schema';

const OrgParams = t.Object({ organization_id: t.String() });
const WebhookParams = t.Object({ organization_id: t.String(), id: t.String() });

export function webhooksRoutes(auth: ReturnType<typeof authPlugin>, accounts: AccountsService, webhooks: WebhooksService) {
  const detail = (summary: string) => ({ summary, tags: ['Webhooks'] });
  return new Elysia({ prefix: '/v1/organizations/:organization_id/webhooks' })
    .use(auth)
    .onBeforeHandle({ as: 'local' }, ({ principal, request }) => accounts.authorizeOrgSettings(principal, request.method !== 'GET'))
    .get('', ({ params, query }) => webhooks.list(params.organization_id, query), {
      params: OrgParams,
      query: ListQuery,
      response: { 200: WebhookList },
      detail: detail('List webhooks'),
    })
    .post(
      '',
      async ({ params, body, set }) => {
        set.status = 201;
        return webhooks.create(params.organization_id, body);
      },
      { params: OrgParams, body: CreateWebhookBody, response: { 201: WebhookWithSecret }, detail: detail('Create a webhook (the only answer, with rotate-secret, that shows its secret)') },
    )
    .get('/:id', ({ params }) => webhooks.get(params.organization_id, params.id), {
      params: WebhookParams,
      response: { 200: Webhook },
      detail: detail('Get a webhook'),
    })
    .patch('/:id', ({ params, body }) => webhooks.update(params.organization_id, params.id, body), {
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: Webhook },
      detail: detail('Update a webhook'),
    })
    .delete('/:id', ({ params }) => webhooks.remove(params.organization_id, params.id), {
      params: WebhookParams,
      response: { 200: WebhookDeleted },
      detail: detail('Delete a webhook and its deliveries'),
    })
    .get('/:id/deliveries', ({ params, query }) => webhooks.deliveries(params.organization_id, params.id, query), {
      params: WebhookParams,
      query: DeliveryQuery,
      response: { 200: DeliveryList },
      detail: detail('List the delivery attempts of a webhook'),
    })
    .post('/:id/rotate-secret', ({ params }) => webhooks.rotateSecret(params.organization_id, params.id), {
      params: WebhookParams,
      response: { 200: WebhookWithSecret },
      detail: detail('Rotate the signing secret (the previous one keeps signing for 24 hours)'),
    })
    .post('/:id/test', ({ params }) => webhooks.test(params.organization_id, params.id), {
      params: WebhookParams,
      response: { 200: TestResult },
      detail: detail('Send a ping now and report the outcome'),
    });
}
