/**
 * OCR language data comes from the npm packages `@tesseract.js-data/<code>`, installed with the
 * project, so nothing is downloaded when a page is read.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** `eng`, `chi_sim`, `deu_latf`: Tesseract's language codes. */
const LANGUAGE_CODE = /^[a-z]{3}(_[a-z]{2,8})?$/;

export const languagePackage = (code: string) => `@tesseract.js-data/${code}`;

/**
 * The executable `npm run build` makes carries the language packages in its own file system, in
 * node_modules beside its entry, where require.resolve does not look (see src/cli/build.ts).
 */
const packageRoot = (code: string) =>
  Bun.isStandaloneExecutable
    ? join(dirname(process.argv[1]!), 'node_modules', languagePackage(code))
    : dirname(require.resolve(`${languagePackage(code)}/package.json`));

/**
 * The gzipped model of one language. The integer LSTM model (`*_best_int`) is preferred: it is
 * the one the LSTM-only recogniser uses, and the smallest.
 */
function modelFile(code: string): string | null {
  let root: string;
  try {
    root = packageRoot(code);
  } catch {
    return null;
  }
  for (const version of ['4.0.0_best_int', '4.0.0']) {
    const file = join(root, version, `${code}.traineddata.gz`);
    if (existsSync(file)) return file;
  }
  return null;
}

/**
 * Parses `ROWSMITH_OCR_LANGS` (`eng`, `eng+deu`) and checks every language's package is
 * installed; the error names the package to install.
 */
export function parseOcrLanguages(raw: string | undefined): string[] {
  const value = raw?.trim() || 'eng';
  const codes = value.split('+').map((c) => c.trim());
  for (const code of codes) {
    if (!LANGUAGE_CODE.test(code)) throw new Error(`ROWSMITH_OCR_LANGS must be Tesseract language codes joined with +, such as eng or eng+deu, got "${value}"`);
    if (!modelFile(code)) {
      throw new Error(`ROWSMITH_OCR_LANGS names "${code}" but its language data is not installed: run npm install ${languagePackage(code)}`);
    }
  }
  return [...new Set(codes)];
}

/**
 * One folder holding every requested language's model (the recogniser reads all languages from
 * one folder, the packages each have their own). Named after its content, so restarts reuse it.
 */
export function languageFolder(codes: string[]): string {
  const files = codes.map((code) => {
    const file = modelFile(code);
    if (!file) throw new Error(`the OCR language data for "${code}" is not installed: run npm install ${languagePackage(code)}`);
    return [code, file] as const;
  });
  const hash = createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16);
  const folder = join(tmpdir(), `rowsmith-ocr-${hash}`);
  mkdirSync(folder, { recursive: true });
  for (const [code, file] of files) {
    const link = join(folder, `${code}.traineddata.gz`);
    try {
      // A file inside the executable has no path the recogniser's own reads can follow: copied out.
      if (!existsSync(link) && Bun.isStandaloneExecutable) {
        writeFileSync(`${link}.${process.pid}`, readFileSync(file));
        renameSync(`${link}.${process.pid}`, link);
      } else if (!existsSync(link)) symlinkSync(file, link);
    } catch (error) {
      // Another process made the same link at the same moment.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return folder;
}

/** The recognisers rowsmith can read pages with. */
export const OCR_ENGINES = ['tesseract', 'paddle'] as const;
export type OcrEngine = (typeof OCR_ENGINES)[number];

/**
 * Languages PP-OCR's model reads: it was trained on Chinese and English print and lacks most
 * letters of other alphabets (ö, ß, ç, ñ), which Tesseract's language data has.
 */
const PADDLE_LANGUAGES = new Set(['eng', 'chi_sim']);

/**
 * Parses `ROWSMITH_OCR_ENGINE`: `paddle`, `tesseract`, or `auto` (the default), which is PP-OCR
 * when it reads every configured language and rowsmith runs from its installed packages (the
 * single-file executable carries Tesseract only), else Tesseract.
 */
export function parseOcrEngine(raw: string | undefined, languages: string[]): OcrEngine {
  const value = raw?.trim() || 'auto';
  if (value === 'auto') return languages.every((code) => PADDLE_LANGUAGES.has(code)) && !Bun.isStandaloneExecutable ? 'paddle' : 'tesseract';
  if (!(OCR_ENGINES as readonly string[]).includes(value)) throw new Error(`ROWSMITH_OCR_ENGINE must be auto, ${OCR_ENGINES.join(' or ')}, got "${value}"`);
  return value as OcrEngine;
}

/** The OCR languages and recogniser `ROWSMITH_OCR_LANGS` and `ROWSMITH_OCR_ENGINE` ask for; throws on bad values. */
export function ocrChoice(env: Record<string, string | undefined> = process.env): { languages: string[]; engine: OcrEngine } {
  const languages = parseOcrLanguages(env.ROWSMITH_OCR_LANGS);
  return { languages, engine: parseOcrEngine(env.ROWSMITH_OCR_ENGINE, languages) };
}
