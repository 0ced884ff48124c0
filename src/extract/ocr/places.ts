/**
 * Place names by country (places.data.txt, compiled from GeoNames by places.compile.ts): which
 * countries a page's text names, and the words of those countries' town names, which the words
 * of its addresses are likely to be.
 */
import TEXT from './places.data.txt' with { type: 'text' };

interface Country {
  /** The country's own names and its states' or provinces', as whole words of a text. */
  names: RegExp;
  words: Set<string>;
}

let countries: Country[] | null = null;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function load(): Country[] {
  return TEXT.split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, names, words] = line.split('\t') as [string, string, string];
      return {
        names: new RegExp(`(?<![\\p{L}])(?:${names.split('|').map(escape).join('|')})(?![\\p{L}])`, 'u'),
        words: new Set(words.split(' ')),
      };
    });
}

/**
 * Whether a word (capitals) is a town word of a country whose own name, or a state's or province's,
 * the text (in capitals) holds.
 */
export function placeWordsOf(upperText: string): (word: string) => boolean {
  countries ??= load();
  const named = countries.filter((country) => country.names.test(upperText)).map((country) => country.words);
  return (word) => named.some((words) => words.has(word));
}
