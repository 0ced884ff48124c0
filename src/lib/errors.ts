/**
 * The one error type behind every error envelope. Services throw it; the HTTP layer turns it into
 * `{ success: false, status, status_key, error_key, message, fields }`.
 */
export interface FieldError {
  error_key: string;
  message: string;
  path: string;
}

export type FieldErrors = Record<string, FieldError[]>;

export type ErrorKey =
  | 'invalid_input'
  | 'unauthorized'
  | 'api_request_limit_exceeded'
  | 'feature_not_available'
  | 'forbidden'
  | 'org_suspended'
  | 'not_found'
  | 'table_not_found'
  | 'column_not_found'
  | 'row_not_found'
  | 'row_source_not_found'
  | 'webhook_not_found'
  | 'request_timeout'
  | 'table_project_id_duplicate'
  | 'optimistic_lock_conflict'
  | 'content_too_large'
  | 'unsupported_media_type'
  | 'unprocessable_entity'
  | 'too_many_requests'
  | 'internal_server_error'
  | 'bad_gateway'
  | 'service_unavailable'
  | 'gateway_timeout';

const STATUS_KEYS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  408: 'request_timeout',
  409: 'conflict',
  413: 'content_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_content',
  429: 'too_many_requests',
  500: 'internal_server_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

export function statusKey(status: number): string {
  return STATUS_KEYS[status] ?? 'error';
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorKey: ErrorKey,
    message: string,
    readonly fields: FieldErrors = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody() {
    return {
      success: false as const,
      status: this.status,
      status_key: statusKey(this.status),
      error_key: this.errorKey,
      message: this.message,
      fields: this.fields,
    };
  }
}

/** Builds a 400 invalid_input whose `fields` name each bad path. */
export function invalidInput(message: string, problems: Array<{ path: string; message: string; error_key?: string }> = []): ApiError {
  // A Map, not an object: paths come from the client's keys, and `constructor` or `__proto__` would hit Object's own.
  const byPath = new Map<string, FieldErrors[string]>();
  for (const p of problems) {
    if (!byPath.has(p.path)) byPath.set(p.path, []);
    byPath.get(p.path)!.push({ error_key: p.error_key ?? 'invalid', message: p.message, path: p.path });
  }
  return new ApiError(400, 'invalid_input', message, Object.fromEntries(byPath));
}

/** A 400 invalid_input naming every problem, its message taken from the first. */
export function invalidFields(problems: Array<{ path: string; message: string; error_key?: string }>): ApiError {
  const first = problems[0];
  return invalidInput(first ? `${first.path}: ${first.message}` : 'Invalid request', problems);
}

/** Shorthand for an invalid_input about a single field. */
export function fieldError(path: string, message: string, errorKey = 'invalid'): ApiError {
  return invalidInput(`${path}: ${message}`, [{ path, message, error_key: errorKey }]);
}

export const notFound = (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found`);

/**
 * `If-Match` must name the current ETag (or `*`; weak tags compare by their value): a stale one is
 * 409 optimistic_lock_conflict carrying the current ETag. No header, no check.
 */
export function checkIfMatchTag(ifMatch: string | null, current: string, what: string): void {
  if (ifMatch === null) return;
  const tags = ifMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes('*') || tags.includes(current)) return;
  throw new ApiError(409, 'optimistic_lock_conflict', `The ${what} changed since you read it; fetch it again and retry`, {}, { ETag: current });
}
