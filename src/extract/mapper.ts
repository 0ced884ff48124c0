/**
 * The one column mapper. A document's tables and keyed records become candidates; for each, the
 * header rows are chosen against the target columns and the document's columns are assigned to the
 * target columns one to one, maximising the total score (name and description words, synonyms,
 * spelling, and how well the values fit the column's type). The best candidate (several when they
 * are parts of one table) gives the rows; the document's own fields (invoice number, dates,
 * parties, totals) fill columns no table column gave. Values are coerced by the shared coercion
 * module, read with what the rest of their column says (day-first dates, decimal commas); every
 * row gets a confidence.
 */
import type { Column } from '../domain/columns';
import type { Strictness } from '../domain/tables';
import { roundTo } from '../lib/decimal';
import { weightedMeans } from '../lib/means';
import { agreement, arithmeticColumns, itemRoles, MIN_AGREEMENT, runningBalance, type ItemRoles } from './arithmetic';
import { assignMax } from './assign';
import { ambiguousDate, coerce, fits, type ValueHints } from './coerce';
import type { Cell, Reading, RecordGroup, SourceRecord, TableCandidate } from './document';
import { documentFields, tableLines, type DocumentFields } from './fields';
import { LEARNED_SCORE, learnedFields, pagesFromLines, type LearnedLayout } from './learn';
import { dayFirstOf, localeDayOrder, parseHumanDate } from './dates';
import { documentLanguage } from './language';
import type { TextLine } from './layout/page';
import { conceptLevel, topConcept } from './lexicon';
import { headerScore } from './model/headers';
import { nameScore } from './names';
import { receiptItems } from './receipt';
import { splitSubFields } from './subfields';
import { cellText, findHeaderRow, gridWidth, isEmpty, isSummaryLabel, joinSignCells, rowKey, stackedLabels, tableBody, type TableRow } from './tables';

export { nameScore } from './names';

/** How coercion treats extracted text: documents carry no types, so even `strict` reads "1,234.50". */
function extractionStrictness(strictness: Strictness): Strictness {
  return strictness === 'flexible' ? 'flexible' : 'balanced';
}

const TYPED = new Set(['number', 'currency', 'date', 'email', 'url', 'boolean', 'enum', 'multi_select']);
/** Cells that say "no value": dashes, n/a. */
const NONE = /^(?:[-–—−‐.…]+|n\/?a|none|nil)$/i;

const present = (v: unknown) => !isEmpty(v) && !(typeof v === 'string' && NONE.test(v.trim()));

/** The share of a field's values that the column's type accepts (1 for text columns). */
function fit(column: Column, values: unknown[], hints: ValueHints): number {
  if (values.length === 0) return 0;
  if (!TYPED.has(column.type)) return 1;
  if (column.type === 'boolean') return values.filter((v) => fits(v, column) || isMark(v)).length / values.length;
  return values.filter((v) => coerceFits(v, column, hints)).length / values.length;
}

function coerceFits(value: unknown, column: Column, hints: ValueHints): boolean {
  const result = coerce(value, column, 'balanced', hints);
  return result.ok && result.value !== null;
}

/** A check mark of a matrix (X, ✓, ●): true; its blanks are false. */
const isMark = (v: unknown) => typeof v === 'string' && /^[xX✓✔☑●•■]$/.test(v.trim());

/** The share of values that are words rather than numbers or dates ("May 3, 2024" is a date, no text). */
const textShare = (values: unknown[]) =>
  values.length ? values.filter((v) => typeof v === 'string' && /\p{L}/u.test(v) && !/^[\d\s.,%$€£()+-]+$/.test(v) && !('value' in (parseHumanDate(v.trim(), false) ?? {}))).length / values.length : 0;

/** Text values: mostly not numbers. */
const textual = (values: unknown[]) => textShare(values) >= 0.6;

/** How a field's values suit a column: the share its type accepts, and the share that are words. */
export function fieldShape(column: Column, values: unknown[], hints: ValueHints): { fit: number; textual: number } {
  return { fit: fit(column, values, hints), textual: textShare(values) };
}

/** Characters of a document's text read for how it writes decimals: a large sheet's first pages. */
const DECIMALS_SAMPLE = 200_000;
/** A number as a document prints it, with its group and decimal marks ("40.500", "1.234,56"). */
const NUMBER_TOKEN = /(?<![\p{L}\d.,])\d[\d.,]*\d(?![\p{L}\d])/gu;

/** How a column of the document writes its values, from all of them. */
export function valueHints(values: unknown[]): ValueHints {
  const hints: ValueHints = {};
  let dayFirst = 0;
  let monthFirst = 0;
  let comma = 0;
  let point = 0;
  let dotGroups = 0;
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const date = /^\s*(\d{1,2})[/.-](\d{1,2})[/.-]\d{2,4}\b/.exec(v);
    if (date) {
      if (+date[1]! > 12 && +date[2]! <= 12) dayFirst++;
      if (+date[2]! > 12 && +date[1]! <= 12) monthFirst++;
      if (v.includes('.')) dayFirst += 0.5;
      continue;
    }
    if (/\d,\d{1,2}(?!\d)|\d\.\d{3},\d|\d\.\d{3}\.\d{3}/.test(v)) comma++;
    // "40.500" likewise, where money has no decimals (rupiah, pesos, forint): a group, when no value shows decimals.
    else if (/(?<![\d.,])[1-9]\d{0,2}\.\d{3}(?![\d.,])/.test(v)) dotGroups++;
    // Decimals a group cannot be: one or two figures, four or more, or after a lone 0 ("0.0335", "0.500").
    if (/\d\.\d{1,2}(?!\d)|\d\.\d{4,}|(?<![\d.,])0\.\d|\d,\d{3}\.\d|\d,\d{3},\d{3}/.test(v)) point++;
    // "453,694" is far more often a thousands group than three decimals: weak evidence.
    else if (/\d,\d{3}(?![\d.,])/.test(v)) point += 0.25;
  }
  if (dayFirst !== monthFirst) hints.dayFirst = dayFirst > monthFirst;
  if (comma !== point) hints.decimalComma = comma > point;
  else if (!comma && dotGroups >= 2) hints.decimalComma = true;
  return hints;
}

/** A document column offered to the target columns. */
export interface Field {
  key: string;
  /** The printed label; empty for a column without a header. */
  label: string;
  values: unknown[];
  /** The group rows carried down, not a printed column. */
  group?: boolean;
}

export interface FieldMatch {
  column: Column;
  field: string;
  score: number;
  /** How well the field's header names the column, apart from its values. */
  named?: number;
}

const MIN_SCORE = 0.45;
const GROUP_WORDS = /\b(group|section|heading|category|part|class|chapter|segment|row above|header row)\b/i;

/** Most values start with the column's name ("Room 12B" under a column named Room). */
function valuesNameColumn(column: Column, values: unknown[]): boolean {
  const name = column.name.trim().toLowerCase();
  if (name.length < 2 || values.length === 0) return false;
  return values.filter((v) => typeof v === 'string' && v.trim().toLowerCase().startsWith(name)).length / values.length >= 0.6;
}

/** A field taken by its values alone: below any named match. */
function valueScore(column: Column, values: unknown[], f: number): number {
  if (values.length === 0) return 0;
  if (valuesNameColumn(column, values)) return 0.6;
  if (TYPED.has(column.type)) return f >= 0.8 ? 0.3 + 0.1 * f : 0;
  return textual(values) ? 0.34 : 0;
}

/** How well `field` suits `column`, 0 when not at all; `position` is how near their places are, 0..1. */
function pairScore(column: Column, field: Field, values: unknown[], hints: ValueHints, position: number): { score: number; name: number } {
  if (field.group) {
    if ((column.type !== 'string' && column.type !== 'text') || values.length === 0) return { score: 0, name: 0 };
    const named = GROUP_WORDS.test(`${column.name} ${column.description ?? ''} ${column.instruction ?? ''}`);
    // Group rows sit in the first column, so its header may name them ("Region" over region rows
    // and the cities under them): a column asking for groups takes that name first.
    const header = field.label ? nameScore(column, field.label) : 0;
    return { score: Math.max(named ? 0.7 : 0.32, header >= MIN_SCORE ? header * 0.98 + (named ? 0.05 : 0) : 0), name: header };
  }
  if (values.length === 0) return { score: 0, name: 0 };
  const f = fit(column, values, hints);
  // The learned header score: the name rules, the thesaurus, abbreviations and the values' shape.
  const name = field.label ? headerScore(column, field.label, { fit: f, textual: textShare(values), position }) : 0;
  const named = name >= MIN_SCORE ? name * (0.4 + 0.6 * f) : 0;
  // A label that names no column ("Amounts in thousands" over the row labels) still offers its values.
  return { score: named >= MIN_SCORE ? named : valueScore(column, values, f) * (field.label ? 0.9 : 1), name };
}

/** At most `n` of `values`, evenly spread over them. */
function spread<T>(values: T[], n: number): T[] {
  if (values.length <= n) return values;
  const step = values.length / n;
  return Array.from({ length: n }, (_, i) => values[Math.floor(i * step)]!);
}

/** How near a column's place among the columns is to a field's among the fields, 0..1. */
export const positionOf = (i: number, columns: number, j: number, fields: number) => 1 - Math.abs(i / Math.max(1, columns - 1) - j / Math.max(1, fields - 1));

/** One-to-one assignment of fields to columns with the largest total score. */
export function matchFields(columns: Column[], fields: Field[], documentHints: ValueHints = {}): FieldMatch[] {
  const all = fields.map((f) => f.values.filter(present));
  const hints = all.map((values) => ({ ...documentHints, ...valueHints(values) }));
  // How well values fit a type is a share: a spread sample of a long column tells it as well.
  const present_ = all.map((values) => spread(values, 200));
  const position = (i: number, j: number) => positionOf(i, columns.length, j, fields.length);
  const pairs = columns.map((column, i) => fields.map((field, j) => pairScore(column, field, present_[j]!, hints[j]!, position(i, j))));
  // A small preference for keeping the columns' left-to-right order breaks ties between equals.
  const scores = pairs.map((row, i) => row.map((p, j) => (p.score > 0 ? p.score + 0.005 * position(i, j) : 0)));
  const assigned = assignMax(scores);
  const out: FieldMatch[] = [];
  assigned.forEach((j, i) => {
    if (j >= 0 && scores[i]![j]! > 0) out.push({ column: columns[i]!, field: fields[j]!.key, score: scores[i]![j]!, named: pairs[i]![j]!.name });
  });
  return out;
}

export interface MappedRow {
  /** Coerced values by column id; columns without a value are absent. */
  values: Record<string, unknown>;
  confidence: number;
  /** How well the document fits the table, where the learned model tells it apart from the confidence (see DocumentFields). */
  fit?: number;
  /** Why values were left out: `column: message`. */
  problems: string[];
}

/**
 * Maps one record. A column's share of the confidence is its match score when its value parsed,
 * 0 when the value did not parse or a required column has none; optional columns without a value
 * do not count. A row with nothing mapped has confidence 0.
 */
export function mapRecord(
  record: SourceRecord,
  matches: FieldMatch[],
  columns: Column[],
  strictness: Strictness,
  hints: Record<string, ValueHints> = {},
): MappedRow {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  const parts: number[] = [];
  const byColumn = new Map(matches.map((m) => [m.column.id, m]));
  for (const column of columns) {
    const match = byColumn.get(column.id);
    let raw = match ? record[match.field] : undefined;
    if (column.type === 'boolean' && match && isEmpty(raw) && byColumn.size > 1) raw = false;
    else if (column.type === 'boolean' && isMark(raw)) raw = true;
    if (!present(raw)) {
      if (column.required) parts.push(0);
      continue;
    }
    // A strict table takes no guesses: an ambiguous date stays a problem there.
    const columnHints = strictness === 'strict' ? { ...hints[column.id], dayFirstDefault: undefined } : hints[column.id];
    const result = coerce(typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : raw, column, extractionStrictness(strictness), columnHints);
    if (!result.ok) {
      problems.push(`${column.id}: ${result.message}`);
      parts.push(0);
      continue;
    }
    if (result.value === null) continue;
    // Flexible keeps what it cannot convert; such a value counts against the row's confidence, and
    // so does a date whose day/month order was only guessed.
    const converted = !TYPED.has(column.type) || fits(result.value, column);
    const guessed = column.type === 'date' && hints[column.id]?.dayFirst === undefined && ambiguousDate(raw);
    values[column.id] = result.value;
    parts.push(converted ? match!.score * (guessed ? 0.7 : 1) : 0);
  }
  const confidence = parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : 0;
  return { values, confidence: roundTo(Math.min(1, confidence), 3), problems };
}

/** A candidate read against the columns: its fields, records and how well it covers the columns. */
interface Plan {
  label: string;
  /** The candidate's title and the text above it. */
  context: string;
  /** The page of a paged layout (PDF, scan). */
  page?: number;
  /** The document columns' labels, for telling parts of one table apart from other tables. */
  signature: string;
  matches: FieldMatch[];
  records: SourceRecord[];
  hints: Record<string, ValueHints>;
  coverage: number;
  quality: number;
  /** Share of rows whose quantity × unit price = line amount, when the columns ask for all three. */
  agreement?: number;
  /** The columns ask for items and the table shows neither quantities nor unit prices. */
  itemless?: boolean;
  /** Its rows are an account's entries, one column their running balance (see `runningBalance`): no items. */
  ledger?: boolean;
}

const GROUP_KEY = '\u0000group';

function fieldsOfRows(labels: string[], rows: TableRow[], withGroup: boolean): Field[] {
  const fields: Field[] = labels.map((label, j) => ({ key: String(j), label, values: rows.map((r) => r.cells[j]) }));
  if (withGroup) fields.push({ key: GROUP_KEY, label: labels[0] ?? '', values: rows.map((r) => r.group), group: true });
  return fields;
}

function recordOf(row: TableRow, width: number): SourceRecord {
  const record: SourceRecord = {};
  for (let j = 0; j < width; j++) if (!isEmpty(row.cells[j])) record[String(j)] = typeof row.cells[j] === 'string' ? cellText(row.cells[j]) : row.cells[j];
  if (row.group) record[GROUP_KEY] = row.group;
  return record;
}

const coverageOf = (matches: FieldMatch[], columns: Column[]) => matches.reduce((s, m) => s + m.score, 0) / Math.max(1, columns.length);

/** Header rows to try: the reader's own, else every start and depth near the top, and none. */
function headerOptions(candidate: TableCandidate): Array<[number, number]> {
  const options: Array<[number, number]> = [];
  const rows = candidate.grid.length;
  if (candidate.headerRows !== undefined) {
    options.push([0, candidate.headerRows]);
    // A layout's header guess may hold a title row above, or miss a second header row.
    if (candidate.headerRows > 1) options.push([1, candidate.headerRows]);
    if (candidate.headerRows + 1 < rows) options.push([0, candidate.headerRows + 1]);
    return options;
  }
  for (let start = 0; start < Math.min(rows - 1, 12); start++) {
    if (candidate.grid[start]!.every(isEmpty)) continue;
    for (let end = start + 1; end <= Math.min(start + 3, rows - 1); end++) options.push([start, end]);
  }
  // Reading the table without a header is for grids whose first row is not one of labels.
  if (findHeaderRow(candidate.grid) !== 0) options.push([0, 0]);
  return options;
}

const SAMPLE = 40;

/**
 * A label over a column without values moves to the unlabeled column with values next to it: a
 * spanning header over an amount printed one cell aside ("$" and ")" cells, right-aligned values
 * under a wide label).
 */
export function alignLabels(labels: string[], body: Cell[][]): string[] {
  const out = [...labels];
  const hasValues = out.map((_, j) => body.some((r) => !isEmpty(r[j])));
  for (let j = 0; j < out.length; j++) {
    if (!out[j] || hasValues[j]) continue;
    const target = [j + 1, j + 2, j + 3, j - 1, j - 2].find((k) => k >= 0 && k < out.length && !out[k] && hasValues[k]);
    if (target === undefined) continue;
    out[target] = out[j]!;
    out[j] = '';
  }
  return out;
}

/** A cell that is a number, never a header: only a year (1900-2099) names a column with digits alone. */
const isAmount = (cell: Cell) =>
  typeof cell === 'number' ? !(Number.isInteger(cell) && cell >= 1900 && cell <= 2099) : typeof cell === 'string' && /^[\s$€£(−-]*\d[\d\s.,]*\)?\s*%?$/.test(cell.trim()) && !/^(19|20)\d\d$/.test(cell.trim());

/** A table read against the columns: the header rows whose labels match them best. */
function planTable(candidate: TableCandidate, columns: Column[], includeSummaries: boolean, defaults: ValueHints): Plan | null {
  const grid = joinSignCells(candidate.grid);
  const table = { ...candidate, grid };
  const width = gridWidth(grid);
  if (width === 0) return null;
  // How the whole table writes numbers and dates decides a column that shows no sign of its own.
  const tableHints = { ...defaults, ...valueHints(grid.flat()) };
  let best: { start: number; end: number; labels: string[]; score: number } | null = null;
  for (const [start, end] of headerOptions(table)) {
    // A header names two columns or more (a lone label is a title or a group row) and holds no
    // amounts (a year or a quarter is a label).
    if (end > 0 && width > 1 && grid[end - 1]!.filter((c) => !isEmpty(c)).length < 2) continue;
    if (grid.slice(start, end).some((r) => r.some(isAmount))) continue;
    const sample = grid.slice(end, end + SAMPLE).filter((r) => r.some((c) => !isEmpty(c)));
    const labels = alignLabels(stackedLabels(grid, start, end - start, width), sample);
    const fields = labels.map((label, j) => ({ key: String(j), label, values: sample.map((r) => r[j]) }));
    const score = coverageOf(matchFields(columns, fields, tableHints), columns);
    // Rows above the header are lost, so a later start must do clearly better.
    if (!best || score > best.score + 0.01 * (start - best.start)) best = { start, end, labels, score };
  }
  if (!best || best.score === 0) return null;
  const headerKey = best.end > 0 ? rowKey(grid[best.end - 1]!) : null;
  const body = tableBody(table, best.end, headerKey);
  const rows = includeSummaries ? body.rows : body.rows.filter((r) => !r.summary);
  if (rows.length === 0) return null;
  const fields = fieldsOfRows(best.labels, rows, body.hasGroups);
  const { matches, agreement, itemless, ledger } = withArithmetic(columns, fields, matchFields(columns, fields, tableHints), tableHints);
  // A table whose header names none of the columns is another table, whatever its values look like.
  const labelled = best.labels.some(Boolean);
  const named = matches.some((m) => (m.named ?? 0) >= MIN_SCORE);
  if (labelled && !named) return null;
  const hints = hintsOf(matches, fields, tableHints);
  return {
    label: candidate.label,
    context: `${candidate.label.replace(/^table \d+$/, '')} ${candidate.context}`.trim(),
    page: candidate.page,
    signature: best.labels.map((l) => l.toLowerCase()).join('|'),
    matches,
    records: rows.map((r) => recordOf(r, width)),
    hints,
    coverage: coverageOf(matches, columns),
    quality: candidate.quality ?? 1,
    agreement,
    itemless,
    ledger,
  };
}

/**
 * Rows that multiply out mark the item table among tables that name the same columns (a tax
 * breakdown, a payment schedule): worth about one well-named column of a five-column table.
 */
const ARITHMETIC_RANK = 0.1;

/**
 * How sure rows are by their arithmetic: items whose quantity, price and amount were all found but
 * do not multiply out are likely not items at all (a statement, a specification read as items).
 */
function arithmeticSureness(plan: Plan): number {
  if (plan.ledger) return LEDGER_SURENESS;
  if (plan.agreement !== undefined) return 0.5 + 0.5 * Math.min(1, plan.agreement / MIN_AGREEMENT);
  if (plan.itemless === undefined) return 1;
  return plan.itemless ? ITEMLESS_SURENESS : UNCHECKED_SURENESS;
}

/**
 * Entries of an account (a bank statement's, a ledger's lines, a running balance beside them) asked
 * for as items: a document of another kind, whose rows a strict or balanced table does not take.
 */
const LEDGER_SURENESS = 0.4;
/** Rows of a table that shows neither quantities nor unit prices are items only perhaps (a statement's lines). */
const ITEMLESS_SURENESS = 0.75;
/** Items whose arithmetic cannot be checked (one of quantity, price, amount missing) are less sure than items that multiply out. */
const UNCHECKED_SURENESS = 0.85;

/** A column set by the rows' arithmetic is as sure as one named by a good header. */
const ARITHMETIC_SCORE = 0.8;
/** A match this good is a header naming its column outright (an exact or near-exact label). */
const STRONG_NAME = 0.9;

/**
 * Quantity, unit price and line amount set by the rows' own arithmetic (quantity × price = amount)
 * where it holds, over what names and value types alone chose; `agreement` says how well it holds
 * for the columns finally chosen.
 */
function withArithmetic(columns: Column[], fields: Field[], matches: FieldMatch[], hints: ValueHints): Pick<Plan, 'matches' | 'agreement' | 'itemless' | 'ledger'> {
  const roles = itemRoles(columns);
  if (!roles) return { matches };
  const byColumn = new Map(matches.map((m) => [m.column.id, m]));
  const sample = fields.filter((f) => !f.group).map((f) => ({ key: f.key, values: spread(f.values, 200) }));
  // Of the two factors, the one a header named the quantity keeps it.
  const named = (c: Column) => (nameOf(byColumn.get(c.id)) >= MIN_SCORE ? byColumn.get(c.id)!.field : undefined);
  const found = arithmeticColumns(sample, hints, { quantity: named(roles.quantity), price: named(roles.price) });
  if (!found) {
    // Rows that multiply out in no columns at all: a quantity or price taken by its values alone
    // (no header names it) is only some number column of another kind of table.
    const rows = fields[0]?.values.length ?? 0;
    const kept = rows >= 2 ? matches.filter((m) => !((m.column === roles.quantity || m.column === roles.price) && nameOf(m) < MIN_SCORE)) : matches;
    // A column running as a balance makes the rows an account's entries (a statement, a ledger): the
    // balance is no line's amount, quantity or price.
    const balance = runningBalance(sample, hints);
    if (balance) return { matches: kept.filter((m) => !(m.field === balance && (m.column === roles.quantity || m.column === roles.price || m.column === roles.amount))), ledger: true };
    const itemless = !kept.some((m) => m.column === roles.quantity || m.column === roles.price);
    return { matches: kept, agreement: current(roles, new Map(kept.map((m) => [m.column.id, m])), sample, hints), itemless };
  }
  const wanted = new Map([[roles.quantity, found.quantity], [roles.price, found.price], [roles.amount, found.amount]]);
  const taken = new Set(wanted.values());
  // A header that names its column in so many words is not overruled by numbers that happen to multiply out.
  const overrules = matches.some((m) => nameOf(m) >= STRONG_NAME && (wanted.has(m.column) ? wanted.get(m.column) !== m.field : taken.has(m.field)));
  if (overrules) return { matches, agreement: current(roles, byColumn, sample, hints) };
  const out = matches.filter((m) => !wanted.has(m.column) && !taken.has(m.field));
  for (const [column, field] of wanted) {
    const previous = byColumn.get(column.id);
    out.push(previous?.field === field ? previous : { column, field, score: Math.max(ARITHMETIC_SCORE, previous?.score ?? 0) });
  }
  return { matches: out, agreement: found.share };
}

/** How well a match's header names its column (its score when the header's own is not known). */
const nameOf = (m: FieldMatch | undefined) => (m ? (m.named ?? m.score) : 0);

/** How well the rows multiply out in the columns as assigned; undefined when one of the three is not assigned. */
function current(roles: ItemRoles, byColumn: Map<string, FieldMatch>, sample: Array<{ key: string; values: unknown[] }>, hints: ValueHints): number | undefined {
  const keys = [roles.quantity, roles.price, roles.amount].map((c) => byColumn.get(c.id)?.field);
  if (!keys.every(Boolean)) return undefined;
  const values = (key: string | undefined) => sample.find((f) => f.key === key)?.values ?? [];
  const rows = values(keys[2]).map((v, i): [unknown, unknown, unknown] => [values(keys[0])[i], values(keys[1])[i], v]);
  return agreement(rows, hints) ?? undefined;
}

function hintsOf(matches: FieldMatch[], fields: Field[], documentHints: ValueHints = {}): Record<string, ValueHints> {
  const hints: Record<string, ValueHints> = {};
  for (const m of matches) {
    const field = fields.find((f) => f.key === m.field);
    if (field) hints[m.column.id] = { ...documentHints, ...valueHints(field.values) };
  }
  return hints;
}

/** Keyed records (JSON objects, key: value blocks) read against the columns. */
function planGroup(group: RecordGroup, columns: Column[], defaults: ValueHints): Plan | null {
  const keys = [...new Set(group.records.flatMap((r) => Object.keys(r)))];
  const fields: Field[] = keys.map((key) => ({ key, label: key, values: group.records.map((r) => r[key]) }));
  const matches = matchFields(columns, fields, defaults);
  if (matches.length === 0) return null;
  // A record labelled as a summary ("Total") in its first text field is not a row of its own.
  const summary = group.records.map((r) => {
    const label = Object.values(r).find((v) => typeof v === 'string' && /\p{L}/u.test(v));
    return typeof label === 'string' && isSummaryLabel(label);
  });
  const keep = asksForSummaries(columns) || group.records.length < 2 ? group.records : group.records.filter((_, i) => !summary[i]);
  return {
    label: group.label,
    context: '',
    signature: keys.join('|').toLowerCase(),
    matches,
    records: keep,
    hints: hintsOf(matches, fields, defaults),
    coverage: coverageOf(matches, columns),
    quality: 1,
  };
}

/** Document fields found outside the tables: a value and a score per column id. */
export type DocumentFieldValues = DocumentFields;

export interface MappingInput {
  tables: TableCandidate[];
  groups: RecordGroup[];
  fields?: DocumentFieldValues;
  /** What the target table is about (its name, description, instruction). */
  topic?: string;
  /** How to read values when nothing in their column decides (the document's language, the server's setting). */
  defaults?: ValueHints;
  /** How sure the recognition of a scan was, 0..1 (its tables carry it in their quality). */
  sureness?: number;
}

const stem = (w: string) => w.replace(/(?<=..)s$/, '').slice(0, 6);
const wordsOf = (text: string) => new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3).map(stem));

/** Words of the table's topic and its columns' names, descriptions and instructions. */
function contextWords(columns: Column[], topic: string): Set<string> {
  return wordsOf(`${topic} ${columns.map((c) => `${c.name} ${c.description ?? ''} ${c.instruction ?? ''}`).join(' ')}`);
}

/** How many of those words a document table's title and the text above it hold (at most 6). */
function contextOverlap(context: string, wanted: Set<string>): number {
  let n = 0;
  for (const w of wordsOf(context)) if (wanted.has(w)) n++;
  return Math.min(n, 6);
}

/** Whether the table asks for its summary rows (a column described as a total row's). */
const asksForSummaries = (columns: Column[]) =>
  columns.some((c) => /\b(incl(uding|\.)?|with)\s+(the\s+)?(sub)?totals?\b|\btotal rows?\b/i.test(`${c.description ?? ''} ${c.instruction ?? ''}`));

/**
 * Maps a document: the best candidate and the candidates that are parts of it (same columns,
 * nearly as good) give the rows; document fields fill the columns they leave, or make the one row
 * when they cover the columns better than any table.
 */
export function mapDocument(input: MappingInput, columns: Column[], strictness: Strictness): MappedRow[] {
  const includeSummaries = asksForSummaries(columns);
  const plans: Plan[] = [];
  for (const t of input.tables) {
    const plan = planTable(t, columns, includeSummaries, input.defaults ?? {});
    if (plan) plans.push(plan);
  }
  for (const g of input.groups) {
    const plan = planGroup(g, columns, input.defaults ?? {});
    if (plan) plans.push(plan);
  }
  const fieldValues = input.fields ?? { values: {}, scores: {} };
  const fieldColumns = columns.filter((c) => present(fieldValues.values[c.id]));
  const fieldsCoverage = fieldColumns.reduce((s, c) => s + (fieldValues.scores[c.id] ?? 0), 0) / Math.max(1, columns.length);
  const wanted = contextWords(columns, input.topic ?? '');
  const rank = (p: Plan) => p.coverage + 0.01 * contextOverlap(p.context, wanted) + ARITHMETIC_RANK * (p.agreement ?? 0);
  plans.sort((a, b) => rank(b) - rank(a) || b.records.length - a.records.length);
  const best = plans[0];
  // When the document's fields cover the columns better than any table, they are the one row; so
  // they are when the table asks only for a document's header fields (a receipt's shop, date,
  // total), whatever line items the document also lists.
  if (!best || (fieldColumns.length > 0 && (fieldsCoverage > best.coverage || (headerOnly(columns) && !namesColumns(best, columns))))) {
    if (fieldColumns.length === 0) return [];
    const matches = fieldColumns.map((c) => ({ column: c, field: c.id, score: fieldValues.scores[c.id] ?? 0.5 }));
    const row = mapRecord(fieldValues.values, matches, columns, strictness, hintsFromRecord(fieldValues.values, input.defaults));
    // The learned model's confidence counts the fields it left empty; the label rules' does not, so
    // a row of fields that found few of the columns, or that was read from a doubtful scan, is less sure.
    const found = Object.keys(row.values).length / Math.max(1, columns.length);
    const sure = (base: number) => roundTo(Math.min(row.confidence, base) * (input.sureness ?? 1), 3);
    if (fieldValues.fit !== undefined) row.fit = sure(fieldValues.fit);
    row.confidence = sure(fieldValues.confidence ?? row.confidence * (0.6 + 0.4 * found));
    return Object.keys(row.values).length ? [row] : [];
  }
  // Tables of the same columns that their titles do not tell apart from the best are its parts
  // (a table split over sheets or pages); a table whose title fits the columns less is another.
  // Paged layouts join a table's continuation pages themselves, so their tables are never parts.
  const parts = plans.filter(
    (p) => p === best || (p.page === undefined && p.signature === best.signature && rank(p) > rank(best) - 0.005 && p.coverage >= best.coverage * 0.9),
  );
  const seen = new Set<string>();
  const rows: MappedRow[] = [];
  for (const table of parts) {
    const taken = new Set(table.matches.map((m) => m.column.id));
    // Columns the table does not give take the document's fields, the same on every row, when
    // they ask for a document-level field (an invoice number, not a stray "Date:" line's date).
    const extra = fieldColumns.filter((c) => !taken.has(c.id) && documentLevel(c));
    for (const c of extra) taken.add(c.id);
    const plan = withSubFields(table, columns, taken);
    const matches = [...plan.matches, ...extra.map((c) => ({ column: c, field: `\u0000field:${c.id}`, score: fieldValues.scores[c.id] ?? 0.5 }))];
    const carried: SourceRecord = Object.fromEntries(extra.map((c) => [`\u0000field:${c.id}`, fieldValues.values[c.id]]));
    const hints = { ...hintsFromRecord(fieldValues.values, input.defaults), ...plan.hints };
    for (const record of plan.records) {
      const row = mapRecord({ ...carried, ...record }, matches, columns, strictness, hints);
      if (Object.keys(row.values).length === 0) continue;
      const key = JSON.stringify(row.values);
      if (parts.length > 1 && seen.has(key)) continue;
      seen.add(key);
      row.confidence = roundTo(row.confidence * (0.6 + 0.4 * Math.min(1, plan.coverage / 0.8)) * plan.quality * arithmeticSureness(plan), 3);
      rows.push(row);
    }
  }
  return rows;
}

const TEXT_TYPES = new Set(['string', 'text']);
const SUB_SCORE = 0.75;

/**
 * Labelled sub-fields printed inside the cells of text columns ("Art-Nr: DL-22", "4006381333931
 * (EAN)", "(Duration: 90 min)") fill the columns they name that no table column filled, and leave
 * the cell's own text; a sub-field naming the cell's own column is its value.
 */
function withSubFields(plan: Plan, columns: Column[], taken: Set<string>): Plan {
  const open = columns.filter((c) => !taken.has(c.id));
  const hosts = plan.matches.filter((m) => TEXT_TYPES.has(m.column.type));
  if (hosts.length === 0) return plan;
  const found = new Map<string, number>();
  const records = plan.records.map((record) => {
    let out: SourceRecord | null = null;
    for (const host of hosts) {
      const value = record[host.field];
      if (typeof value !== 'string' || !/[:(]/.test(value)) continue;
      // The host first: on a tie the part goes to a column of its own.
      const candidates = [host.column, ...open];
      const best = (label: string) => {
        let column: Column | null = null;
        let score = SUB_SCORE;
        for (const c of candidates) {
          const n = nameScore(c, label);
          if (n >= score) [column, score] = [c, n];
        }
        return column ? { column, score } : null;
      };
      const { main, parts } = splitSubFields(value, (label) => best(label) !== null);
      if (parts.length === 0) continue;
      out ??= { ...record };
      let own: string | null = null;
      // Each part to one column and each column to one part: "Art.-Nr." and "(EAN)" are both codes.
      const scores = parts.map((part) => candidates.map((c) => {
        const n = nameScore(c, part.label);
        return n >= SUB_SCORE ? n + (c === host.column ? 0 : 0.001) : 0;
      }));
      assignMax(scores).forEach((k, i) => {
        if (k < 0) return;
        const column = candidates[k]!;
        if (column === host.column) own = parts[i]!.value;
        else {
          out![`\u0000sub:${column.id}`] = parts[i]!.value;
          found.set(column.id, Math.max(found.get(column.id) ?? 0, scores[i]![k]! * 0.9));
        }
      });
      out[host.field] = own ?? (main || value);
    }
    return out ?? record;
  });
  if (records.every((r, i) => r === plan.records[i])) return plan;
  const subMatches = [...found].map(([id, score]) => ({ column: columns.find((c) => c.id === id)!, field: `\u0000sub:${id}`, score }));
  return { ...plan, records, matches: [...plan.matches, ...subMatches] };
}

/**
 * Columns that name different header fields of a document, at least half of them fields of nothing
 * else: a document has one of each ("Merchant" and "Eligible merchants" are a list's columns).
 */
function headerOnly(columns: Column[]): boolean {
  const concepts = columns.map((c) => topConcept(c.name) ?? topConcept(c.description ?? ''));
  if (concepts.length < 2 || new Set(concepts).size < concepts.length) return false;
  const levels = concepts.map((c) => (c ? conceptLevel(c) : null));
  return levels.every((l) => l === 'document' || l === 'both') && levels.filter((l) => l === 'document').length * 2 >= levels.length;
}

/**
 * A header that names a column this clearly is a list of documents' header (Vendor, Date, Total),
 * not an item table's whose words only resemble it (Description, Amount, or a headless column of text).
 */
const STRONGLY_NAMED = 0.85;

/**
 * A table of several records whose own header names at least half the columns clearly: a list of
 * such documents (a CSV of invoices), whose records are the rows even when the columns are header fields.
 */
function namesColumns(plan: Plan, columns: Column[]): boolean {
  return plan.records.length >= 2 && plan.matches.filter((m) => (m.named ?? 0) >= STRONGLY_NAMED).length * 2 >= columns.length;
}

/** A column that asks for a field of the whole document (invoice number, vendor, due date). */
function documentLevel(column: Column): boolean {
  const concept = topConcept(`${column.name}`) ?? topConcept(`${column.description ?? ''}`);
  return concept !== null && conceptLevel(concept) === 'document';
}

/** How sure a scan's recognition was: the mean word confidence its lines carry; 1 for text. */
function sureness(lines: TextLine[]): number {
  const known = lines.filter((l) => l.confidence !== undefined);
  return known.length ? known.reduce((s, l) => s + l.confidence!, 0) / known.length : 1;
}

/** Document fields from the lines outside the tables; nothing when there are none. */
function documentFieldsOf(lines: TextLine[], columns: Column[]): DocumentFieldValues {
  if (lines.length === 0) return { values: {}, scores: {} };
  // A document's own fields stand at its top and its end; a long report's middle is read no further.
  const kept = lines.length > 3000 ? [...lines.slice(0, 2000), ...lines.slice(-1000)] : lines;
  return documentFields(kept, columns);
}

/** Hints for a record of separate fields: each value read on its own evidence. */
function hintsFromRecord(record: Record<string, unknown>, defaults: ValueHints = {}): Record<string, ValueHints> {
  const all = { ...defaults, ...valueHints(Object.values(record)) };
  return Object.fromEntries(Object.keys(record).map((k) => [k, all]));
}

/** The fields of one record of key: value pairs, matched to the columns they name. */
function fieldsOfRecord(record: SourceRecord, columns: Column[]): DocumentFieldValues {
  const fields: Field[] = Object.entries(record).map(([key, value]) => ({ key, label: key, values: [value] }));
  const out: DocumentFieldValues = { values: {}, scores: {} };
  for (const m of matchFields(columns, fields)) {
    out.values[m.column.id] = record[m.field];
    out.scores[m.column.id] = m.score;
  }
  return out;
}

/** Merges document fields, the higher score winning a column. */
function mergeFields(a: DocumentFieldValues, b: DocumentFieldValues): DocumentFieldValues {
  const [confidence, fit] = b.confidence !== undefined ? [b.confidence, b.fit] : [a.confidence, a.fit];
  const ruledOut = a.ruledOut || b.ruledOut ? { ruledOut: { ...a.ruledOut, ...b.ruledOut } } : {};
  const out: DocumentFieldValues = { values: { ...a.values }, scores: { ...a.scores }, ...(confidence === undefined ? {} : { confidence }), ...(fit === undefined ? {} : { fit }), ...ruledOut };
  for (const [id, value] of Object.entries(b.values)) {
    if (!present(value)) continue;
    if (!present(out.values[id]) || (b.scores[id] ?? 0) > (out.scores[id] ?? 0)) {
      out.values[id] = value;
      out.scores[id] = b.scores[id] ?? 0;
    }
  }
  return out;
}

/**
 * A value the general model is at least this sure of stays its own against an amount of the
 * layout's (unless the layout's amounts add up where the general model's do not), or against any
 * value the layout found by its place alone: a receipt prints its total at
 * a different height each time and under several "total" labels (subtotal, rounded, paid), and a
 * longer document moves an unlabelled date (one in a sentence) away from where the example had it,
 * so one example's place is a weaker guide than the amounts' arithmetic or a date's own phrase.
 */
const SURE = 0.8;

/**
 * Fields a learned layout found replace the general ones: a person showed where this issuer prints
 * them. The row's confidence moves with them.
 */
function withLearned(fields: DocumentFieldValues, found: { values: Record<string, unknown>; byPlace: string[]; addsUp: string[] }, columns: Column[]): DocumentFieldValues {
  const amounts = new Set(columns.filter((c) => c.type === 'number' || c.type === 'currency').map((c) => c.id));
  const weaker = (id: string) => !found.addsUp.includes(id) && (amounts.has(id) || found.byPlace.includes(id));
  const learned = Object.fromEntries(Object.entries(found.values).filter(([id]) => !(weaker(id) && (fields.scores[id] ?? 0) >= SURE)));
  const ids = Object.keys(learned);
  const columnCount = columns.length;
  if (!ids.length) return fields;
  const out: DocumentFieldValues = { values: { ...fields.values, ...learned }, scores: { ...fields.scores } };
  for (const id of ids) out.scores[id] = LEARNED_SCORE;
  const n = Math.max(columnCount, ids.length);
  // Each learned field counts as LEARNED_SCORE, in the kind of mean each measure takes (see DocumentFields).
  const blend = (measure: number): Array<[number, number]> => [[measure, n - ids.length], [LEARNED_SCORE, ids.length]];
  if (fields.confidence !== undefined) out.confidence = roundTo(weightedMeans(blend(fields.confidence)).geometric, 3);
  if (fields.fit !== undefined) out.fit = roundTo(weightedMeans(blend(fields.fit)).plain, 3);
  return out;
}

/**
 * Rows of a document read by a reader: a single block of key: value pairs (an invoice's header, an
 * e-mail's own fields) is the document's fields, merged with those `fields` found in its lines.
 */
export function mapReading(
  reading: Pick<Reading, 'tables' | 'groups' | 'lines' | 'text' | 'pages'>,
  columns: Column[],
  strictness: Strictness,
  options: { fields?: DocumentFieldValues; topic?: string; dateOrder?: 'mdy' | 'dmy'; ocr?: boolean; layouts?: LearnedLayout[] } = {},
): MappedRow[] {
  // Day/month order when a column shows none: the document's language, where it comes from (its currency, country), else the server's setting.
  const text = reading.text || reading.tables.map((t) => t.grid.map((r) => r.map(cellText).join(' ')).join('\n')).join('\n');
  const locale = localeDayOrder(text);
  // How the document writes decimals, from its numbers (those of its first pages are enough): a field
  // read alone ("40.500") is read like them.
  const decimals = valueHints(text.slice(0, DECIMALS_SAMPLE).match(NUMBER_TOKEN) ?? []).decimalComma;
  const defaults: ValueHints = {
    dayFirstDefault: dayFirstOf(documentLanguage(text)) ?? (locale ? locale === 'dmy' : options.dateOrder === 'dmy'),
    ...(decimals !== undefined ? { decimalComma: decimals } : {}),
    ...(options.ocr ? { ocr: true } : {}),
  };
  // Key/value tables (a few rows of labels and values) hold document fields too; long tables are items.
  const keyValueTables = reading.tables.filter((t) => t.grid.length <= 40);
  let documentFields = mergeFields(options.fields ?? { values: {}, scores: {} }, documentFieldsOf([...reading.lines, ...tableLines(keyValueTables)], columns));
  const groups: RecordGroup[] = [];
  const items = receiptItems(reading.lines);
  if (items) groups.push(items);
  for (const group of reading.groups) {
    if (group.records.length === 1 && reading.groups.length + reading.tables.length > 1) documentFields = mergeFields(documentFields, fieldsOfRecord(group.records[0]!, columns));
    else groups.push(group);
  }
  if (options.layouts?.length) {
    const pages = reading.pages?.length ? reading.pages : pagesFromLines(reading.lines);
    documentFields = withLearned(documentFields, learnedFields(pages, columns, options.layouts, documentFields.values, documentFields.ruledOut), columns);
  }
  return mapDocument({ tables: reading.tables, groups, fields: documentFields, topic: options.topic, defaults, sureness: sureness(reading.lines) }, columns, strictness);
}
