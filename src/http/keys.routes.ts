import { Elysia, t } from 'elysia';
import { KEY_ROLES } from '../domain/keys';
import type { KeysService } from '../services/keys.service';
import type { authPlugin } from './auth';
import { Id, ListEnvelopeFields, ListQuery, oneOf, Timestamp } from './list.schema';

const Role = oneOf(KEY_ROLES);

const ApiKey = t.Object({
  id: Id,
  name: t.String(),
  role: Role,
  project_ids: t.Nullable(t.Array(t.String())),
  prefix: t.String({ description: 'The first characters of the key, to tell keys apart' }),
  created_at: Timestamp,
  expires_at: t.Nullable(Timestamp),
  revoked_at: t.Nullable(Timestamp),
});

const KeyCreate = t.Object({
  name: t.Optional(t.String({ maxLength: 100 })),
  role: t.Optional(Role),
  project_ids: t.Optional(t.Nullable(t.Array(t.String(), { maxItems: 100 }))),
  expires_at: t.Optional(t.Nullable(Timestamp)),
});

const CreatedKey = t.Composite([ApiKey, t.Object({ key: t.String({ description: 'The key itself: shown this once, never again' }) })]);

export function keysRoutes(auth: ReturnType<typeof authPlugin>, keys: KeysService) {
  const detail = (summary: string) => ({ summary, tags: ['API keys'] });
  return new Elysia({ prefix: '/v1/keys' })
    .use(auth)
    .get('', ({ principal, query }) => keys.list(principal, query), {
      query: ListQuery,
      response: { 200: t.Object({ ...ListEnvelopeFields, keys: t.Array(t.Partial(ApiKey)) }) },
      detail: detail("List the organization's API keys (an organization-wide admin key)"),
    })
    .post(
      '',
      async ({ principal, body, set }) => {
        set.status = 201;
        return keys.create(principal, body);
      },
      { body: KeyCreate, response: { 201: CreatedKey }, detail: detail('Create an API key; its value is in the answer, once') },
    )
    .delete('/:key_id', ({ principal, params }) => keys.revoke(principal, params.key_id), {
      params: t.Object({ key_id: t.String() }),
      response: { 200: ApiKey },
      detail: detail('Revoke an API key'),
    });
}
