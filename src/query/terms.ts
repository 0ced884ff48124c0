/** The words of a query, or of a row's text, as the full-text search takes them: MiniSearch's own tokenizer and term processing. */
import MiniSearch from 'minisearch';

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
const processTerm = MiniSearch.getDefault('processTerm') as (term: string) => string | null | undefined;

export function queryTerms(q: string): string[] {
  return tokenize(q)
    .map((t) => processTerm(t))
    .filter((t): t is string => !!t);
}
