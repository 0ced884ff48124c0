/** URL-friendly names: lowercase ASCII letters and digits joined by single dashes. */
export const MAX_SLUG = 50;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Accents dropped, lowercase ASCII letters and digits, every other run of characters one
 * `separator`, at most `max` long; `fallback` when nothing is left.
 */
export function slugify(name: string, max = MAX_SLUG, separator = '-', fallback = 'table'): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  const trim = (text: string) => text.split(separator).filter(Boolean).join(separator);
  return trim(trim(ascii.replace(/[^a-z0-9]+/g, separator)).slice(0, max)) || fallback;
}

/** `base`, or `base-2`, `base-3`, ... : the first that `taken` says is free, never over `max`. */
export function uniqueSlug(base: string, taken: (slug: string) => boolean, max = MAX_SLUG): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, max - suffix.length).replace(/-+$/, '') + suffix;
    if (!taken(candidate)) return candidate;
  }
}
