import { Elysia, t } from 'elysia';
import type { TemplatesService } from '../services/templates.service';
import type { authPlugin } from './auth';
import { ListQuery } from './list.schema';
import { tableReply } from './tables.routes';
import { Table } from './tables.schema';
import { CreateTemplateBody, Template, TemplateList, UpdateTemplateBody, UseTemplateBody } from './templates.schema';
import { WebhookDeleted } from './webhooks.schema';

const ProjectParams = t.Object({ project_id: t.String() });
const ProjectTemplateParams = t.Object({ project_id: t.String(), template_id: t.String() });
const TemplateParams = t.Object({ template_id: t.String() });

export function templatesRoutes(auth: ReturnType<typeof authPlugin>, templates: TemplatesService) {
  const detail = (summary: string) => ({ summary, tags: ['Table templates'] });
  const project = new Elysia({ prefix: '/v1/projects/:project_id/table-templates' })
    .use(auth)
    .get('', ({ principal, query }) => templates.listForProject(principal.org.id, query), {
      params: ProjectParams,
      query: ListQuery,
      response: { 200: TemplateList },
      detail: detail('List built-in templates and the organization\'s own'),
    })
    .get('/:template_id', ({ principal, params }) => templates.get(principal.org.id, params.template_id), {
      params: ProjectTemplateParams,
      response: { 200: Template },
      detail: detail('Get a template'),
    })
    .post(
      '/:template_id/use',
      async ({ principal, params, body, set }) => {
        set.status = 201;
        return tableReply(set, await templates.use(principal.org.id, params.project_id, params.template_id, body));
      },
      { params: ProjectTemplateParams, body: UseTemplateBody, response: { 201: Table }, detail: detail('Create a table from a template') },
    );
  const own = new Elysia({ prefix: '/v1/table-templates' })
    .use(auth)
    .post(
      '',
      async ({ principal, body, set }) => {
        set.status = 201;
        return templates.create(principal.org.id, principal.key.name, body);
      },
      { body: CreateTemplateBody, response: { 201: Template }, detail: detail('Create a template of the organization') },
    )
    .get('/mine', ({ principal, query }) => templates.listMine(principal.org.id, query), {
      query: ListQuery,
      response: { 200: TemplateList },
      detail: detail('List the organization\'s own templates'),
    })
    .patch('/:template_id', ({ principal, params, body }) => templates.update(principal.org.id, params.template_id, body), {
      params: TemplateParams,
      body: UpdateTemplateBody,
      response: { 200: Template },
      detail: detail('Update a template of the organization (built-in ones are 403)'),
    })
    .delete('/:template_id', ({ principal, params }) => templates.remove(principal.org.id, params.template_id), {
      params: TemplateParams,
      response: { 200: WebhookDeleted },
      detail: detail('Delete a template of the organization (built-in ones are 403)'),
    });
  return new Elysia().use(project).use(own);
}
