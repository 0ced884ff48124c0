/** Words only the second recogniser read as words, taken as it read them. */
import { describe, expect, test } from 'bun:test';
import { repairLines } from '../../../src/extract/ocr/recognise';
import { repairBySecondReading } from '../../../src/extract/ocr/second-reading';

const word = (text: string, alternative?: string) => ({ text, line: 1, ...(alternative === undefined ? {} : { alternative }) });
const repair = (...words: ReturnType<typeof word>[]) => repairBySecondReading(words).map((w) => w.text);

describe('OCR second reading', () => {
  test("a word the second recogniser read as a dictionary word, a label or a town is taken, in the first's case and punctuation", () => {
    expect(repair(word('PHARHACY'), word('PHARHACY', 'PHARMACY'))).toEqual(['PHARHACY', 'PHARMACY']);
    expect(repair(word('Ofice,', 'Office,'), word('Level', undefined))).toEqual(['Office,', 'Level']);
    expect(repair(word('Anount:', 'Amount:'))).toEqual(['Amount:']);
    // A town of the country the page names.
    expect(repair(word('RUALA', 'KUALA'), word('LUMPUR'), word('MALAYSIA'))).toEqual(['KUALA', 'LUMPUR', 'MALAYSIA']);
  });

  test('a word of the first reading stays: a dictionary word, a legal form, a name neither reads as a word', () => {
    // Both words of the dictionary: which one was printed, the words do not say.
    expect(repair(word('CARE', 'CAKE'))).toEqual(['CARE']);
    // A legal form is a word though no dictionary holds it.
    expect(repair(word('SDN', 'SON'), word('BHD'))).toEqual(['SDN', 'BHD']);
    // A name the second reads otherwise, as no word either.
    expect(repair(word('KOH', 'KHOH'))).toEqual(['KOH']);
  });

  test('short words, figures and readings far apart stay', () => {
    expect(repair(word('RH', 'RM'))).toEqual(['RH']);
    expect(repair(word('12.50', '12.80'))).toEqual(['12.50']);
    expect(repair(word('XQZRT', 'TOTAL'))).toEqual(['XQZRT']);
  });

  test("the repairs of a page's lines take the second reading first and leave no reading behind", () => {
    const out = repairLines([{ ...word('Tolal', 'Total'), seconds: [] }, word('12.50')]);
    expect(out.map((w) => w.text)).toEqual(['Total', '12.50']);
    expect(out.every((w) => !('alternative' in w) && !('seconds' in w))).toBe(true);
  });
});
