/** `npm run bench -- <name...>`: runs the named benchmarks (all when none are named) and prints tables. */
export {};
const BENCHMARKS: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  http: () => import('./http'),
  rows: () => import('./rows'),
  extract: () => import('./extract'),
  corpus: () => import('./corpus'),
  fit: () => import('./fit'),
  pdf: () => import('./pdf'),
  ocr: () => import('./ocr'),
  'receipts-ocr': () => import('./ocr-receipts'),
  learn: () => import('./learn'),
  fuzz: () => import('./fuzz'),
  crash: () => import('./crash'),
  console: () => import('./console'),
  workers: () => import('./workers'),
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHMARKS));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from: ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length ? wanted : Object.keys(BENCHMARKS)) {
  const module = await BENCHMARKS[name]!();
  await module.run();
}
