/**
 * Checks answers against the response schemas of the reference OpenAPI (the hosted API rowsmith
 * implements), with ajv. What rowsmith knowingly does differently is listed once, in
 * KNOWN_DIFFERENCES, each with its reason; everything else that does not fit is a problem.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Beside the repository, not in it (CI has it; a clone alone does not). */
export const REFERENCE_PATH = join(import.meta.dir, '..', '..', '..', 'shared', 'spec', 'reference-openapi.json');

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
}

export interface KnownDifference {
  /** `METHOD /reference/path/{template}`; `*` for any operation. */
  operation: string;
  /** Where in the answer, as a pattern over ajv's instance path (with the extra property's name appended for `additionalProperties`). */
  at: RegExp;
  /** The ajv keyword of the mismatch (`additionalProperties`, `minItems`, ...). */
  keyword: string;
  /** Only for requests whose query string matches this. */
  query?: RegExp;
  /** Only for values at that place that pass this. */
  value?: (value: unknown) => boolean;
  reason: string;
}

/** The one list of places where rowsmith's answers knowingly differ from the reference's schemas. */
export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    operation: '*',
    at: /(^|\/)events$/,
    keyword: 'additionalProperties',
    reason:
      'Webhooks answer with `events` (the name a client sends the list under on create and update, in the reference and in service-api.md) beside the reference\'s `events_json` (the same list), so what was sent reads back under its own name.',
  },
  {
    operation: '*',
    at: /^\/files\/\d+\/(error|file_name)$/,
    keyword: 'oneOf',
    value: (value) => value === null,
    reason:
      "The reference gives extract's files[].error and file_name as `oneOf: [{}, {type: null}]`: null matches both branches, so no null can pass; the SDK types them `unknown | null`, and rowsmith sends null when there is no error.",
  },
  {
    operation: '*',
    at: /^\/\w+\/\d+$/,
    keyword: 'required',
    query: /(^|&)select=/,
    reason: "With the reference's own `select` parameter a list's items carry only the chosen fields; its item schemas mark every field required regardless.",
  },
  {
    operation: 'GET /v1/projects/{project_id}/tables/{table_id}/columns/{col_id}/distinct',
    at: /^\/values\/\d+$/,
    keyword: 'oneOf',
    value: (value) => typeof value === 'boolean',
    reason:
      "A boolean column's distinct values are the booleans its rows hold; the reference's items allow only strings, numbers and null, and strings would not match the rows' own values in a filter.",
  },
  {
    operation: '*',
    at: /(^|\/)schema_json\/columns$/,
    keyword: 'minItems',
    reason: 'A project-level batch whose files held nothing to infer a schema from has no columns; the reference never shows such a batch.',
  },
];

/** rowsmith's own endpoints, absent from the reference: nothing to check their answers against. */
export const ROWSMITH_ADDITIONS: RegExp[] = [
  /^GET \/(healthz|readyz)$/,
  /^GET \/swagger(\/json|\/assets\/[^/]+)?$/,
  /^GET \/v1\/me$/,
  /^(GET|POST) \/v1\/keys$/,
  /^DELETE \/v1\/keys\/[^/]+$/,
  /^GET \/v1\/projects\/[^/]+\/exports\/[^/]+\/download$/,
  /^GET \/v1\/projects\/[^/]+\/tables\/[^/]+\/rows\/[^/]+\/source$/,
  // Review and learn: examples, evaluation, provenance and page images.
  /^(GET|DELETE) \/v1\/projects\/[^/]+\/tables\/[^/]+\/examples(\/[^/]+)?$/,
  /^POST \/v1\/projects\/[^/]+\/tables\/[^/]+\/evaluate$/,
  /^GET \/v1\/projects\/[^/]+\/tables\/[^/]+\/rows\/[^/]+\/(provenance|source\/pages\/[^/]+)$/,
  // A batch's progress for any client, on any node.
  /^GET \/v1\/projects\/[^/]+\/batches\/[^/]+\/events$/,
];

export interface ShapeCheck {
  /** The reference operation the answer was checked against, or null for a rowsmith addition. */
  operation: string | null;
  problems: string[];
  /** Known differences this answer showed (so a stale entry in the list can be found). */
  explained: KnownDifference[];
}

export class ReferenceShapes {
  private readonly spec: Spec;
  private readonly ajv: Ajv;
  private readonly templates: Array<{ method: string; template: string; pattern: RegExp; literals: number }>;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(specPath = REFERENCE_PATH) {
    this.spec = JSON.parse(readFileSync(specPath, 'utf8')) as Spec;
    // strict off: the spec carries OpenAPI-only keywords (`examples`, `discriminator`) ajv does not know.
    // verbose: errors carry the offending value, which some known differences are limited to.
    this.ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'reference', components: this.spec.components });
    this.templates = Object.entries(this.spec.paths).flatMap(([template, ops]) =>
      Object.keys(ops).map((method) => ({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
      })),
    );
    // `/rows/aggregate` before `/rows/{row_id}`: the template with more fixed segments wins.
    this.templates.sort((a, b) => b.literals - a.literals);
  }

  operationOf(method: string, path: string): string | null {
    const found = this.templates.find((t) => t.method === method && t.pattern.test(path));
    return found ? `${method} ${found.template}` : null;
  }

  /** Every operation of the reference, as `METHOD /template`. */
  operations(): string[] {
    return this.templates.map((t) => `${t.method} ${t.template}`);
  }

  private responses(operation: string) {
    const [method, template] = operation.split(' ') as [string, string];
    return this.spec.paths[template]?.[method.toLowerCase()]?.responses ?? {};
  }

  private declaresSuccess(operation: string): boolean {
    return Object.keys(this.responses(operation)).some((status) => status.startsWith('2'));
  }

  private validator(operation: string, status: number): ValidateFunction | null {
    const key = `${operation} ${status}`;
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const schema = this.responses(operation)[String(status)]?.content?.['application/json']?.schema;
    if (!schema) return null;
    const validate = this.ajv.compile({ $ref: `reference${(schema as { $ref?: string }).$ref ?? ''}` });
    this.compiled.set(key, validate);
    return validate;
  }

  check(method: string, url: string, status: number, contentType: string, body: unknown): ShapeCheck {
    const { pathname: path, search } = new URL(url, 'http://localhost');
    const query = search.slice(1);
    const operation = this.operationOf(method, path);
    if (!operation) {
      // An unknown route still answers with the reference's error envelope.
      if (status === 404 && contentType.startsWith('application/json')) return this.checkWith(this.errorEnvelope(), null, query, status, body);
      const known = ROWSMITH_ADDITIONS.some((p) => p.test(`${method} ${path}`));
      return { operation: null, problems: known ? [] : [`${method} ${path} is neither in the reference nor a listed rowsmith addition`], explained: [] };
    }
    // Downloads and event streams have no JSON schema in the reference.
    if (!contentType.startsWith('application/json')) return { operation, problems: [], explained: [] };
    // Downloads declare no success answer at all: their bodies are files, whatever their type.
    if (status < 300 && !this.declaresSuccess(operation)) return { operation, problems: [], explained: [] };
    const validate = this.validator(operation, status) ?? (status >= 400 ? this.errorEnvelope() : null);
    if (!validate) return { operation, problems: [`${operation}: the reference declares no ${status} answer`], explained: [] };
    return this.checkWith(validate, operation, query, status, body);
  }

  private checkWith(validate: ValidateFunction, operation: string | null, query: string, status: number, body: unknown): ShapeCheck {
    if (validate(body)) return { operation, problems: [], explained: [] };
    const errors = validate.errors ?? [];
    const known = new Map(errors.map((e) => [e, operation ? this.knownDifference(operation, query, e) : undefined]));
    // The failed branches of a oneOf that is a known difference are part of that difference.
    const branchOfKnown = (e: ErrorObject) =>
      errors.some((o) => o !== e && known.get(o) && o.keyword === 'oneOf' && o.instancePath === e.instancePath && e.schemaPath.startsWith(`${o.schemaPath}/`));
    const problems: string[] = [];
    const explained: KnownDifference[] = [];
    for (const error of errors) {
      const difference = known.get(error);
      if (difference) explained.push(difference);
      else if (!branchOfKnown(error)) problems.push(`${operation ?? 'an unknown route'} ${status}: ${error.instancePath || '/'} ${error.message}${describeParams(error)}`);
    }
    return { operation, problems, explained };
  }

  private knownDifference(operation: string, query: string, error: ErrorObject): KnownDifference | undefined {
    const at = error.keyword === 'additionalProperties' ? `${error.instancePath}/${(error.params as { additionalProperty: string }).additionalProperty}` : error.instancePath;
    return KNOWN_DIFFERENCES.find(
      (d) => (d.operation === '*' || d.operation === operation) && d.keyword === error.keyword && d.at.test(at) && (!d.query || d.query.test(query)) && (!d.value || d.value(error.data)),
    );
  }

  /**
   * Statuses the reference declares for no operation (404, 409, 429, 503...) still use its error
   * envelope: checked against the 400 envelope with the status and key left open.
   */
  private errorEnvelope(): ValidateFunction {
    const cached = this.compiled.get('envelope');
    if (cached) return cached;
    const validate = this.ajv.compile({
      type: 'object',
      required: ['success', 'status', 'status_key', 'error_key', 'message', 'fields'],
      properties: {
        success: { const: false },
        status: { type: 'integer' },
        status_key: { type: 'string' },
        error_key: { type: 'string' },
        message: { type: 'string' },
        fields: { $ref: 'reference#/components/schemas/Err400InvalidInput/properties/fields' },
      },
    });
    this.compiled.set('envelope', validate);
    return validate;
  }
}

function describeParams(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if ('additionalProperty' in params) return ` (${String(params.additionalProperty)})`;
  if ('allowedValues' in params) return ` (${JSON.stringify(params.allowedValues)})`;
  return '';
}

let loaded: ReferenceShapes | null | undefined;

/**
 * The checker of the reference OpenAPI, or null when it is not beside the repository: then every
 * check against it is skipped, said in one line per run (test files share this module).
 */
export function referenceShapes(): ReferenceShapes | null {
  if (loaded === undefined) {
    loaded = existsSync(REFERENCE_PATH) ? new ReferenceShapes() : null;
    if (!loaded) console.warn(`reference checks skipped: ${relative(process.cwd(), REFERENCE_PATH)} not found`);
  }
  return loaded;
}
