/** URL-friendly names: lowercase ASCII letters and digits joined by single dashes. */
export const MAX_SLUG = 50;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function slugify(name: string, max = MAX_SLUG): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  const slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, max).replace(/-+$/, '');
  return slug || 'table';
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
