/** Documents that cost far more to read than their size says are refused before parsing. */
import { describe, expect, test } from 'bun:test';
import { UnreadableDocument } from '../../src/extract/document';
import { checkArchive, checkHtmlDepth, inflatedSize } from '../../src/extract/limits';
import { zip } from '../faults/fuzzer';

describe('archives', () => {
  test('the inflated size comes from the central directory', () => {
    const archive = zip({ 'a.xml': 'x'.repeat(1000), 'b.xml': 'y'.repeat(234) });
    expect(inflatedSize(archive)).toBe(1234);
    expect(inflatedSize(new TextEncoder().encode('not a zip'))).toBeNull();
  });

  test('a hundredfold inflation past 5 MiB is refused; an ordinary document is not', () => {
    const bomb = zip({ 'word/document.xml': '<w:p>a</w:p>'.repeat(1_000_000) });
    expect(() => checkArchive(bomb, 'DOCX document')).toThrow(UnreadableDocument);
    expect(() => checkArchive(bomb, 'DOCX document')).toThrow(/inflates from .* MiB to .* MiB/);
    const ordinary = zip({ 'word/document.xml': Array.from({ length: 20_000 }, (_, i) => `<w:p>line ${i} ${Math.sin(i)}</w:p>`).join('') });
    expect(() => checkArchive(ordinary, 'DOCX document')).not.toThrow();
  });
});

describe('HTML', () => {
  test('nesting thousands of containers deep is refused; deep real pages and unclosed cells are not', () => {
    expect(() => checkHtmlDepth('<div>'.repeat(5000) + 'x' + '</div>'.repeat(5000))).toThrow(/more than 2000 deep/);
    expect(() => checkHtmlDepth('<div>'.repeat(200) + '</div>'.repeat(200))).not.toThrow();
    expect(() => checkHtmlDepth(`<table>${'<tr><td>a<td>b'.repeat(10_000)}</table>`)).not.toThrow();
  });
});
