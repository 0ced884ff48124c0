/**
 * Schema suggestion: reads a sample (any format extraction reads) and proposes columns named after
 * its headers or keys, typed by their values, with descriptions, a confidence and an instruction.
 * A column is exactly the reference's `{name, type, description}` (strict clients reject more), so
 * what table create needs beyond it is stated in the description: a currency column's code
 * ("Amount in USD"), an enum's or multi-select's options as the JSON array that ends it
 * ("Options: [...]"). A client gives ids of its own.
 */
import type { Config } from '../config';
import { ApiError } from '../lib/errors';
import { inferDetailed, mainGroup, readDocument, recordGroups, UnreadableDocument, type SourceDocument } from '../extract';
import type { Column } from '../domain/columns';
import { checkDocuments, withText } from './extract.service';

export interface Suggestion {
  columns: Array<Pick<Column, 'name' | 'type'> & { description: string }>;
  confidence: number;
  instruction: string;
}

const TYPE_WORDS: Record<Column['type'], string> = {
  array: 'List', boolean: 'Yes or no', currency: 'Amount', date: 'Date', email: 'Email address', enum: 'One of a few values',
  multi_select: 'Several of a few values', number: 'Number', string: 'Text', text: 'Long text', url: 'Link',
};

/** A column description's limit (table create's and the reference's). */
const MAX_DESCRIPTION = 256;
/** Ends an enum's or multi-select's description, followed by its options as a JSON array. */
const OPTIONS_LABEL = 'Options: ';

function example(values: unknown[]): string | null {
  const value = values.find((v) => v !== null && v !== undefined && v !== '');
  if (value === undefined) return null;
  const text = value instanceof Date ? value.toISOString().slice(0, 10) : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export class SuggestService {
  constructor(private readonly limits: Pick<Config, 'extractMaxFileBytes' | 'extractMaxFiles'>) {}

  async suggest(input: { documents: SourceDocument[]; text?: string | null }): Promise<Suggestion> {
    const documents = withText(input.documents, input.text);
    const known = checkDocuments(documents, this.limits);
    const groups = [];
    const formats = new Set<string>();
    for (const [i, doc] of documents.entries()) {
      try {
        const reading = await readDocument(doc, known[i]);
        groups.push(...recordGroups(reading.tables, reading.groups));
        formats.add(reading.format);
      } catch (error) {
        if (error instanceof UnreadableDocument) throw new ApiError(400, 'invalid_input', `${doc.name}: ${error.message}`, { file: [{ error_key: 'unreadable', message: error.message, path: 'file' }] });
        throw error;
      }
    }
    const group = mainGroup(groups);
    const inferred = group ? inferDetailed(group) : [];
    if (!group || inferred.length === 0) {
      throw new ApiError(400, 'invalid_input', 'No table, records or key: value fields were found in the sample to suggest columns from');
    }
    const columns = inferred.map(({ column, field }) => {
      const from = `from "${field}"`;
      if (column.options) {
        const listed = `${TYPE_WORDS[column.type]}, ${from}. ${OPTIONS_LABEL}${JSON.stringify(column.options)}`;
        if (listed.length <= MAX_DESCRIPTION) return { name: column.name, type: column.type, description: listed };
      }
      // Options too many to state: text, which takes the same values.
      const type = column.options ? 'string' : column.type;
      const sample = example(group.records.map((r) => r[field]));
      const parts = [`${TYPE_WORDS[type]}${column.currency_code ? ` in ${column.currency_code}` : ''}`, from];
      if (sample !== null) parts.push(`for example "${sample}"`);
      return { name: column.name, type, description: parts.join(', ').slice(0, MAX_DESCRIPTION) };
    });
    const confidence = Math.round((inferred.reduce((sum, c) => sum + c.fit, 0) / inferred.length) * 1000) / 1000;
    const kind = group.label === 'key: value' ? 'block of key: value fields' : group.label.startsWith('table') || group.label === 'csv' || group.label === 'tsv' ? 'table row' : `record of "${group.label}"`;
    const instruction = `Extract one row per ${kind} of the ${[...formats].join('/')} document${documents.length > 1 ? 's' : ''}; keep values as written, dates as YYYY-MM-DD.`;
    return { columns, confidence, instruction: instruction.slice(0, 512) };
  }
}
