import { describe, expect, test } from 'bun:test';
import type { Column } from '../../src/domain/columns';
import { findDates, localeDayOrder, parseHumanDate } from '../../src/extract/dates';
import { linesFromText, ruleFields } from '../../src/extract/fields';

describe('localeDayOrder', () => {
  test('currencies, countries and company forms of day-first countries say day first', () => {
    expect(localeDayOrder('TOTAL RM 12.00')).toBe('dmy');
    expect(localeDayOrder('Subtotal £4.50')).toBe('dmy');
    expect(localeDayOrder('ACME TRADING SDN BHD\nTotal 12.00')).toBe('dmy');
    expect(localeDayOrder('12 Orchard Road, Singapore')).toBe('dmy');
    expect(localeDayOrder('Tel: +44 20 7946 0000')).toBe('dmy');
    expect(localeDayOrder('GST No: 0011 4798')).toBe('dmy');
    expect(localeDayOrder('Ingestion 12/03')).toBeNull();
  });

  test('the United States say month first; a dollar sign alone says nothing', () => {
    expect(localeDayOrder('Acme Inc.\n1 Main St, Springfield, USA')).toBe('mdy');
    expect(localeDayOrder('Total $12.00')).toBeNull();
    expect(localeDayOrder('FORM 12, ROOM 4')).toBeNull();
  });
});

describe('findDates', () => {
  test('dates with a month name as tills print them, hyphenated and with short years', () => {
    expect(findDates('24 Mar-2018 03:44:22 PM', null).map((d) => d.iso)).toEqual(['2018-03-24']);
    expect(findDates('Date: 24-Mar-18', null).map((d) => d.iso)).toEqual(['2018-03-24']);
    expect(findDates('12. März 2024', null).map((d) => d.iso)).toEqual(['2024-03-12']);
    // Month first, the comma after the day taking the space's place.
    expect(findDates('Nov 22,2026 10:14 AM', null).map((d) => d.iso)).toEqual(['2026-11-22']);
  });

  test('a month name between slashes, or with a separator lost, as tills and logs print it', () => {
    expect(findDates('CB# 83079 15/Apr/2017 04:56:46', null).map((d) => d.iso)).toEqual(['2017-04-15']);
    expect(findDates('14May/2017 02:56', null).map((d) => d.iso)).toEqual(['2017-05-14']);
    expect(findDates('10/Oct/00 13:55', null).map((d) => d.iso)).toEqual(['2000-10-10']);
    // A part of a longer slashed code is no date.
    expect(findDates('REF 4/12/May/2017', null).map((d) => d.iso)).toEqual([]);
  });

  test('a two-digit number after a month name without a hyphen is no year, but before a time of day it is', () => {
    expect(findDates('Ref 12 May 18 x', null)).toEqual([]);
    expect(findDates('Ref 12 May 18 14 pcs', null)).toEqual([]);
    expect(findDates('CLOSED 15 Jun 18 09:08:37 PM', null).map((d) => d.iso)).toEqual(['2018-06-15']);
  });

  test('a date year first with slashes or dots, as East Asian and Hungarian tills print it; a longer number is none', () => {
    const isos = (text: string) => findDates(text, null).map((d) => d.iso);
    expect(isos('2019/03/14 17:42')).toEqual(['2019-03-14']);
    expect(isos('Dátum: 2019.03.14.')).toEqual(['2019-03-14']);
    expect(isos('2019-03-14')).toEqual(['2019-03-14']);
    expect(isos('PO 2019-03-14-2')).toEqual([]);
    expect(isos('v2019.03.14.1')).toEqual([]);
    expect(isos('2019/13/40')).toEqual([]);
  });

  test('a date joined to its time of day by a hyphen is a date; a figure after it otherwise continues an identifier', () => {
    const isos = (text: string) => findDates(text, null).map((d) => d.iso);
    expect(isos('14.07.2024-10:12 2.0.30 1234/KASIR/01')).toEqual(['2024-07-14']);
    expect(isos('2024/07/14-9:05')).toEqual(['2024-07-14']);
    expect(isos('No. 14.07.2024-105')).toEqual([]);
    expect(isos('PO 2019-03-14-12')).toEqual([]);
  });

  test('a space read beside the dash of a month-name date', () => {
    expect(findDates('05- Jan-2017 03:17:50 PM', null).map((d) => d.iso)).toEqual(['2017-01-05']);
    expect(findDates('05 -Jan- 2017', null).map((d) => d.iso)).toEqual(['2017-01-05']);
    // The value found is read back as that date.
    expect(parseHumanDate('05- Jan-2017', false)).toEqual({ value: '2017-01-05' });
    expect(parseHumanDate('15/Apr/2017', false)).toEqual({ value: '2017-04-15' });
  });
});

describe('day/month order of a document', () => {
  const columns = [{ id: 'date', name: 'Date', type: 'date' } as Column];
  test('a receipt in ringgit reads 03/04/2018 as the 3rd of April', () => {
    const { layout, result } = ruleFields(linesFromText('ACME TRADING\nDate: 03/04/2018\nTOTAL (RM)   10.00'), columns);
    expect(layout.order).toBe('dmy');
    expect(result.get('date')?.value).toBe('2018-04-03');
  });

  test('nothing on the page decides: the order stays open', () => {
    const { layout } = ruleFields(linesFromText('ACME\nDate: 03/04/2018\nTOTAL   $10.00'), columns);
    expect(layout.order).toBeNull();
  });
});
