/**
 * The PostgREST-style filter grammar: `field.op.value`, `,` as AND, `or(...)` and `and(...)` groups,
 * `(a,b)` lists for in/nin, `is.null`/`is.notnull`, `*` wildcards for like/ilike, and double-quoted
 * values for text holding `,` `.` `(` `)`. Parsing checks every limit and every field against the
 * list's declared fields and types, so a bad filter is a 400 that says what and where.
 */
import { ALL_OPS, LIMITS, OPS_BY_TYPE, type FieldSpec, type FilterOp } from './fields';
import { queryError } from './errors';

export type Scalar = string | number | boolean;

export type FilterNode =
  | { kind: 'and' | 'or'; children: FilterNode[] }
  | { kind: 'cond'; field: string; op: FilterOp; value: Scalar | Scalar[] | null | 'notnull' };

export type FieldLookup = (name: string) => FieldSpec | undefined;

class Parser {
  private pos = 0;
  private conditions = 0;

  constructor(
    private readonly text: string,
    private readonly lookup: FieldLookup,
  ) {}

  fail(message: string): never {
    throw queryError('filter', `${message} (at character ${this.pos + 1} of the filter)`);
  }

  parse(): FilterNode {
    const children = this.list(0);
    if (this.pos < this.text.length) this.fail(`unexpected "${this.text[this.pos]}"`);
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  }

  /** A comma-separated run of conditions and groups, up to the end or a closing parenthesis. */
  private list(depth: number): FilterNode[] {
    const children: FilterNode[] = [this.item(depth)];
    while (this.text[this.pos] === ',') {
      this.pos++;
      children.push(this.item(depth));
    }
    return children;
  }

  private item(depth: number): FilterNode {
    const group = /^(or|and)\(/.exec(this.text.slice(this.pos));
    if (group) {
      if (depth + 1 > LIMITS.depth) this.fail(`groups nest at most ${LIMITS.depth} deep`);
      this.pos += group[0].length;
      if (this.text[this.pos] === ')') this.fail(`${group[1]}() needs at least one condition`);
      const children = this.list(depth + 1);
      if (this.text[this.pos] !== ')') this.fail(`${group[1]}( is not closed`);
      this.pos++;
      return { kind: group[1] as 'or' | 'and', children };
    }
    return this.condition();
  }

  private condition(): FilterNode {
    if (++this.conditions > LIMITS.conditions) this.fail(`a filter takes at most ${LIMITS.conditions} conditions`);
    const start = this.pos;
    const field = this.until('.');
    if (!field) this.fail('expected a condition of the form field.op.value');
    if (!/^[A-Za-z0-9_-]+$/.test(field)) {
      this.pos = start;
      this.fail(`"${field}" is not a field name`);
    }
    if (this.text[this.pos] !== '.') this.fail(`"${field}" needs an operator and a value, as in ${field}.eq.value`);
    this.pos++;
    const opStart = this.pos;
    const op = this.until('.');
    if (!ALL_OPS.has(op)) {
      this.pos = opStart;
      this.fail(`unknown operator "${op}"; use one of ${[...ALL_OPS].join(', ')}`);
    }
    if (this.text[this.pos] !== '.') this.fail(`"${field}.${op}" needs a value`);
    this.pos++;

    const spec = this.lookup(field);
    if (!spec) {
      this.pos = start;
      throw queryError('filter', `unknown field "${field}" in the filter`);
    }
    const allowed = OPS_BY_TYPE[spec.type];
    if (!allowed.includes(op as FilterOp)) {
      throw queryError('filter', `operator "${op}" does not apply to ${spec.type} field "${field}"; use ${allowed.join(', ')}`);
    }

    if (op === 'in' || op === 'nin') {
      if (this.text[this.pos] !== '(') this.fail(`${op} takes a list like ${field}.${op}.(a,b)`);
      this.pos++;
      const values: Scalar[] = [];
      if (this.text[this.pos] !== ')') {
        for (;;) {
          values.push(this.typed(this.value(true), spec, field));
          if (values.length > LIMITS.inValues) this.fail(`${op} takes at most ${LIMITS.inValues} values`);
          if (this.text[this.pos] === ',') {
            this.pos++;
            continue;
          }
          break;
        }
      }
      if (this.text[this.pos] !== ')') this.fail(`the ${op} list is not closed`);
      this.pos++;
      if (values.length === 0) this.fail(`${op} needs at least one value`);
      return { kind: 'cond', field, op: op as FilterOp, value: values };
    }

    const raw = this.value(false);
    if (op === 'is') {
      if (raw !== 'null' && raw !== 'notnull') this.fail(`is takes null or notnull, got "${raw}"`);
      return { kind: 'cond', field, op: 'is', value: raw === 'null' ? null : 'notnull' };
    }
    // Patterns and element tests compare text as given.
    if (op === 'like' || op === 'ilike' || op === 'contains') return { kind: 'cond', field, op: op as FilterOp, value: raw };
    return { kind: 'cond', field, op: op as FilterOp, value: this.typed(raw, spec, field) };
  }

  /** Reads up to `stop`, a comma or a closing parenthesis (whichever comes first). */
  private until(stop: string): string {
    const start = this.pos;
    while (this.pos < this.text.length && !`${stop},()`.includes(this.text[this.pos]!)) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** A value: double-quoted (with \" and \\ escapes), or raw up to `,` or `)`. */
  private value(inList: boolean): string {
    if (this.text[this.pos] === '"') {
      this.pos++;
      let out = '';
      while (this.pos < this.text.length && this.text[this.pos] !== '"') {
        if (this.text[this.pos] === '\\' && this.pos + 1 < this.text.length) this.pos++;
        out += this.text[this.pos++];
      }
      if (this.text[this.pos] !== '"') this.fail('a quoted value is not closed');
      this.pos++;
      return out;
    }
    const start = this.pos;
    while (this.pos < this.text.length && this.text[this.pos] !== ',' && this.text[this.pos] !== ')') {
      if (!inList && this.text[this.pos] === '(') this.fail('quote values that hold parentheses, as in name.eq."a (b)"');
      this.pos++;
    }
    return this.text.slice(start, this.pos);
  }

  private typed(raw: string, spec: FieldSpec, field: string): Scalar {
    if (spec.type === 'number') {
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isFinite(n)) throw queryError('filter', `"${raw}" is not a number, as field "${field}" needs`);
      return n;
    }
    if (spec.type === 'boolean') {
      if (raw !== 'true' && raw !== 'false') throw queryError('filter', `"${raw}" is not true or false, as field "${field}" needs`);
      return raw === 'true';
    }
    return raw;
  }
}

export function parseFilter(text: string, lookup: FieldLookup): FilterNode | null {
  if (text.trim() === '') return null;
  return new Parser(text, lookup).parse();
}

/** Every field a filter names, for planners and for checks. */
export function filterFields(node: FilterNode | null, out = new Set<string>()): Set<string> {
  if (!node) return out;
  if (node.kind === 'cond') out.add(node.field);
  else for (const c of node.children) filterFields(c, out);
  return out;
}
