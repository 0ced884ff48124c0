import { expect, test } from 'bun:test';
import { lettersAndFigures } from '../../src/lib/strings';

test('letters and figures alone, in lower case, whatever the spacing and punctuation', () => {
  expect(lettersAndFigures('ACME Sdn. Bhd. (12345-A)')).toBe('acmesdnbhd12345a');
  expect(lettersAndFigures('Müller-Lüdenscheidt & Söhne')).toBe('müllerlüdenscheidtsöhne');
  expect(lettersAndFigures(' - , ')).toBe('');
});

