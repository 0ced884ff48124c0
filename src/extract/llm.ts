/**
 * The optional extractor for prose: asks an OpenAI-compatible chat-completions server for rows as
 * JSON fitting a schema built from the columns. Its answer is checked for shape here and its values
 * then go through the same mapper and coercion as every other reader's.
 */
import type { Column } from '../domain/columns';
import type { SourceRecord } from './document';

export interface LlmSettings {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
}

/** Prose longer than this is cut before it is sent. */
const MAX_TEXT_CHARS = 60_000;

function jsonType(column: Column): object {
  switch (column.type) {
    case 'number':
    case 'currency':
      return { type: ['number', 'string', 'null'] };
    case 'boolean':
      return { type: ['boolean', 'null'] };
    case 'array':
    case 'multi_select':
      return { type: ['array', 'null'], items: column.options?.length ? { type: 'string', enum: column.options } : {} };
    case 'enum':
      return { type: ['string', 'null'], enum: [...(column.options ?? []), null] };
    default:
      return { type: ['string', 'null'] };
  }
}

export function rowsSchema(columns: Column[]): object {
  const properties = Object.fromEntries(
    columns.map((c) => [
      c.id,
      { ...jsonType(c), description: [c.name, c.description, c.instruction, c.type === 'date' ? 'as YYYY-MM-DD' : null].filter(Boolean).join('; ') },
    ]),
  );
  return {
    type: 'object',
    properties: { rows: { type: 'array', items: { type: 'object', properties, required: columns.map((c) => c.id), additionalProperties: false } } },
    required: ['rows'],
    additionalProperties: false,
  };
}

export class LlmError extends Error {}

export async function extractWithLlm(settings: LlmSettings, columns: Column[], instruction: string | null, text: string): Promise<SourceRecord[]> {
  const system = [
    'You extract table rows from documents. Answer with JSON only: {"rows": [...]}, one object per record found,',
    'keys exactly the column ids given, null where the document does not say. Copy values as written; do not invent any.',
    instruction ? `Instructions for this table: ${instruction}` : '',
  ].join(' ');
  const columnsText = columns.map((c) => `- ${c.id} (${c.type}${c.required ? ', required' : ''}): ${c.name}${c.description ? ` - ${c.description}` : ''}${c.instruction ? ` (${c.instruction})` : ''}`).join('\n');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({
        model: settings.model,
        temperature: 0,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: `Columns:\n${columnsText}\n\nDocument:\n${text.slice(0, MAX_TEXT_CHARS)}` },
        ],
        // llama.cpp reads the schema only when nested under json_schema.schema.
        response_format: { type: 'json_schema', json_schema: { name: 'rows', strict: true, schema: rowsSchema(columns) } },
      }),
    });
  } catch (error) {
    throw new LlmError(controller.signal.aborted ? `the language model did not answer within ${settings.timeoutMs} ms` : `the language model is unreachable: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) throw new LlmError(`the language model answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  const body = (await response.json().catch(() => null)) as { choices?: Array<{ message?: { content?: string } }> } | null;
  const content = body?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new LlmError('the language model answered without a message');
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new LlmError('the language model did not answer with JSON');
  }
  const rows = (parsed as { rows?: unknown })?.rows;
  if (!Array.isArray(rows)) throw new LlmError('the language model answered without a "rows" array');
  const ids = new Set(columns.map((c) => c.id));
  return rows
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r))
    .map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => ids.has(k))));
}
