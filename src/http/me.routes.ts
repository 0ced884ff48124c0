import { Elysia, t } from 'elysia';
import { KEY_ROLES } from '../domain/keys';
import type { AccountsService } from '../services/accounts.service';
import type { authPlugin } from './auth';
import { oneOf } from './list.schema';

export const MeResponse = t.Object({
  key: t.Object({
    id: t.String(),
    name: t.String(),
    role: oneOf(KEY_ROLES),
    project_ids: t.Nullable(t.Array(t.String())),
    created_at: t.Integer(),
    expires_at: t.Nullable(t.Integer()),
  }),
  organization: t.Object({ id: t.String(), name: t.String() }),
  projects: t.Array(t.Object({ id: t.String(), name: t.String(), created_at: t.Integer() })),
});

export function meRoutes(auth: ReturnType<typeof authPlugin>, accounts: AccountsService) {
  return new Elysia({ prefix: '/v1' }).use(auth).get(
    '/me',
    async ({ principal }) => ({
      key: {
        id: principal.key.id,
        name: principal.key.name,
        role: principal.key.role,
        project_ids: principal.key.project_ids,
        created_at: principal.key.created_at,
        expires_at: principal.key.expires_at,
      },
      organization: { id: principal.org.id, name: principal.org.name },
      projects: (await accounts.visibleProjects(principal)).map((p) => ({ id: p.id, name: p.name, created_at: p.created_at })),
    }),
    {
      response: { 200: MeResponse },
      detail: { summary: 'The calling API key, its organization and the projects it can see', tags: ['Account'] },
    },
  );
}
