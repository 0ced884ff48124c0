/** Turns every failure into the one error envelope; nothing internal ever reaches a client. */
import { Value } from '@sinclair/typebox/value';
import { Elysia, ValidationError, type AnyElysia } from 'elysia';
import { ApiError, invalidFields, type FieldError } from '../lib/errors';
import type { Logger } from '../lib/log';

export function errorResponse(error: ApiError, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers, ...extraHeaders },
  });
}

/** `/columns_json/0/name` -> `columns_json[0].name`, the paths users see in `fields`. */
export function jsonPointerToPath(pointer: string, root: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out || root;
}

interface SchemaError {
  path: string;
  message: string;
  schema?: { error?: unknown };
  errors?: Iterable<Iterable<{ message: string }>>;
}

/** A union's own message ("Expected union value") says nothing; say what each branch wanted. */
function describe(error: SchemaError): string {
  if (typeof error.schema?.error === 'string') return error.schema.error;
  if (!error.errors) return error.message;
  const firsts = [...error.errors].map((branch) => [...branch][0]?.message).filter((m): m is string => !!m);
  const plainType = /^Expected (string|number|integer|null|boolean|array|object)$/;
  const specific = firsts.filter((m) => !plainType.test(m));
  const chosen = [...new Set(specific.length ? specific : firsts)];
  if (chosen.length === 0) return error.message;
  if (chosen.every((m) => m.startsWith('Expected '))) return 'Expected ' + chosen.map((m) => m.slice(9)).join(' or ');
  return chosen.join('; or ');
}

const ROOTS: Record<string, string> = { body: 'body', query: 'query', params: 'params', headers: 'headers' };

type PropertySchema = { anyOf?: Array<{ type?: string }> } & Record<string, unknown>;

/**
 * Elysia converts numeric query parameters one at a time and then forgets which one failed, so
 * such errors are checked again, parameter by parameter, against the route's query schema.
 */
function numericQueryProblems(app: AnyElysia, method: string, route: string, query: Record<string, unknown>): SchemaError[] {
  const strip = (p: string) => p.replace(/\/+$/, '');
  const schema = app.routes.find((r) => r.method === method && strip(r.path) === strip(route))?.hooks?.query as
    | { properties?: Record<string, PropertySchema> }
    | undefined;
  const problems: SchemaError[] = [];
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    const raw = query[name];
    const numeric = prop.anyOf?.find((b) => b.type === 'integer' || b.type === 'number');
    if (raw === undefined || !numeric) continue;
    const first = [...Value.Errors(numeric as never, Number(raw))][0];
    if (first) problems.push({ path: `/${name}`, message: first.message });
  }
  return problems;
}

function validationProblems(app: AnyElysia, error: ValidationError, method: string, route: string, query: unknown): FieldError[] {
  let errors = error.all as SchemaError[];
  let part = error.type;
  if (part === 'property') {
    errors = numericQueryProblems(app, method, route, (query ?? {}) as Record<string, unknown>);
    part = 'query';
  }
  const root = ROOTS[part] ?? part;
  return errors.map((e) => ({ path: jsonPointerToPath(e.path, root), message: describe(e), error_key: 'invalid' }));
}

/** Checks a value the route could not declare as its body (multipart fields) against a `t` schema: 400 naming each bad path. */
export function checkShape(schema: Parameters<typeof Value.Errors>[0], value: unknown, root: string): void {
  const errors = [...Value.Errors(schema, value)] as unknown as SchemaError[];
  if (errors.length) throw invalidFields(errors.map((e) => ({ path: `${root}${jsonPointerToPath(e.path, '').replace(/^(?=[^[])/, root && e.path ? '.' : '')}`, message: describe(e), error_key: 'invalid' })));
}

export function toApiError(app: AnyElysia, code: unknown, error: unknown, ctx: { method: string; route: string; query: unknown }): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof Error && error.cause instanceof ApiError) return error.cause;
  if (code === 'NOT_FOUND') return new ApiError(404, 'not_found', 'No such endpoint');
  if (code === 'PARSE') return new ApiError(400, 'invalid_input', 'The request body could not be parsed');
  if (code === 'VALIDATION' && error instanceof ValidationError) {
    return invalidFields(validationProblems(app, error, ctx.method, ctx.route, ctx.query));
  }
  return new ApiError(500, 'internal_server_error', 'Something went wrong on our side');
}

/** The global error hook: every error from a route, hook or parser becomes the envelope. */
export function errorHandler(log: Logger, root: () => AnyElysia) {
  return new Elysia({ name: 'error-envelope' }).onError({ as: 'global' }, (ctx) => {
    const { code, error, request } = ctx;
    const route = (ctx as unknown as { route?: string }).route ?? '';
    const query = (ctx as unknown as { query?: unknown }).query ?? {};
    const apiError = toApiError(root(), code, error, { method: request.method, route, query });
    if (apiError.status >= 500) {
      log.error('request_failed', { method: request.method, path: new URL(request.url).pathname, error: String((error as Error)?.stack ?? error) });
    }
    return errorResponse(apiError);
  });
}
