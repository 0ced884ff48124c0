/** The built-in table templates: ready-made tables for common documents, shared by every organization. */
import type { Column } from '../domain/columns';
import type { InsertMode, Strictness } from '../domain/tables';

export interface CatalogTemplate {
  /** A fixed id (prefix and a ULID of time zero), the same on every installation. */
  id: string;
  name: string;
  category: string;
  description: string;
  instruction: string | null;
  strictness: Strictness;
  insert_mode: InsertMode;
  merge_columns_json: string[] | null;
  columns_json: Column[];
}

type Spec = [id: string, name: string, type: Column['type'], description: string, extra?: Partial<Column>];

const col = ([id, name, type, description, extra]: Spec): Column => ({ id, name, type, required: false, description, ...extra });

let n = 0;
function template(t: Omit<CatalogTemplate, 'id' | 'columns_json'> & { columns: Spec[] }): CatalogTemplate {
  n++;
  const { columns, ...rest } = t;
  return { id: `ttmpl_${String(n).padStart(26, '0')}`, ...rest, columns_json: columns.map(col) };
}

export const CATALOG: CatalogTemplate[] = [
  template({
    name: 'Invoices',
    category: 'Finance',
    description: 'One row per invoice received or sent: who issued it, when, what is due and by when.',
    instruction: 'One row per invoice. Amounts are the invoice totals, not line items.',
    strictness: 'balanced',
    insert_mode: 'merge',
    merge_columns_json: ['invoice_number', 'vendor'],
    columns: [
      ['invoice_number', 'Invoice Number', 'string', 'The invoice number or reference printed on the invoice', { required: true }],
      ['vendor', 'Vendor', 'string', 'The company that issued the invoice'],
      ['invoice_date', 'Invoice Date', 'date', 'The date the invoice was issued'],
      ['due_date', 'Due Date', 'date', 'The date payment is due'],
      ['subtotal', 'Subtotal', 'currency', 'Total before tax', { currency_code: 'USD' }],
      ['tax', 'Tax', 'currency', 'Tax or VAT amount', { currency_code: 'USD' }],
      ['total', 'Total', 'currency', 'The amount due including tax', { currency_code: 'USD' }],
      ['currency', 'Currency', 'string', 'ISO currency code of the amounts, such as USD or EUR'],
      ['status', 'Status', 'enum', 'Whether the invoice is paid', { options: ['unpaid', 'paid', 'overdue', 'void'] }],
    ],
  }),
  template({
    name: 'Invoice line items',
    category: 'Finance',
    description: 'One row per line of an invoice: the item, quantity, unit price and line amount, with the invoice it belongs to.',
    instruction: 'One row per line item; repeat the invoice number and date on every line.',
    strictness: 'balanced',
    insert_mode: 'append',
    merge_columns_json: null,
    columns: [
      ['invoice_number', 'Invoice Number', 'string', 'The invoice the line belongs to', { required: true }],
      ['invoice_date', 'Invoice Date', 'date', 'The date of the invoice'],
      ['description', 'Description', 'string', 'What was sold or billed on this line', { required: true }],
      ['quantity', 'Quantity', 'number', 'Number of units'],
      ['unit_price', 'Unit Price', 'currency', 'Price of one unit', { currency_code: 'USD' }],
      ['amount', 'Amount', 'currency', 'Line total (quantity times unit price)', { currency_code: 'USD' }],
    ],
  }),
  template({
    name: 'Receipts',
    category: 'Finance',
    description: 'Purchases from shop and restaurant receipts: merchant, date, total, tax and how it was paid.',
    instruction: 'One row per receipt.',
    strictness: 'flexible',
    insert_mode: 'dedup',
    merge_columns_json: ['merchant', 'purchase_date', 'total'],
    columns: [
      ['merchant', 'Merchant', 'string', 'The shop, restaurant or service that issued the receipt', { required: true }],
      ['purchase_date', 'Purchase Date', 'date', 'The date of the purchase'],
      ['total', 'Total', 'currency', 'The amount paid', { currency_code: 'USD' }],
      ['tax', 'Tax', 'currency', 'Tax included in the total', { currency_code: 'USD' }],
      ['payment_method', 'Payment Method', 'enum', 'How it was paid', { options: ['card', 'cash', 'transfer', 'other'] }],
      ['category', 'Category', 'enum', 'What kind of expense it is', { options: ['meals', 'travel', 'lodging', 'supplies', 'software', 'other'] }],
    ],
  }),
  template({
    name: 'Purchase orders',
    category: 'Procurement',
    description: 'Purchase orders issued to suppliers: number, supplier, dates, amounts and delivery status.',
    instruction: 'One row per purchase order.',
    strictness: 'balanced',
    insert_mode: 'merge',
    merge_columns_json: ['po_number'],
    columns: [
      ['po_number', 'PO Number', 'string', 'The purchase order number', { required: true }],
      ['supplier', 'Supplier', 'string', 'The supplier the order was placed with'],
      ['order_date', 'Order Date', 'date', 'The date the order was placed'],
      ['delivery_date', 'Delivery Date', 'date', 'The requested or confirmed delivery date'],
      ['total', 'Total', 'currency', 'The order total', { currency_code: 'USD' }],
      ['status', 'Status', 'enum', 'Where the order stands', { options: ['draft', 'sent', 'confirmed', 'received', 'cancelled'] }],
    ],
  }),
  template({
    name: 'Bank statement lines',
    category: 'Finance',
    description: 'Transactions from bank or card statements: booking date, counterparty, amount (negative for debits) and balance.',
    instruction: 'One row per transaction. Debits are negative amounts, credits positive.',
    strictness: 'strict',
    insert_mode: 'dedup',
    merge_columns_json: ['booking_date', 'amount', 'description'],
    columns: [
      ['booking_date', 'Booking Date', 'date', 'The date the bank booked the transaction', { required: true }],
      ['value_date', 'Value Date', 'date', 'The date the money moved, if different'],
      ['description', 'Description', 'string', 'The transaction text or reference'],
      ['counterparty', 'Counterparty', 'string', 'Who paid or was paid'],
      ['amount', 'Amount', 'currency', 'Signed amount: negative for money out', { required: true, currency_code: 'USD' }],
      ['balance', 'Balance', 'currency', 'The account balance after the transaction', { currency_code: 'USD' }],
    ],
  }),
  template({
    name: 'Expense report',
    category: 'Finance',
    description: 'Expenses employees claim back: who, when, what for, how much, and whether it is approved.',
    instruction: 'One row per expense item.',
    strictness: 'balanced',
    insert_mode: 'append',
    merge_columns_json: null,
    columns: [
      ['employee', 'Employee', 'string', 'The person claiming the expense', { required: true }],
      ['expense_date', 'Expense Date', 'date', 'When the expense was made'],
      ['description', 'Description', 'string', 'What the expense was for'],
      ['category', 'Category', 'enum', 'Kind of expense', { options: ['travel', 'meals', 'lodging', 'supplies', 'training', 'other'] }],
      ['amount', 'Amount', 'currency', 'The amount claimed', { currency_code: 'USD' }],
      ['approved', 'Approved', 'boolean', 'Whether the expense is approved'],
    ],
  }),
  template({
    name: 'Contacts',
    category: 'Sales and CRM',
    description: 'People from business cards, signatures, sign-up forms and address lists.',
    instruction: 'One row per person.',
    strictness: 'balanced',
    insert_mode: 'merge',
    merge_columns_json: ['email'],
    columns: [
      ['name', 'Name', 'string', 'Full name of the person', { required: true }],
      ['email', 'Email', 'email', 'Email address'],
      ['phone', 'Phone', 'string', 'Phone number as written, with country code if given'],
      ['company', 'Company', 'string', 'The organization the person works for'],
      ['job_title', 'Job Title', 'string', 'Role or position'],
      ['city', 'City', 'string', 'City of the address'],
      ['country', 'Country', 'string', 'Country of the address'],
    ],
  }),
  template({
    name: 'Sales leads',
    category: 'Sales and CRM',
    description: 'Prospects from lead lists, event scans and inbound forms, with their source and stage.',
    instruction: 'One row per lead.',
    strictness: 'flexible',
    insert_mode: 'merge',
    merge_columns_json: ['email'],
    columns: [
      ['name', 'Name', 'string', 'The lead\'s full name', { required: true }],
      ['email', 'Email', 'email', 'Email address'],
      ['company', 'Company', 'string', 'The lead\'s company'],
      ['source', 'Source', 'enum', 'Where the lead came from', { options: ['website', 'event', 'referral', 'outbound', 'other'] }],
      ['stage', 'Stage', 'enum', 'How far the lead has come', { options: ['new', 'contacted', 'qualified', 'won', 'lost'] }],
      ['estimated_value', 'Estimated Value', 'currency', 'Expected deal size', { currency_code: 'USD' }],
      ['notes', 'Notes', 'text', 'Anything else worth knowing'],
    ],
  }),
  template({
    name: 'Job postings',
    category: 'Recruiting',
    description: 'Open positions from job boards and career pages: title, company, location, pay and link.',
    instruction: 'One row per job posting.',
    strictness: 'flexible',
    insert_mode: 'dedup',
    merge_columns_json: ['url'],
    columns: [
      ['title', 'Title', 'string', 'The job title', { required: true }],
      ['company', 'Company', 'string', 'The hiring company'],
      ['location', 'Location', 'string', 'City or region, or Remote'],
      ['employment_type', 'Employment Type', 'enum', 'Kind of contract', { options: ['full-time', 'part-time', 'contract', 'internship', 'temporary'] }],
      ['salary_min', 'Salary Min', 'currency', 'Lower end of the pay range per year', { currency_code: 'USD' }],
      ['salary_max', 'Salary Max', 'currency', 'Upper end of the pay range per year', { currency_code: 'USD' }],
      ['posted_date', 'Posted Date', 'date', 'When the job was posted'],
      ['url', 'URL', 'url', 'Link to the posting'],
    ],
  }),
  template({
    name: 'Product catalogue',
    category: 'Commerce',
    description: 'Products from price lists, catalogues and supplier sheets: SKU, name, price, stock and category.',
    instruction: 'One row per product or variant.',
    strictness: 'balanced',
    insert_mode: 'merge',
    merge_columns_json: ['sku'],
    columns: [
      ['sku', 'SKU', 'string', 'Stock keeping unit or article number', { required: true }],
      ['product_name', 'Product Name', 'string', 'The product\'s name'],
      ['description', 'Description', 'text', 'Product description'],
      ['price', 'Price', 'currency', 'Selling price per unit', { currency_code: 'USD' }],
      ['in_stock', 'In Stock', 'boolean', 'Whether the product is available'],
      ['category', 'Category', 'string', 'Product category'],
      ['tags', 'Tags', 'array', 'Keywords describing the product'],
    ],
  }),
  template({
    name: 'Shipping manifest',
    category: 'Logistics',
    description: 'Packages and pallets on a shipment: tracking number, consignee, destination, weight and carrier.',
    instruction: 'One row per package or pallet.',
    strictness: 'balanced',
    insert_mode: 'merge',
    merge_columns_json: ['tracking_number'],
    columns: [
      ['tracking_number', 'Tracking Number', 'string', 'Carrier tracking or consignment number', { required: true }],
      ['consignee', 'Consignee', 'string', 'Who receives the package'],
      ['destination', 'Destination', 'string', 'Delivery address or city'],
      ['weight_kg', 'Weight kg', 'number', 'Gross weight in kilograms'],
      ['pieces', 'Pieces', 'number', 'Number of pieces in the package'],
      ['carrier', 'Carrier', 'string', 'The shipping company'],
      ['ship_date', 'Ship Date', 'date', 'The date it was shipped'],
    ],
  }),
  template({
    name: 'Real-estate listings',
    category: 'Real estate',
    description: 'Properties for sale or rent from listing pages and brochures: address, price, size, rooms and link.',
    instruction: 'One row per property.',
    strictness: 'flexible',
    insert_mode: 'merge',
    merge_columns_json: ['url'],
    columns: [
      ['address', 'Address', 'string', 'Street address of the property', { required: true }],
      ['city', 'City', 'string', 'City the property is in'],
      ['listing_type', 'Listing Type', 'enum', 'For sale or for rent', { options: ['sale', 'rent'] }],
      ['price', 'Price', 'currency', 'Asking price, or monthly rent', { currency_code: 'USD' }],
      ['bedrooms', 'Bedrooms', 'number', 'Number of bedrooms'],
      ['bathrooms', 'Bathrooms', 'number', 'Number of bathrooms'],
      ['area_sqm', 'Area sqm', 'number', 'Living area in square metres'],
      ['url', 'URL', 'url', 'Link to the listing'],
    ],
  }),
  template({
    name: 'Event registrations',
    category: 'Events',
    description: 'Attendees from registration exports and confirmation emails: who, which ticket, when, and whether they came.',
    instruction: 'One row per registration.',
    strictness: 'balanced',
    insert_mode: 'merge',
    merge_columns_json: ['email', 'event'],
    columns: [
      ['attendee', 'Attendee', 'string', 'Full name of the attendee', { required: true }],
      ['email', 'Email', 'email', 'Attendee email address'],
      ['event', 'Event', 'string', 'Name of the event or session'],
      ['ticket_type', 'Ticket Type', 'enum', 'Kind of ticket', { options: ['standard', 'vip', 'student', 'speaker', 'staff'] }],
      ['registered_on', 'Registered On', 'date', 'When they registered'],
      ['checked_in', 'Checked In', 'boolean', 'Whether they attended'],
    ],
  }),
];
