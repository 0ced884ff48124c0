/**
 * Till receipts of many countries, as shops e-mail them (plain text), through HTTP: a receipt table's
 * shop, date, address and total come out right whatever the language's words for them, its postcodes
 * and its street names. Every shop, street and figure is made up.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startApp, type TestApp, form, type Part } from '../helpers/app';
import { drawFixedPitchReceipt } from '../extract/ocr/draw';

const P = '/v1/projects/proj_default';

const RECEIPT_COLUMNS = [
  { id: 'company', name: 'Company', type: 'string', description: 'the shop or company that issued the receipt' },
  { id: 'date', name: 'Date', type: 'date' },
  { id: 'address', name: 'Address', type: 'string', description: "the issuer's address as printed, lines joined with spaces" },
  { id: 'total', name: 'Total', type: 'number', description: 'the amount paid, including tax and rounding' },
];

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

async function extractReceipt(text: string, file: Part = ['receipt.txt', text, 'text/plain']) {
  const table = await app.request('POST', `${P}/tables`, { body: { name: `Receipts ${Math.random()}`, columns_json: RECEIPT_COLUMNS } });
  expect(table.status).toBe(201);
  const reply = await app.request('POST', `${P}/tables/${table.body.id}/extract`, { raw: form([file]) });
  expect(reply.status).toBe(200);
  const rows = await app.request('GET', `${P}/tables/${table.body.id}/rows?limit=10`);
  expect(rows.body.rows).toHaveLength(1);
  const row = rows.body.rows[0] as Record<string, unknown>;
  return Object.fromEntries(RECEIPT_COLUMNS.map((c) => [c.id, row[c.id] ?? null])) as Record<string, unknown>;
}

const RECEIPTS: Array<{ what: string; text: string; expected: Record<string, string | number | null> }> = [
  {
    what: 'a German bakery: "Summe" is the total, not an item beside "groß"',
    text: `Bäckerei Kornfeld
Hauptstraße 12
80331 München

Bon-Nr. 4711   26.11.2026 08:14
Brezel            2 x 0,90   1,80
Kaffee groß                  3,20
Croissant                    1,60

Summe EUR                    6,60
Bar                         10,00
Rückgeld                     3,40`,
    expected: { company: 'Bäckerei Kornfeld', date: '2026-11-26', address: 'Hauptstraße 12 80331 München', total: 6.6 },
  },
  {
    what: 'a German supermarket: the "EUR" line over the items is no part of the address',
    text: `MARKTKAUF Kestrel
Lindenallee 5
50667 Köln

EUR
Milch 1,5%                1,19 A
Bananen                   1,49 A
Spülmittel                2,29 B
--------------------------------
SUMME EUR                 4,97
Geg. EC-Karte EUR         4,97

Steuer %   Netto   Steuer  Brutto
A  7%      2,50     0,18    2,68
B 19%      1,92     0,37    2,29
Datum: 24.11.2026  Uhrzeit: 18:02
Beleg-Nr. 8812`,
    expected: { company: 'MARKTKAUF Kestrel', date: '2026-11-24', address: 'Lindenallee 5 50667 Köln', total: 4.97 },
  },
  {
    what: 'a German restaurant: a compound street name ("Marktplatz") with its postcode on one line',
    text: `Restaurant Zum Kestrel
Inh. M. Becker
Marktplatz 3 · 79098 Freiburg
Tel. 0761 123456

Rechnung Nr. 2026-1187
Tisch 5      Bed. Anna
25.11.2026 19:47
1 Schnitzel Wiener Art     18,90
1 Flammkuchen              12,50
2 Weizenbier 0,5l          10,40
Gesamt                     41,80
enth. MwSt 19%              6,67
Gegeben EC                 41,80
Vielen Dank für Ihren Besuch`,
    expected: { company: 'Restaurant Zum Kestrel', date: '2026-11-25', address: 'Marktplatz 3 · 79098 Freiburg', total: 41.8 },
  },
  {
    what: 'a Dutch bakery: the letters of a postcode ("1012 AB") are no legal form',
    text: `Bakkerij Marrowby
Dorpsstraat 3
1012 AB Amsterdam

Datum: 24-11-2026 08:45
Volkorenbrood            3,10
Krentenbollen 4x         2,80
Appelflap                1,95
Totaal                   7,85
PIN                      7,85
BTW 9%                   0,65
Bedankt en tot ziens!`,
    expected: { company: 'Bakkerij Marrowby', date: '2026-11-24', address: 'Dorpsstraat 3 1012 AB Amsterdam', total: 7.85 },
  },
  {
    what: 'a British pub: a till line of numbers ("Order 2291 Table 7") is no address',
    text: `The Bluegate Arms
Public House & Kitchen
5 Church Lane, Marrowby, Kent TN12 3AB
Tel: 01622 555 012

Order 2291  Table 7   Covers 2
25 Nov 2026 20:14
2 Fish & Chips             29.00
1 Sticky Toffee Pudding     6.50
2 Pint Bitter              10.80
Sub Total                  46.30
Service 12.5%               5.79
Total                      52.09
Paid by Card               52.09
VAT No: 123 4567 89`,
    expected: { company: 'The Bluegate Arms', date: '2026-11-25', address: '5 Church Lane, Marrowby, Kent TN12 3AB', total: 52.09 },
  },
  {
    what: "a US supermarket: the store number is the name's, the manager's line with a telephone number neither name nor address",
    text: `MARROWBY MARKET #0412
2200 W Lincoln Hwy
Merrillville IN 46410
Store Mgr: J. Ortiz  (219) 555-0120

ST# 0412 OP# 22 TE# 04 TR# 09871
BANANAS            0.58 N
 1.21 lb @ 0.48 /lb
WHOLE MILK GAL     3.49 N
EGGS LARGE 12CT    4.29 N
PAPER TOWELS       8.99 T
              SUBTOTAL    17.35
         TAX 7.000 %       0.63
                TOTAL     17.98
DEBIT TEND               17.98
CHANGE DUE                0.00

11/20/26   18:42:11
# ITEMS SOLD 4`,
    expected: { company: 'MARROWBY MARKET', date: '2026-11-20', address: '2200 W Lincoln Hwy Merrillville IN 46410', total: 17.98 },
  },
  {
    what: 'a US restaurant',
    text: `CORNER GRILL
88 Harbor Blvd
Bayport, FL 33701
Tel 727-555-0199

Server: Mike        Table 12
Date: 11/21/2026    Time: 7:48 PM
Check #1043

2 Cheeseburger           21.98
1 Caesar Salad            9.50
2 Iced Tea                5.98

Subtotal                 37.46
Tax                       2.62
Total                    40.08
Tip                       7.00
Amount Paid              47.08`,
    expected: { company: 'CORNER GRILL', date: '2026-11-21', address: '88 Harbor Blvd Bayport, FL 33701', total: 40.08 },
  },
  {
    what: 'a Spanish café',
    text: `CAFETERÍA BLUEGATE S.L.
C/ Mayor 15
28013 Madrid
NIF B12345678

FACTURA SIMPLIFICADA
Fecha: 25/11/2026 Hora: 09:30
2 Café con leche        3,20
1 Tostada               2,10
TOTAL (IVA incl.)       5,30
Efectivo               10,00
Cambio                  4,70
IVA 10%: 0,48
Gracias por su visita`,
    expected: { company: 'CAFETERÍA BLUEGATE S.L.', date: '2026-11-25', address: 'C/ Mayor 15 28013 Madrid', total: 5.3 },
  },
  {
    what: 'an Italian bakery',
    text: `PANIFICIO CORNER S.R.L.
Via Roma 21
20121 Milano (MI)
P.IVA 01234567890

DOCUMENTO COMMERCIALE
di vendita o prestazione
Pane integrale          2,40
Focaccia                3,50
Cornetto x2             2,60
TOTALE COMPLESSIVO      8,50
di cui IVA              0,77
Pagamento contante     10,00
Resto                   1,50
25-11-2026 10:14
DOC.N. 0102-0045`,
    expected: { company: 'PANIFICIO CORNER S.R.L.', date: '2026-11-25', address: 'Via Roma 21 20121 Milano (MI)', total: 8.5 },
  },
  {
    what: 'a Polish shop',
    text: `SKLEP KESTREL SP. Z O.O.
ul. Długa 7
00-238 Warszawa
NIP 123-456-78-90

PARAGON FISKALNY
2026-11-25        nr wydr. 123
Chleb żytni   1 x 5,49   5,49 A
Masło         1 x 7,99   7,99 A
Jabłka      1,2 x 4,50   5,40 C
SUMA PLN                18,88
Gotówka                 20,00
Reszta                   1,12`,
    expected: { company: 'SKLEP KESTREL SP. Z O.O.', date: '2026-11-25', address: 'ul. Długa 7 00-238 Warszawa', total: 18.88 },
  },
  {
    what: 'a Portuguese pastry shop',
    text: `PASTELARIA CORNER LDA
Rua Augusta 100
1100-053 Lisboa
NIF 501234567

FATURA SIMPLIFICADA FS A/1234
Data: 2026-11-25
2 Pastel de nata         2,60
1 Galão                  1,40
Total                    4,00
Numerário                5,00
Troco                    1,00
IVA 13%                  0,46`,
    expected: { company: 'PASTELARIA CORNER LDA', date: '2026-11-25', address: 'Rua Augusta 100 1100-053 Lisboa', total: 4 },
  },
  {
    what: 'a US pharmacy: "WELCOME TO" over the name is a greeting, no label of a customer\'s',
    text: `WELCOME TO
BLUEGATE PHARMACY
1500 Oak Street
Portland, OR 97205
(503) 555-0133

Nov 22, 2026   10:14 AM
VITAMIN C 500MG        12.99
COUGH DROPS             4.49
SUBTOTAL               17.48
TAX                     0.00
TOTAL                  17.48
TOTAL SAVINGS           3.00
VISA                   17.48
APPROVED  AUTH 004512`,
    expected: { company: 'BLUEGATE PHARMACY', date: '2026-11-22', address: '1500 Oak Street Portland, OR 97205', total: 17.48 },
  },
  {
    what: 'an Irish shop: "Co. Kerry" is a county, and a line of words set off by commas no label over it',
    text: `CORNER STORES LTD
Main Street, Marrowby
Co. Kerry V93 X2Y4
VAT No. IE1234567T

25/11/2026 16:45
Brown Bread       €2.50
Milk 1L           €1.19
Total to pay      €3.69
Card              €3.69`,
    expected: { company: 'CORNER STORES LTD', date: '2026-11-25', address: 'Main Street, Marrowby Co. Kerry V93 X2Y4', total: 3.69 },
  },
  {
    what: 'a US bistro: the grand total after the gratuity',
    text: `Kestrel Bistro
742 Evergreen Terrace, Springfield, OR 97477
www.kestrelbistro.example

Server: Lisa    Guests: 2
11/24/2026 8:05 PM
Salmon              28.00
Risotto             22.00
Wine glass x2       24.00
Subtotal            74.00
Sales Tax            0.00
Total               74.00
Gratuity 20%        14.80
Grand Total         88.80
Paid VISA           88.80`,
    expected: { company: 'Kestrel Bistro', date: '2026-11-24', address: '742 Evergreen Terrace, Springfield, OR 97477', total: 88.8 },
  },
  {
    what: 'an Australian café',
    text: `KESTREL CAFE PTY LTD
ABN 12 345 678 901
Shop 3, 45 George Street
Sydney NSW 2000
Ph (02) 9555 0101

TAX INVOICE
24/11/2026 11:02  Reg 1
Flat White Lrg           5.50
Banana Bread             6.00
Eggs Benedict           19.50
Total incl GST         $31.00
GST included             2.82
EFTPOS                  31.00`,
    expected: { company: 'KESTREL CAFE PTY LTD', date: '2026-11-24', address: 'Shop 3, 45 George Street Sydney NSW 2000', total: 31 },
  },
  {
    what: 'a Canadian bookshop',
    text: `Bluegate Books
455 Rue Sainte-Catherine O
Montréal QC H3B 1A7
(514) 555-0177

2026-11-22 14:31
Transaction 55123
1 Paperback novel       18.99
1 Bookmark               2.50
Subtotal                21.49
GST 5%                   1.07
QST 9.975%               2.14
TOTAL                   24.70
MASTERCARD              24.70`,
    expected: { company: 'Bluegate Books', date: '2026-11-22', address: '455 Rue Sainte-Catherine O Montréal QC H3B 1A7', total: 24.7 },
  },
  {
    what: 'a Swiss kiosk',
    text: `Kiosk Marrowby
Bahnhofstrasse 10
8001 Zürich

26.11.2026 07:55  Kasse 2
Gipfeli                 2.40
Kaffee                  4.20
Zeitung                 3.50
Total CHF              10.10
Bar                    20.00
Rückgeld                9.90
MWST 2.6% inkl.         0.26`,
    expected: { company: 'Kiosk Marrowby', date: '2026-11-26', address: 'Bahnhofstrasse 10 8001 Zürich', total: 10.1 },
  },
  {
    what: 'an Indian sweet shop',
    text: `CORNER SWEETS & SNACKS
12, MG Road, Indiranagar
Bengaluru - 560038
GSTIN: 29ABCDE1234F1Z5
Ph: 080-5550123

Bill No: 4521   Date: 25-11-2026
Kaju Katli 250g        1   350.00
Samosa                 4    80.00
Masala Chai            2    60.00
Sub Total                  490.00
CGST 2.5%                   12.25
SGST 2.5%                   12.25
Grand Total           ₹    514.50
Thank you! Visit again`,
    expected: { company: 'CORNER SWEETS & SNACKS', date: '2026-11-25', address: '12, MG Road, Indiranagar Bengaluru - 560038', total: 514.5 },
  },
  {
    what: 'a British supermarket: "Store 118" names a branch by its number, not the shop',
    text: `MARROWBY SUPERSTORE
Store 118 - Riverside
Tel 0800 555 123

   BANANAS LOOSE         0.68
   MILK 4PT              1.45
   BREAD WHOLEMEAL       1.10
   EGGS 12               2.35
   CLUBCARD SAVING      -0.50
 5 BALANCE DUE           5.08
   CARD                  5.08
 CHANGE DUE              0.00
25/11/26 18:33 2291 018 5512 104`,
    expected: { company: 'MARROWBY SUPERSTORE', date: '2026-11-25', address: null, total: 5.08 },
  },
  {
    what: 'a US fuel station',
    text: `CORNER FUEL STOP
Route 9 & Elm Rd
Marrowby, NY 12345

PUMP # 04
UNLEADED REG
 12.403 GAL @ $3.459/GAL
FUEL TOTAL          $42.90
CASH               $50.00
CHANGE              $7.10

11/25/2026  07:12 AM
TRAN# 00442
THANK YOU, DRIVE SAFELY`,
    expected: { company: 'CORNER FUEL STOP', date: '2026-11-25', address: 'Route 9 & Elm Rd Marrowby, NY 12345', total: 42.9 },
  },
  {
    what: 'an Indonesian shop: amounts grouped by dots without decimals ("40.500") are thousands',
    text: `TOKO KESTREL JAYA
Jl. Merdeka No. 45
Bandung 40111
Telp. 022-5550123

25/11/2026 10:12   Kasir: Rina
Indomie Goreng   5 x 3.500   17.500
Aqua 600ml       2 x 4.000    8.000
Roti Tawar                   15.000
TOTAL BELANJA                40.500
TUNAI                        50.000
KEMBALI                       9.500
Terima kasih atas kunjungan Anda`,
    expected: { company: 'TOKO KESTREL JAYA', date: '2026-11-25', address: 'Jl. Merdeka No. 45 Bandung 40111', total: 40500 },
  },
  {
    what: 'a Singapore coffee shop',
    text: `Bluegate Kopi Pte Ltd
Blk 123 Ang Mo Kio Ave 3 #01-45
Singapore 560123
GST Reg No: 201912345K

Date: 25/11/2026  Time: 08:12
Kopi O               1.40
Kaya Toast Set       5.80
Subtotal             7.20
GST 9%               0.65
Total               $7.85
NETS                 7.85`,
    expected: { company: 'Bluegate Kopi Pte Ltd', date: '2026-11-25', address: 'Blk 123 Ang Mo Kio Ave 3 #01-45 Singapore 560123', total: 7.85 },
  },
  {
    what: 'a US deli: the total due, not the amount tendered',
    text: `CORNER DELI & MARKET
310 Main St
Boulder CO 80302

Order #1182        11/23/2026 12:40 PM
1 Turkey Club             11.50
1 Chips                    1.95
1 Iced Coffee              3.75
Subtotal                  17.20
Discount (10%)            -1.72
Tax                        1.37
Total Due                 16.85
Amount Tendered           20.00
Change                     3.15`,
    expected: { company: 'CORNER DELI & MARKET', date: '2026-11-23', address: '310 Main St Boulder CO 80302', total: 16.85 },
  },
];

describe('till receipts of many countries', () => {
  for (const { what, text, expected } of RECEIPTS) {
    test(what, async () => {
      expect(await extractReceipt(text)).toEqual(expected);
    });
  }
});

describe('a till receipt photographed', () => {
  test('printed at a fixed pitch: the shop, street and town over the items are the receipt\'s, not a header of the items', async () => {
    const lines = ['KORNFELD BAKERY', 'Mill Lane 12', '80331 Marrowby', '', 'Bon 4711   26.11.2026 08:14', 'Rolls      2 x 0,90   1,80', 'Coffee large          3,20', 'Croissant             1,60', '', 'Summe EUR             6,60', 'Bar                  10,00', 'Change                3,40'];
    const got = await extractReceipt('', ['receipt.png', drawFixedPitchReceipt(lines), 'image/png']);
    expect(got).toEqual({ company: 'KORNFELD BAKERY', date: '2026-11-26', address: 'Mill Lane 12 80331 Marrowby', total: 6.6 });
  }, 60_000);
});
