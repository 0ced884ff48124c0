/**
 * Documents inside documents, and text encodings, through HTTP: an e-mail is its body plus its
 * attachments, a ZIP its files, each a file of the batch with its own result, rows and row source;
 * an encrypted attachment, a decompression bomb, an archive of too many files or nested too deep
 * fail only themselves; CSVs in Windows-1252 and UTF-16 are read right and say how.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { zip } from '../faults/fuzzer';
import { facturX, ciiInvoice, INVOICE, ublInvoice } from '../fixtures/extract/einvoices';
import { ADMIN_KEY, startApp, type TestApp, form, rowSource, type Part } from '../helpers/app';

const P = '/v1/projects/proj_default';
const I = INVOICE;

const COLUMNS = [
  { id: 'invoice_number', name: 'Invoice number', type: 'string' },
  { id: 'seller', name: 'Seller', type: 'string' },
  { id: 'total', name: 'Total amount', type: 'number' },
  { id: 'currency', name: 'Currency', type: 'string' },
];
const XML_ROW = { invoice_number: I.number, seller: I.seller.name, total: I.total, currency: 'EUR' };

const INVOICES_CSV = [
  'Invoice number,Seller,Total amount,Currency',
  'A-1001,Harbor Paper Co.,120.50,USD',
  'A-1002,Harbor Paper Co.,89.90,USD',
  'B-2001,Summit Office Ltd,1045.00,GBP',
  'C-3001,Alpine Print AG,310.25,CHF',
].join('\n');
const CSV_ROWS = [
  { invoice_number: 'A-1001', seller: 'Harbor Paper Co.', total: 120.5, currency: 'USD' },
  { invoice_number: 'A-1002', seller: 'Harbor Paper Co.', total: 89.9, currency: 'USD' },
  { invoice_number: 'B-2001', seller: 'Summit Office Ltd', total: 1045, currency: 'GBP' },
  { invoice_number: 'C-3001', seller: 'Alpine Print AG', total: 310.25, currency: 'CHF' },
];

/** A forwarded e-mail: a short text body and the given attachments. */
function email(attachments: Array<{ name: string; type: string; bytes: Uint8Array | string }>, body = 'Hi,\n\nplease find the invoices for March attached.\n\nDana Whitfield\n'): string {
  const parts = attachments.map((a) => {
    const bytes = typeof a.bytes === 'string' ? new TextEncoder().encode(a.bytes) : a.bytes;
    const base64 = Buffer.from(bytes).toString('base64').replace(/.{76}/g, '$&\r\n');
    return `--b1\r\nContent-Type: ${a.type}; name="${a.name}"\r\nContent-Disposition: attachment; filename="${a.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64}\r\n`;
  });
  return [
    'From: Dana Whitfield <dana.whitfield@example.com>',
    'To: payables@example.com',
    'Subject: Fwd: March invoices',
    'Date: Tue, 01 Apr 2025 09:30:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    ...parts,
    '--b1--',
    '',
  ].join('\r\n');
}

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

async function extract(parts: Part[], columns: unknown[] = COLUMNS) {
  const table = await app.request('POST', `${P}/tables`, { body: { name: `Containers ${Math.random()}`, columns_json: columns } });
  expect(table.status).toBe(201);
  const reply = await app.request('POST', `${P}/tables/${table.body.id}/extract`, { raw: form(parts) });
  expect(reply.status).toBe(200);
  const rows = await app.request('GET', `${P}/tables/${table.body.id}/rows?limit=100&order=created_at.asc`);
  const batch = await app.request('GET', `${P}/batches/${reply.body.batch_id}`);
  return { tableId: table.body.id as string, reply: reply.body, batch: batch.body, rows: (rows.body.rows ?? []) as Array<Record<string, any>> };
}

const pick = (rows: Array<Record<string, any>>) => rows.map((r) => Object.fromEntries(COLUMNS.map((c) => [c.id, r[c.id] ?? null])));
const summary = (files: any[]) => files.map((f) => [f.file_name, f.status, f.rows]);

describe('an e-mail is its body plus its attachments', () => {
  test('a PDF and a CSV attached: each a file of the batch with its own rows and row source; the body gives none', async () => {
    const pdf = await facturX(ciiInvoice('EN 16931'));
    const message = email([
      { name: 'invoice.pdf', type: 'application/pdf', bytes: pdf },
      { name: 'invoices.csv', type: 'text/csv', bytes: INVOICES_CSV },
    ]);
    const { tableId, reply, batch, rows } = await extract([['march.eml', message, 'message/rfc822']]);
    expect(reply.status).toBe('complete');
    expect(summary(reply.files)).toEqual([
      ['march.eml', 'complete', 0],
      ['march.eml/invoice.pdf', 'complete', 1],
      ['march.eml/invoices.csv', 'complete', 4],
    ]);
    expect(reply.files[0].error).toBe('its attachments are read as files of their own; the body gives rows only from the tables and fields it holds');
    expect(batch.file_count).toBe(3);
    expect(batch.extractions.map((e: any) => [e.file_name, e.file_type])).toEqual([
      ['march.eml', 'text'],
      ['march.eml/invoice.pdf', 'text_pdf'],
      ['march.eml/invoices.csv', 'text'],
    ]);
    // No row from the message's header lines: every row is an invoice of an attachment.
    expect(pick(rows)).toEqual([XML_ROW, ...CSV_ROWS]);
    // Each row's source is the attachment it came from, not the message.
    const sources = await Promise.all(rows.map((r) => rowSource(app, tableId, r.id)));
    expect(sources[0]!.bytes).toEqual(pdf);
    expect(sources[0]!.disposition).toContain('invoice.pdf');
    expect(new TextDecoder().decode(sources[1]!.bytes)).toBe(INVOICES_CSV);
    expect(sources[1]!.disposition).toContain('invoices.csv');
  });

  test('an encrypted attachment fails alone, with the reason', async () => {
    const encrypted = new Uint8Array(readFileSync(join(import.meta.dir, '../fixtures/bad/encrypted.pdf')));
    const message = email([
      { name: 'locked.pdf', type: 'application/pdf', bytes: encrypted },
      { name: 'invoices.csv', type: 'text/csv', bytes: INVOICES_CSV },
    ]);
    const { reply, rows } = await extract([['locked.eml', message, 'message/rfc822']]);
    expect(reply.status).toBe('partial');
    expect(summary(reply.files)).toEqual([
      ['locked.eml', 'complete', 0],
      ['locked.eml/locked.pdf', 'failed', 0],
      ['locked.eml/invoices.csv', 'complete', 4],
    ]);
    expect(reply.files[1].error).toContain('encrypted');
    expect(pick(rows)).toEqual(CSV_ROWS);
  });

  test('a message without attachments is read as before: its body holds the data', async () => {
    const body = 'Invoice number: Q-77\nSeller: Harbor Paper Co.\nTotal amount: 42.00\nCurrency: USD\n';
    const { reply, rows } = await extract([['plain.eml', email([], body), 'message/rfc822']]);
    expect(summary(reply.files)).toEqual([['plain.eml', 'complete', 1]]);
    expect(pick(rows)).toEqual([{ invoice_number: 'Q-77', seller: 'Harbor Paper Co.', total: 42, currency: 'USD' }]);
  });
});

describe('a ZIP archive is its files', () => {
  test('each document a file of the batch; folders and archiver metadata left out; other files fail alone', async () => {
    const archive = zip({
      'march/invoices.csv': INVOICES_CSV,
      'march/peppol.xml': ublInvoice(),
      '__MACOSX/march/._invoices.csv': new Uint8Array([0, 5, 22, 7, 0, 2, 0, 0]),
      'march/.DS_Store': new Uint8Array([0, 0, 0, 1, 66, 117, 100, 49]),
      'march/tool.bin': new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0]),
    });
    const { reply, rows } = await extract([['march.zip', archive, 'application/zip']]);
    expect(reply.status).toBe('partial');
    expect(summary(reply.files)).toEqual([
      ['march.zip/march/invoices.csv', 'complete', 4],
      ['march.zip/march/peppol.xml', 'complete', 1],
      ['march.zip/march/tool.bin', 'failed', 0],
    ]);
    expect(reply.files[2].error).toBe('not a format rowsmith reads');
    expect(pick(rows)).toEqual([...CSV_ROWS, XML_ROW]);
  });

  test('a decompression bomb fails alone; the other files of the request are read', async () => {
    const bomb = zip({ 'huge.csv': new Uint8Array(8 * 1024 * 1024) });
    const { reply, rows } = await extract([
      ['bomb.zip', bomb, 'application/zip'],
      ['invoices.csv', INVOICES_CSV, 'text/csv'],
    ]);
    expect(reply.status).toBe('partial');
    expect(summary(reply.files)).toEqual([
      ['bomb.zip', 'failed', 0],
      ['invoices.csv', 'complete', 4],
    ]);
    expect(reply.files[0].error).toMatch(/^this ZIP archive inflates from .* MiB to 8\.0 MiB, .*decompression bomb/);
    expect(pick(rows)).toEqual(CSV_ROWS);
  });

  test('a file that inflates past the size the archive declares fails alone', async () => {
    const archive = zip({ 'a.csv': INVOICES_CSV, 'b.csv': 'x'.repeat(100_000) });
    // Declare 100 bytes for b.csv, in its central directory entry and its local header.
    const view = new DataView(archive.buffer, archive.byteOffset, archive.byteLength);
    const central = archive.findLastIndex((_, i) => i + 4 <= archive.length && view.getUint32(i, true) === 0x02014b50);
    view.setUint32(central + 24, 100, true);
    const local = view.getUint32(central + 42, true);
    view.setUint32(local + 22, 100, true);
    const { reply } = await extract([['liar.zip', archive, 'application/zip']]);
    expect(summary(reply.files)).toEqual([
      ['liar.zip/a.csv', 'complete', 4],
      ['liar.zip/b.csv', 'failed', 0],
    ]);
    expect(reply.files[1].error).toBe('the file inflates past the 100 bytes the archive declares for it (a decompression bomb?)');
  });

  test('an encrypted entry, too many files and nesting too deep each fail with their reason', async () => {
    const locked = zip({ 'secret.csv': INVOICES_CSV, 'open.csv': INVOICES_CSV });
    const view = new DataView(locked.buffer, locked.byteOffset, locked.byteLength);
    const first = locked.findIndex((_, i) => i + 4 <= locked.length && view.getUint32(i, true) === 0x02014b50);
    view.setUint16(first + 8, view.getUint16(first + 8, true) | 1, true);
    const many = zip(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`${i}.csv`, 'a,b\n1,2\n'])));
    let nested = zip({ 'invoices.csv': INVOICES_CSV });
    for (let depth = 0; depth < 3; depth++) nested = zip({ [`level${depth}.zip`]: nested });
    const { reply } = await extract([
      ['locked.zip', locked, 'application/zip'],
      ['many.zip', many, 'application/zip'],
      ['nested.zip', nested, 'application/zip'],
    ]);
    expect(summary(reply.files)).toEqual([
      ['locked.zip/secret.csv', 'failed', 0],
      ['locked.zip/open.csv', 'complete', 4],
      ['many.zip', 'failed', 0],
      ['nested.zip/level2.zip/level1.zip/level0.zip', 'failed', 0],
    ]);
    expect(reply.files[0].error).toBe('the file is encrypted in the archive; add it without a password');
    expect(reply.files[2].error).toBe('the archive holds 101 files; at most 100 are read from one archive');
    expect(reply.files[3].error).toBe('containers nested more than 3 deep are not unpacked');
  });

  test('the containers of one request share one budget of files: past it, files fail without being kept', async () => {
    const sixty = (prefix: string) => zip(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`${prefix}${i}.txt`, 'x'])));
    const table = await app.request('POST', `${P}/tables`, { body: { name: `Budget ${Math.random()}`, columns_json: COLUMNS } });
    const reply = await app.request('POST', `${P}/tables/${table.body.id}/extract`, { raw: form([['a.zip', sixty('a'), 'application/zip'], ['b.zip', sixty('b'), 'application/zip']]) });
    const over = reply.body.files.filter((f: any) => f.error === 'more than 100 files unpacked from one request; the rest are not read');
    expect(reply.body.files).toHaveLength(120);
    expect(over.map((f: any) => f.file_name)).toEqual(Array.from({ length: 20 }, (_, i) => `b.zip/b${40 + i}.txt`));
  });

  test('a broken archive fails alone', async () => {
    const { reply } = await extract([
      ['broken.zip', new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]), 'application/zip'],
      ['invoices.csv', INVOICES_CSV, 'text/csv'],
    ]);
    expect(summary(reply.files)).toEqual([
      ['broken.zip', 'failed', 0],
      ['invoices.csv', 'complete', 4],
    ]);
    expect(reply.files[0].error).toBe('not a readable ZIP archive: it has no central directory');
  });
});

describe('text encodings, decided from the bytes and stated in the result', () => {
  const GERMAN = 'Invoice number;Seller;Total amount;Currency\nK-1;Kontoführungsentgelt Bäckerei;4,95;EUR\nK-2;Überweisung Straße;120,00;EUR\n';
  const EXPECTED = [
    { invoice_number: 'K-1', seller: 'Kontoführungsentgelt Bäckerei', total: 4.95, currency: 'EUR' },
    { invoice_number: 'K-2', seller: 'Überweisung Straße', total: 120, currency: 'EUR' },
  ];

  test('a Windows-1252 CSV', async () => {
    const bytes = Uint8Array.from(GERMAN, (c) => c.charCodeAt(0));
    const { reply, rows } = await extract([['bank.csv', bytes, 'text/csv']]);
    expect(pick(rows)).toEqual(EXPECTED);
    expect(reply.files[0].error).toBe('text read as Windows-1252 (ISO-8859-1), decided from its bytes');
  });

  test('a UTF-16 CSV with its byte-order mark, sent without a type', async () => {
    const units = [0xfeff, ...Array.from(GERMAN, (c) => c.charCodeAt(0))];
    const bytes = new Uint8Array(new Uint16Array(units).buffer);
    const { reply, rows } = await extract([['export', bytes, '']]);
    expect(pick(rows)).toEqual(EXPECTED);
    expect(reply.files[0].error).toBe('text read as UTF-16 LE (byte-order mark)');
  });

  test('UTF-8 says nothing', async () => {
    const { reply, rows } = await extract([['bank.csv', GERMAN, 'text/csv']]);
    expect(pick(rows)).toEqual(EXPECTED);
    expect(reply.files[0].error).toBeNull();
  });
});
