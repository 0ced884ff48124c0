/**
 * A schema suggestion's columns as table create takes them. The suggestion has the reference's
 * shape (name, type, description): ids come from the names as the server makes them, and the
 * description states what else a column needs: a currency's code ("Amount in USD, ...") and an
 * enum's or multi-select's options (ending "Options: [...]").
 */
import { columnIdFrom, type Column, type ColumnType } from '../../src/domain/columns';

export interface SuggestedColumn {
  name: string;
  type: ColumnType;
  description?: string;
}

export function columnsFromSuggestion(suggested: SuggestedColumn[]): Column[] {
  const taken = new Set<string>();
  return suggested.map(({ name, type, description }) => {
    const id = columnIdFrom(name, taken);
    taken.add(id);
    const column: Column = { id, name, type, required: false };
    if (description) column.description = description;
    const currency = type === 'currency' ? /^Amount in ([A-Z]{3})\b/.exec(description ?? '') : null;
    if (currency) column.currency_code = currency[1];
    const options = type === 'enum' || type === 'multi_select' ? /Options: (\[.*\])$/.exec(description ?? '') : null;
    if (options) column.options = JSON.parse(options[1]!) as string[];
    return column;
  });
}
